// Adapter conformance: each real Auth.js adapter (real-adapters.ts), unchanged, on a real store, behind authchart
// with database sessions, driven over HTTP: credentials, magic link, OpenID Connect with a real OP, sign-out, session
// refresh, step-up (checkRecentSignIn), one magic link confirmed four times at once, and the keys each adapter method
// is handed (never one outside the Auth.js contract). Each adapter's results make its row of docs/adapters.md's table
// (adapter-table.ts); the last test checks the page says what this run saw (UPDATE_ADAPTER_TABLE=1 rewrites it).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Adapter } from '../../src/core/adapter.js';
import { assertAdapter } from '../../src/core/adapter-wrap.js';
import type { AuthConfig } from '../../src/core/options.js';
import { checkRecentSignIn } from '../../src/index.js';
import { OIDC } from '../../src/providers/oauth.js';
import { Passkey } from '../../src/providers/webauthn.js';
import { MissingAdapterMethods } from '../../src/core/errors.js';
import { SoftAuthenticator } from '../flows/webauthn/webauthn-authenticator.js';
import { TEST_SECRET, ORIGIN, recordingLogger, testAuth, type TestAuth } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';
import { memoryOutbox, requestLink, signInByLink } from '../support/magic-link.js';
import { passwordProvider, PASSWORD } from '../session/database-harness.js';
import { startOidcProvider, type OidcProviderHarness } from '../e2e/peers/oidc.js';
import { adapterCases, type RealAdapter } from './real-adapters.js';
import { checkDocsTable, type AdapterFeatures } from './adapter-table.js';

/** The keys of the Auth.js contract for the session methods (what `@auth/core` itself passes). */
const CONTRACT_KEYS: Record<string, readonly string[]> = {
  createSession: ['sessionToken', 'userId', 'expires'],
  updateSession: ['sessionToken', 'expires'],
};

/** The adapter as authchart gets it, recording the keys of every object argument its session methods receive. */
function recorded(adapter: Adapter, seen: Map<string, Set<string>>): Adapter {
  const copy: Record<string, unknown> = { ...adapter };
  for (const method of Object.keys(CONTRACT_KEYS)) {
    const fn = (adapter as Record<string, unknown>)[method] as ((...a: unknown[]) => unknown) | undefined;
    if (!fn) continue;
    copy[method] = (arg: Record<string, unknown>, ...rest: unknown[]) => {
      const keys = seen.get(method) ?? new Set<string>();
      for (const k of Object.keys(arg)) keys.add(k);
      seen.set(method, keys);
      return fn.call(adapter, arg, ...rest);
    };
  }
  return copy as Adapter;
}

const results: Record<string, AdapterFeatures> = {};
let op: OidcProviderHarness;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(async () => {
  await op?.stop();
});

let n = 0;
const address = (tag: string) => `conf-${tag}-${++n}-${process.pid}@example.test`;
const cookieOf = (client: TestClient) => ({ cookie: client.cookies.header(new URL(ORIGIN)) });

