// Host poisoning: a forged Host or X-Forwarded-Host must never name the link in a sign-in mail, an OAuth
// redirect_uri, or a callback URL. With an allow-list (`trustHost: [...]`) any other host is refused
// (UntrustedHost, 400); of several X-Forwarded-* entries the nearest proxy's (the last) counts; a malformed host
// is a 400, never a 500; and the demo trusts no host in production and serves no mailbox there.
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { H3, serve } from 'h3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { addEmailSignIn } from '../../examples/demo/mailbox.js';
import { demoTrustHost, type DemoServices } from '../../examples/demo/config.js';
import { resolveConfig } from '../../src/core/config.js';
import { createAuthHandler } from '../../src/http/integrations/h3.js';
import { ServerAuth } from '../../src/http/integrations/node.js';
import { isTrustedHost, parseHost, parseTrustedHosts } from '../../src/core/hosts.js';
import type { AuthConfig } from '../../src/core/options.js';
import { Credentials } from '../../src/providers/credentials.js';
import { Email, type SendVerificationRequestParams } from '../../src/providers/email.js';
import { ORIGIN, recordingLogger, TEST_SECRET, testAuth, type TestAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { offlineOAuth } from '../support/offline-oauth.js';

const APP = 'app.example.com';
const ATTACKER = 'attacker.example';

const pg = useMigratedPGlite();
const outbox: SendVerificationRequestParams[] = [];

afterEach(() => {
  outbox.length = 0;
  vi.unstubAllEnvs();
});

function app(trustHost: AuthConfig['trustHost']): TestAuth {
  const email = Email({ sendVerificationRequest: (params) => void outbox.push(params) });
  return testAuth({ providers: [email, offlineOAuth], adapter: pg.adapter, trustHost });
}

/** The CSRF token and cookie as seen through `headers` (the cookie names depend on the believed scheme). */
async function csrfThrough(t: TestAuth, headers: Record<string, string>): Promise<string> {
  const res = await t.client.get('/auth/csrf', { headers });
  expect(res.status).toBe(200);
  return ((await res.json()) as { csrfToken: string }).csrfToken;
}

async function requestLink(t: TestAuth, email: string, headers: Record<string, string>, csrfHeaders = headers) {
  const csrfToken = await csrfThrough(t, csrfHeaders);
  return t.client.post('/auth/signin/email', { csrfToken, email, callbackUrl: '/dashboard' }, { headers });
}

async function tokensFor(email: string): Promise<number> {
  const { rows } = await pg.db.query<{ n: number }>('SELECT count(*)::int AS n FROM verification_token WHERE identifier = $1', [email]);
  return rows[0].n;
}

/** What a refused host gets: a plain 400 naming UntrustedHost, no cookie, and UntrustedHost in the server log. */
async function expectRefused(t: TestAuth, res: Response & { setCookie: readonly string[] }): Promise<void> {
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({ error: 'UntrustedHost', message: 'Bad request.' });
  expect(res.setCookie).toEqual([]);
  expect(t.logger.errorTypes().at(-1)).toBe('UntrustedHost');
}

describe('magic links with an allow-list', () => {
  const onList = { 'x-forwarded-host': APP, 'x-forwarded-proto': 'https' };

  it('mails a link to the listed host', async () => {
    const t = app([APP]);
    const res = await requestLink(t, 'listed@example.test', onList);
    expect(res.location?.href).toBe(`https://${APP}/auth/verify-request?provider=email&type=email`);
    expect(new URL(outbox.at(-1)!.url).origin).toBe(`https://${APP}`);
  });

  it('refuses a forged X-Forwarded-Host: no mail, no token stored', async () => {
    const t = app([APP]);
    const csrfToken = await csrfThrough(t, onList);
    const res = await t.client.post('/auth/signin/email', { csrfToken, email: 'victim@example.test', callbackUrl: '/dashboard' }, {
      headers: { ...onList, 'x-forwarded-host': ATTACKER },
    });
    await expectRefused(t, res);
    expect(outbox).toEqual([]);
    expect(await tokensFor('victim@example.test')).toBe(0);
  });

  it('refuses a forged Host header the same way', async () => {
    const t = app([`localhost:3000`]);
    const csrfToken = await csrfThrough(t, {});
    const res = await t.client.post('/auth/signin/email', { csrfToken, email: 'victim2@example.test' }, { headers: { host: ATTACKER } });
    await expectRefused(t, res);
    expect(outbox).toEqual([]);
    expect(await tokensFor('victim2@example.test')).toBe(0);
  });

  it('refuses an unlisted host on every route, not only sign-in', async () => {
    const t = app([APP]);
    for (const path of ['/auth/session', '/auth/csrf', '/auth/signin', '/auth/providers', '/auth/callback/email?token=x&email=a%40b.c']) {
      await expectRefused(t, await t.client.get(path, { headers: { 'x-forwarded-host': ATTACKER } }));
    }
  });

  it('reads AUTH_TRUST_HOST as a comma-separated list; "true" and "false" keep their meaning', () => {
    const env = (AUTH_TRUST_HOST: string) => ({ AUTH_TRUST_HOST });
    const config = { providers: [], secret: TEST_SECRET };
    const listed = resolveConfig(config, { env: env(` ${APP}, *.preview.example.com `) });
    expect(listed.trustHost).toBe(true);
    expect(listed.trustedHosts?.patterns).toEqual([APP, '*.preview.example.com']);
    expect(resolveConfig(config, { env: env('true') })).toMatchObject({ trustHost: true, trustedHosts: undefined });
    expect(resolveConfig(config, { env: env('false') })).toMatchObject({ trustHost: false, trustedHosts: undefined });
    // An empty list trusts nobody, as false does.
    expect(resolveConfig({ ...config, trustHost: [] }, { env: {} })).toMatchObject({ trustHost: false, trustedHosts: undefined });
  });

  it('refuses a pattern that is not a host when the configuration is resolved', () => {
    for (const bad of ['*.com', '*', '*.*.example.com', 'app.example.com/path', 'user@app.example.com', 'https://app.example.com', 'a b.com', '*.127.0.0.1', 'ex%61mple.com', '']) {
      expect(() => resolveConfig({ providers: [], secret: TEST_SECRET, trustHost: [bad] }, { env: {} }), bad).toThrow(expect.objectContaining({ type: 'UntrustedHost' }));
    }
  });
});

describe('OAuth sign-in with an allow-list', () => {
  const onList = { 'x-forwarded-host': APP, 'x-forwarded-proto': 'https' };

  it('sends the listed host as redirect_uri', async () => {
    const t = app([APP]);
    const csrfToken = await csrfThrough(t, onList);
    const res = await t.client.post('/auth/signin/acme', { csrfToken }, { headers: onList });
    expect(res.location?.origin).toBe('https://acme.test');
    expect(res.location?.searchParams.get('redirect_uri')).toBe(`https://${APP}/auth/callback/acme`);
  });

  it('refuses a forged host: no authorization request names it', async () => {
    const t = app([APP]);
    const csrfToken = await csrfThrough(t, onList);
    const res = await t.client.post('/auth/signin/acme', { csrfToken }, { headers: { ...onList, 'x-forwarded-host': ATTACKER } });
    await expectRefused(t, res);
    expect(res.headers.get('location')).toBeNull();
  });
});

describe('several X-Forwarded-* entries: the nearest proxy (the last entry) counts', () => {
  it('uses the last X-Forwarded-Host entry, not the client-supplied first one (trustHost: true)', async () => {
    const t = app(true);
    const headers = { 'x-forwarded-host': `${ATTACKER}, ${APP}`, 'x-forwarded-proto': 'http, https' };
    const res = await requestLink(t, 'chain@example.test', headers);
    expect(new URL(outbox.at(-1)!.url).origin).toBe(`https://${APP}`);
    expect(res.location?.origin).toBe(`https://${APP}`);

    const csrfToken = await csrfThrough(t, headers);
    const oauth = await t.client.post('/auth/signin/acme', { csrfToken }, { headers });
    expect(oauth.location?.searchParams.get('redirect_uri')).toBe(`https://${APP}/auth/callback/acme`);
  });

  it('refuses a chain whose last entry is not listed, whatever the first says', async () => {
    const t = app([APP]);
    const res = await t.client.get('/auth/session', { headers: { 'x-forwarded-host': `${APP}, ${ATTACKER}` } });
    await expectRefused(t, res);
  });
});

describe('the shape of a host', () => {
  it.each([
    'attacker.example/path',
    'attacker.example?x',
    'attacker.example#x',
    'user@attacker.example',
    'a b.example',
    'ex%61mple.com',
    'app.example.com:99999',
    'app.example.com:port',
    '-bad.example',
    'bad..example',
    'app.example.com.',
    '*.example.com',
    '',
  ])('answers a malformed Host %j with 400 UntrustedHost, not 500 (trustHost: true)', async (host) => {
    const t = app(true);
    await expectRefused(t, await t.client.get('/auth/session', { headers: { host } }));
  });

  it('checks the last X-Forwarded-Host entry the same way', async () => {
    const t = app(true);
    await expectRefused(t, await t.client.get('/auth/session', { headers: { 'x-forwarded-host': `${APP}, ${ATTACKER}/x` } }));
  });

  /** Sends `GET /auth/session` with this Host line as raw HTTP/1.1 (no client library would send such a host). */
  function rawGet(port: number, host: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(`GET /auth/session HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
      let data = '';
      socket.on('data', (chunk) => (data += chunk));
      socket.on('error', reject);
      socket.on('end', () => resolve({ status: Number(data.split(' ')[1]), body: data.slice(data.indexOf('\r\n\r\n') + 4) }));
    });
  }

  const rawHosts = ['evil.test:99999', 'evil.test/x', 'user@evil.test', 'a b', '[::1'];

  it.each([
    ['ServerAuth (Node)', async () => {
      const server = createServer(ServerAuth({ providers: [Credentials({ authorize: async () => null })], secret: TEST_SECRET, trustHost: true, logger: recordingLogger() }));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { port: (server.address() as AddressInfo).port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
    }],
    ['createAuthHandler (h3 on srvx)', async () => {
      const h3 = new H3();
      h3.all('/auth/**', createAuthHandler({ providers: [Credentials({ authorize: async () => null })], secret: TEST_SECRET, trustHost: true, logger: recordingLogger() }));
      const server = serve(h3, { port: 0, hostname: '127.0.0.1', silent: true });
      await server.ready();
      return { port: Number(new URL(server.url!).port), close: () => server.close(true) };
    }],
  ])('answers malformed Host lines over raw HTTP with 400 through %s', async (_name, listen) => {
    const { port, close } = await listen();
    try {
      for (const host of rawHosts) {
        const res = await rawGet(port, host);
        expect(res.status, host).toBe(400);
        expect(res.body, host).toContain('UntrustedHost');
      }
      expect((await rawGet(port, APP)).status).toBe(200);
    } finally {
      await close();
    }
  });

  it('compares hosts in ASCII and lower case (IDN)', () => {
    expect(parseHost('Bücher.Example:443', 'https')).toEqual({ host: 'xn--bcher-kva.example', origin: 'https://xn--bcher-kva.example' });
    const hosts = parseTrustedHosts(['BÜCHER.example', '*.Preview.Example.com']);
    expect(isTrustedHost(hosts, parseHost('bücher.example', 'https')!.host)).toBe(true);
    expect(isTrustedHost(hosts, parseHost('PR-1.PREVIEW.example.com', 'https')!.host)).toBe(true);
  });
});

describe('wildcard patterns: *.parent matches exactly one label below parent', () => {
  const hosts = parseTrustedHosts(['*.example.com', 'localhost:3000', 'exact.example.org']);
  const trusted = (raw: string, proto: 'http' | 'https' = 'https') => {
    const parsed = parseHost(raw, proto);
    return parsed !== undefined && isTrustedHost(hosts, parsed.host);
  };

  it.each(['app.example.com', 'APP.example.com', 'pr-1.example.com', 'app.example.com:443'])('trusts %s', (host) => {
    expect(trusted(host)).toBe(true);
  });

  it.each([
    'example.com',
    'evilexample.com',
    'example.com.attacker.net',
    'a.b.example.com',
    'app.example.com:8443',
    'app.example.com.',
    '.example.com',
    'localhost',
    'localhost:3001',
    'exact.example.org:8080',
    'sub.exact.example.org',
  ])('does not trust %s', (host) => {
    expect(trusted(host)).toBe(false);
  });

  it('names ports explicitly: localhost:3000 is listed, its default-port sibling is not', () => {
    expect(trusted('localhost:3000', 'http')).toBe(true);
    expect(trusted('localhost', 'http')).toBe(false);
  });
});

describe('trustHost: true in production', () => {
  it('warns (trust-host-any) unless AUTH_URL fixes the origin, and recommends the list', () => {
    const logger = recordingLogger();
    resolveConfig({ providers: [], secret: TEST_SECRET, trustHost: true, logger }, { env: { NODE_ENV: 'production' } });
    expect(logger.warnings).toContain('trust-host-any');

    const quiet = recordingLogger();
    resolveConfig({ providers: [], secret: TEST_SECRET, trustHost: true, logger: quiet }, { env: { NODE_ENV: 'production', AUTH_URL: 'https://app.example.com' } });
    resolveConfig({ providers: [], secret: TEST_SECRET, trustHost: [APP], logger: quiet }, { env: { NODE_ENV: 'production' } });
    resolveConfig({ providers: [], secret: TEST_SECRET, trustHost: true, logger: quiet }, { env: { NODE_ENV: 'development' } });
    expect(quiet.warnings).not.toContain('trust-host-any');
  });
});

describe('the demo in production', () => {
  const production = { NODE_ENV: 'production' };

  it('trusts no host unless AUTH_URL or an AUTH_TRUST_HOST list says which', async () => {
    const config = { providers: [Credentials({ credentials: { username: {} }, authorize: async () => null })], secret: TEST_SECRET, trustHost: demoTrustHost(production) };
    expect(resolveConfig(config, { env: production }).trustHost).toBe(false);
    expect(resolveConfig(config, { env: { ...production, AUTH_TRUST_HOST: APP } }).trustedHosts?.patterns).toEqual([APP]);
    expect(demoTrustHost({ NODE_ENV: 'development' })).toBe(true);

    vi.stubEnv('NODE_ENV', 'production');
    const t = testAuth({ ...config, trustHost: demoTrustHost(production) });
    const res = await t.client.get('/auth/session', { headers: { 'x-forwarded-host': ATTACKER } });
    expect(res.status).toBe(500);
    expect(t.logger.errorTypes()).toEqual(['UntrustedHost']);
  });

  it('serves no /dev/mailbox and starts no mail catcher', async () => {
    const services: DemoServices = { routes: [], notes: [], database: undefined as never, lastSignIn: new Map(), close: async () => {} };
    const config: AuthConfig = { providers: [], adapter: pg.adapter };
    const close = await addEmailSignIn(config, services, production);
    await close();
    expect(services.routes.map((r) => r.path)).not.toContain('/dev/mailbox');
    expect(config.providers).toEqual([]);
    expect(services.notes.join(' ')).toMatch(/AUTH_EMAIL_SERVER/);

    // Outside production the catcher and its page are there (the demo's development convenience).
    const dev: DemoServices = { routes: [], notes: [], database: undefined as never, lastSignIn: new Map(), close: async () => {} };
    const closeDev = await addEmailSignIn({ providers: [], adapter: pg.adapter }, dev, { NODE_ENV: 'development' });
    await closeDev();
    expect(dev.routes.map((r) => r.path)).toContain('/dev/mailbox');
  });
});

it('keeps the in-process origin when no header says otherwise', async () => {
  const t = app([`localhost:3000`]);
  const res = await requestLink(t, 'plain@example.test', {});
  expect(res.location?.href).toBe(`${ORIGIN}/auth/verify-request?provider=email&type=email`);
  expect(new URL(outbox.at(-1)!.url).origin).toBe(ORIGIN);
});
