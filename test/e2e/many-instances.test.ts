// Two app instances, each its own process, sharing one PostgreSQL (adapter, sessions) and one Redis (throttle):
// an OAuth sign-in with a real OpenID provider (oidc-provider) begun on A finishes on B, and its callback replayed
// is refused; a magic link asked for on A signs in on B and is refused on its second use anywhere; failed passwords split
// between A and B meet one limit; a session ended through A is refused by B; a passkey registered through options
// from A is finished on B, and an assertion used on A is refused when replayed to either.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, REDIS_URL, useSharedStores } from '../support/shared-stores.js';
import { SoftAuthenticator } from '../flows/webauthn/webauthn-authenticator.js';
import { startOidcProvider, type OidcProviderHarness } from './peers/oidc.js';
import { SiteBrowser } from './peers/site-browser.js';

const INSTANCE = fileURLToPath(new URL('./instances/instance.ts', import.meta.url));
const stores = useSharedStores();

interface Instance {
  name: string;
  origin: string;
  child: ChildProcess;
  /** Every line it reported, in order. */
  said: Record<string, unknown>[];
}

function start(name: string, env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', INSTANCE], { env: { ...process.env, ...env, NODE_ENV: 'production' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const said: Record<string, unknown>[] = [];
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`instance ${name} exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const message = JSON.parse(line) as Record<string, unknown>;
      said.push(message);
      if (typeof message.port === 'number') resolve({ name, origin: `http://127.0.0.1:${message.port}`, child, said });
    });
  });
}