for (const c of adapterCases) {
  describe(c.name, () => {
    let real: RealAdapter;
    const seen = new Map<string, Set<string>>();
    const features: AdapterFeatures = { databaseSessions: false, stepUp: false, sessionControl: false, secondFactors: false, passkeys: false, singleUseLinks: false };
    let config: AuthConfig;
    let t: TestAuth;
    let outbox: ReturnType<typeof memoryOutbox>;
    let passkeyMethods = false;

    beforeAll(async () => {
      real = await c.make();
      outbox = memoryOutbox();
      const oidc = OIDC({ id: 'oidc', name: 'Test OP', issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, checks: ['pkce', 'state', 'nonce'] });
      // authorize answers with the app's own id: never the store's (a uuid column cannot even hold it).
      config = {
        secret: TEST_SECRET,
        trustHost: true,
        logger: recordingLogger(),
        adapter: recorded(real.adapter, seen),
        session: { strategy: 'database' },
        providers: [passwordProvider((email) => ({ id: `app-${email}`, email, name: 'Conformance' })), outbox.provider, oidc],
      };
      t = testAuth(config);
      const supports = (needs: Parameters<typeof assertAdapter>[1]) => {
        try {
          assertAdapter(real.adapter, needs);
          return true;
        } catch {
          return false;
        }
      };
      features.secondFactors = supports({ secondFactor: true });
      passkeyMethods = supports({ webauthn: true });
      features.sessionControl = typeof real.adapter.listSessions === 'function' && typeof real.adapter.deleteSessions === 'function';
    });
    afterAll(async () => {
      results[c.name] = features;
      await real?.close();
    });
    afterEach(() => vi.useRealTimers());

    const recent = (client: TestClient, maxAge = 300) => checkRecentSignIn(new Request(`${ORIGIN}/settings`, { headers: cookieOf(client) }), config, { maxAge });
    const session = async (client: TestClient) => (await (await client.get('/auth/session')).json()) as { user?: { email?: string }; expires?: string } | null;
    const credentials = async (client: TestClient, email: string) =>
      client.post('/auth/callback/credentials', { csrfToken: await t.csrfToken(client), email, password: PASSWORD, callbackUrl: '/home' });

    let sessions = 0;
    it('credentials: signs in with the app’s own id, twice to the same user; step-up sees the sign-in', async () => {
      const email = address('pwd');
      const res = await credentials(t.client, email);
      expect(res.location?.href).toBe(`${ORIGIN}/home`);
      expect((await session(t.client))?.user?.email).toBe(email);
      expect(await recent(t.client)).toMatchObject({ ok: true, amr: ['pwd'] });
      const other = t.newClient();
      expect((await credentials(other, email)).location?.href).toBe(`${ORIGIN}/home`);
      expect((await session(other))?.user?.email).toBe(email);
      sessions++;
    });

    it('magic link: signs in, and step-up sees the sign-in', async () => {
      const client = t.newClient();
      const email = address('link');
      const res = await signInByLink(t, outbox, email, client);
      expect(res.location?.href).toBe(`${ORIGIN}/after`);
      expect((await session(client))?.user?.email).toBe(email);
      expect(await recent(client)).toMatchObject({ ok: true, amr: ['email'] });
      sessions++;
    });

    it('OpenID Connect with a real OP: signs in, and step-up sees the sign-in', async () => {
      const client = t.newClient();
      const start = await client.post('/auth/signin/oidc', { csrfToken: await t.csrfToken(client), callbackUrl: '/after' });
      expect(start.location?.origin).toBe(op.issuer);
      const back = await client.submit(await op.login(start.location!.href, 'alice'));
      expect(back.location?.href).toBe(`${ORIGIN}/after`);
      expect((await session(client))?.user?.email).toBeTruthy();
      expect(await recent(client)).toMatchObject({ ok: true, amr: ['oauth'] });
      sessions++;
      features.databaseSessions = sessions === 3;
    });

    it('step-up: stale after maxAge, recent again after signing in again; the facts cannot move to another session', async () => {
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
      const client = t.newClient();
      const email = address('stepup');
      await credentials(client, email);
      expect(await recent(client)).toMatchObject({ ok: true });
      vi.setSystemTime(Date.now() + 301_000);
      expect(await recent(client)).toMatchObject({ ok: false, reason: 'stale' });
      // A fresh sign-in elsewhere: its facts cookie, put beside this (stale) session's token, counts for nothing.
      const thief = t.newClient();
      await credentials(thief, address('stepup-other'));
      const facts = thief.cookies.header(new URL(ORIGIN)).split('; ').find((p) => p.startsWith('authchart.session-token-facts='))!;
      expect(facts).toBeTruthy();
      const own = client.cookies.header(new URL(ORIGIN)).split('; ').filter((p) => !p.startsWith('authchart.session-token-facts='));
      const moved = await checkRecentSignIn(new Request(`${ORIGIN}/settings`, { headers: { cookie: [...own, facts].join('; ') } }), config, { maxAge: 300 });
      expect(moved).toMatchObject({ ok: false });
      await credentials(client, email);
      expect(await recent(client)).toMatchObject({ ok: true, amr: ['pwd'] });
      features.stepUp = true;
    });

    it('session refresh: after updateAge the expiry moves and the session stays verified as it was', async () => {
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
      const client = t.newClient();
      await credentials(client, address('refresh'));
      const first = (await session(client))?.expires;
      vi.setSystemTime(Date.now() + 2 * 86_400_000);
      const res = await client.get('/auth/session');
      const body = (await res.json()) as { expires?: string } | null;
      expect(new Date(body!.expires!).getTime()).toBeGreaterThan(new Date(first!).getTime());
      expect(res.setCookie.some((line) => line.startsWith('authchart.session-token='))).toBe(true);
      expect(await recent(client, 3 * 86_400)).toMatchObject({ ok: true, amr: ['pwd'] });
    });

    it('sign-out ends the session and clears both cookies', async () => {
      const client = t.newClient();
      await credentials(client, address('out'));
      const res = await client.post('/auth/signout', { csrfToken: await t.csrfToken(client) });
      expect(res.status).toBe(302);
      expect(res.setCookie.filter((l) => /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(l)).map((l) => l.split('=')[0])).toEqual(
        expect.arrayContaining(['authchart.session-token', 'authchart.session-token-facts']),
      );
      expect(await session(client)).toBeNull();
    });

    it('one magic link confirmed four times at once gives one session', async () => {
      const email = address('race');
      const before = outbox.sent.length;
      await requestLink(t, email, t.newClient());
      const url = outbox.sent[before]!.url;
      const browsers = [1, 2, 3, 4].map(() => t.newClient());
      await Promise.all(browsers.map((b) => b.get(url)));
      const signedIn = (await Promise.all(browsers.map(session))).filter((s) => s?.user?.email === email);
      expect(signedIn).toHaveLength(1);
      features.singleUseLinks = true;
    });

    it('passkey: registers and signs in with a software authenticator where the adapter stores authenticators, else is refused at start', async () => {
      const passkeyConfig: AuthConfig = { ...config, logger: recordingLogger(), experimental: { enableWebAuthn: true }, providers: [Passkey()] };
      if (!passkeyMethods) {
        expect(() => testAuth(passkeyConfig)).toThrow(MissingAdapterMethods);
        return;
      }
      const p = testAuth(passkeyConfig);
      const device = new SoftAuthenticator(ORIGIN);
      const options = async (client: TestClient, query: string) => ((await (await client.get(`/auth/webauthn-options/passkey?${query}`)).json()) as { options: never }).options;
      const post = async (client: TestClient, action: string, data: unknown) =>
        client.post('/auth/callback/passkey', { action, data: JSON.stringify(data), csrfToken: await p.csrfToken(client), callbackUrl: '/after' });
      const registered = await post(p.client, 'register', device.register(await options(p.client, `action=register&email=${encodeURIComponent(address('passkey'))}`)));
      expect(registered.location?.href).toBe(`${ORIGIN}/after`);
      const client = p.newClient();
      const signedIn = await post(client, 'authenticate', device.authenticate(await options(client, 'action=authenticate')));
      expect(signedIn.location?.href).toBe(`${ORIGIN}/after`);
      expect(await checkRecentSignIn(new Request(`${ORIGIN}/settings`, { headers: cookieOf(client) }), passkeyConfig, { maxAge: 300 })).toMatchObject({ ok: true, amr: ['hwk'] });
      features.passkeys = true;
    });

    it('hands the session methods only the keys of the Auth.js contract', () => {
      expect(seen.get('createSession')?.size).toBeGreaterThan(0);
      for (const [method, keys] of seen) expect([...keys].filter((k) => !CONTRACT_KEYS[method]!.includes(k)), method).toEqual([]);
    });
  });
}

describe('the adapter table of docs/adapters.md', () => {
  it('says what this run saw', async () => {
    await checkDocsTable(adapterCases.map((c) => ({ name: c.name, features: results[c.name]! })));
  });
});