describe('two instances sharing PostgreSQL and Redis', () => {
  let a: Instance;
  let b: Instance;
  let op: OidcProviderHarness;

  beforeAll(async () => {
    const schema = await stores.schema();
    op = await startOidcProvider({ redirectUris: ['http://app.test/auth/callback/oidc'] });
    // Both answer for one public origin, as behind a load balancer; the test reaches each at its own port.
    const env = {
      DATABASE_URL: DATABASE_URL!, SCHEMA: schema, REDIS_URL, REDIS_PREFIX: stores.redisPrefix, AUTH_SECRET: 'many-instances-secret-0123456789abcdefgh', AUTH_URL: 'http://app.test/auth',
      OIDC_ISSUER: op.issuer, OIDC_CLIENT_ID: op.clientId, OIDC_CLIENT_SECRET: op.clientSecret!,
    };
    [a, b] = await Promise.all([start('A', env), start('B', env)]);
  }, 60_000);
  afterAll(async () => {
    for (const instance of [a, b]) instance?.child.kill('SIGTERM');
    await op?.stop();
  });

  const mailTo = async (instance: Instance, address: string, after: number) => {
    for (let i = 0; i < 100; i++) {
      const mail = instance.said.slice(after).find((m) => m.mail === address);
      if (mail) return String(mail.url);
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no mail to ${address} from ${instance.name}`);
  };
  /** A link of the public origin, as a path to send to one instance. */
  const on = (link: string) => {
    const url = new URL(link);
    return `${url.pathname}${url.search}`;
  };

  it('an OAuth sign-in with the real OpenID provider begun on A finishes on B; its callback replayed is refused', async () => {
    const browser = new SiteBrowser();
    const begun = await browser.post(a.origin, '/auth/signin/oidc', { callbackUrl: '/welcome' });
    expect(begun.status).toBe(302);
    const authorization = begun.headers.get('location')!;
    expect(authorization.startsWith(op.issuer)).toBe(true);
    const back = await op.login(authorization, 'alice');
    expect(new URL(back.url).origin).toBe('http://app.test');
    // The state, PKCE verifier and nonce live in A's cookies: B, with the same secret, reads them.
    const done = await browser.fetch(b.origin, on(back.url));
    expect(done.headers.get('location')).toBe('http://app.test/welcome');
    expect((await browser.session(b.origin))?.user?.email).toBe('alice@example.test');
    expect((await browser.session(a.origin))?.user?.email).toBe('alice@example.test');
    // The code is spent at the OP and the check cookies are gone: the same callback, on either, signs nobody in.
    for (const instance of [a, b]) {
      const replay = new SiteBrowser();
      const res = await replay.fetch(instance.origin, on(back.url));
      expect(new URL(res.headers.get('location')!).searchParams.get('error')).not.toBeNull();
      expect(await replay.session(instance.origin)).toBeNull();
    }
  });

  it('a magic link asked for on A signs in on B, and a second use is refused on either', async () => {
    const browser = new SiteBrowser();
    const address = `link-${process.pid}@example.test`;
    const before = a.said.length;
    const asked = await browser.post(a.origin, '/auth/signin/email', { email: address, callbackUrl: '/welcome' });
    expect(asked.status).toBe(302);
    const link = await mailTo(a, address, before);
    const opened = await browser.fetch(b.origin, on(link));
    expect(opened.status).toBe(302);
    expect(opened.headers.get('location')).toBe('http://app.test/welcome');
    expect((await browser.session(b.origin))?.user?.email).toBe(address);
    expect((await browser.session(a.origin))?.user?.email).toBe(address);

    for (const instance of [a, b]) {
      const replayed = await new SiteBrowser().fetch(instance.origin, on(link));
      expect(new URL(replayed.headers.get('location')!).searchParams.get('error')).toBe('Verification');
    }
  });

  it('failed passwords split between A and B meet one limit', async () => {
    const browser = new SiteBrowser();
    const guesses = await Promise.all(Array.from({ length: 20 }, (_, i) => browser.post((i % 2 ? a : b).origin, '/auth/callback/credentials', { username: 'ada', password: `guess-${i}` })));
    const tried = [...a.said, ...b.said].filter((m) => m.authorize === 'ada').length;
    expect(tried).toBeLessThanOrEqual(6);
    expect(guesses.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(14);
    // Both instances refused some: the count is shared, not each instance's own.
    const statuses = await Promise.all([a, b].map(async (instance) => (await browser.post(instance.origin, '/auth/callback/credentials', { username: 'ada', password: 'right' })).status));
    expect(statuses).toEqual([429, 429]);
  });

  it('a session ended through A is refused by B', async () => {
    const laptop = new SiteBrowser();
    const phone = new SiteBrowser();
    expect((await laptop.post(a.origin, '/auth/callback/credentials', { username: 'grace', password: 'right' })).status).toBe(302);
    expect((await phone.post(b.origin, '/auth/callback/credentials', { username: 'grace', password: 'right' })).status).toBe(302);
    expect((await phone.session(b.origin))?.user?.email).toBe('grace@example.test');
    const ended = await laptop.post(a.origin, '/auth/sessions/revoke', { scope: 'others' });
    expect(await ended.json()).toEqual({ revoked: 1 });
    expect(await phone.session(b.origin)).toBeNull();
    expect(await phone.session(a.origin)).toBeNull();
    expect((await laptop.session(b.origin))?.user?.email).toBe('grace@example.test');
  });

  it('a passkey ceremony begun on A finishes on B, and an assertion used on A is refused on B and on A', async () => {
    // The relying party is the public origin both instances answer for.
    const device = new SoftAuthenticator('http://app.test');
    const options = async (browser: SiteBrowser, instance: Instance, query: string) =>
      ((await (await browser.fetch(instance.origin, `/auth/webauthn-options/passkey?${query}`)).json()) as { options: never }).options;
    const send = (browser: SiteBrowser, instance: Instance, action: string, data: unknown) =>
      browser.post(instance.origin, '/auth/callback/passkey', { action, data: JSON.stringify(data), callbackUrl: '/welcome' });

    // Registration: the options (and the challenge in the flow cookie) from A, the new credential verified by B.
    const owner = new SiteBrowser();
    const registered = await send(owner, b, 'register', device.register(await options(owner, a, `action=register&email=pk-${process.pid}@example.test`)));
    expect(registered.headers.get('location')).toBe('http://app.test/welcome');
    const ownerId = (await owner.session(a.origin))?.user?.id;
    expect(ownerId).toEqual(expect.any(String));
    expect((await owner.session(b.origin))?.user?.id).toBe(ownerId);

    // Authentication: options from B, the assertion checked by A. A device that does not count (as synced passkeys):
    // only the spent challenge, kept in the shared database, stops the replay.
    const signer = new SiteBrowser();
    const assertion = device.authenticate(await options(signer, b, 'action=authenticate'), { counter: 0 });
    const captured = new Map(signer.cookies);
    const signedIn = await send(signer, a, 'authenticate', assertion);
    expect(signedIn.headers.get('location')).toBe('http://app.test/welcome');
    expect((await signer.session(b.origin))?.user?.id).toBe(ownerId);

    for (const instance of [b, a]) {
      const attacker = new SiteBrowser();
      attacker.cookies = new Map(captured);
      const replayed = await send(attacker, instance, 'authenticate', assertion);
      expect(new URL(replayed.headers.get('location')!).searchParams.get('error')).not.toBeNull();
      expect(await attacker.session(instance.origin)).toBeNull();
    }
  });
});
