// One gate for every signed-in route (issue 25, holes 2 and 5). Each route and helper that acts for a signed-in user
// is listed here and given a session that "sign out everywhere" ended from another device, under both strategies
// (JWT sessions ended through "sessions valid after", database sessions by their rows): each must refuse it, and the
// factor routes must change nothing (an ended JWT could enrol an authenticator app on a user who had none, locking
// the owner out, or mint new backup codes). Then the claims the gate relies on: a jwt callback that merges the update
// body into the token (a common pattern) must not let `POST /auth/session` forge a step-up or outlive the sign-out.
import { H3 } from 'h3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuthConfig } from '../../src/core/options.js';
import type { JWT } from '../../src/core/types.js';
import { AuthInit, checkRecentSignIn, getSession, requireUserSession } from '../../src/index.js';
import { getToken } from '../../src/jwt.js';
import { createAuthHandler } from '../../src/http/integrations/h3.js';
import { Credentials } from '../../src/providers/credentials.js';
import { recordingLogger, ORIGIN, TEST_SECRET } from '../support/auth-app.js';
import { createClient, type TestClient } from '../support/client.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pglite = useMigratedPGlite();

afterEach(() => {
  vi.useRealTimers();
});

type Strategy = 'jwt' | 'database';

/** An H3 app with authchart at /auth and an app route per helper that reads the session. */
function world(strategy: Strategy, extra: Partial<AuthConfig> = {}) {
  const provider = Credentials({ credentials: { email: {} }, authorize: async (c) => ({ id: String(c.email), email: String(c.email), name: 'Ada' }) });
  const config: AuthConfig = {
    secret: TEST_SECRET,
    trustHost: true,
    logger: recordingLogger(),
    basePath: '/auth',
    adapter: pglite.adapter,
    session: { strategy },
    secondFactor: { issuer: 'Gate' },
    providers: [provider],
    ...extra,
  };
  const init = AuthInit(config);
  const app = new H3();
  app.all('/auth/**', createAuthHandler(config));
  app.get('/app/get-session', async (event) => ({ session: await getSession(event, config) }));
  app.get('/app/require-user-session', async (event) => ({ session: await requireUserSession(event, config) }));
  const authed = init.auth(async (request) => Response.json({ session: request.auth ?? null }));
  app.get('/app/auth', (event) => authed(event.req as Request));
  app.get('/app/recent', async (event) => checkRecentSignIn(event.req as Request, config, { maxAge: 3600 }));
  app.get('/app/get-token', async (event) => ({ token: await getToken(event.req as Request, { secret: TEST_SECRET, validAfter: pglite.adapter }) }));
  const client = () => createClient({ fetch: (r) => app.fetch(r) as Promise<Response>, baseUrl: ORIGIN });
  return { config, client };
}

async function csrf(browser: TestClient): Promise<string> {
  return ((await (await browser.get('/auth/csrf')).json()) as { csrfToken: string }).csrfToken;
}

async function signIn(browser: TestClient, email: string): Promise<void> {
  const res = await browser.post('/auth/callback/credentials', { csrfToken: await csrf(browser), email });
  expect(res.status).toBe(302);
  expect(res.location?.searchParams.get('error') ?? null).toBeNull();
}

const json = { headers: { accept: 'application/json' } };

/** Each route and helper that acts for a signed-in user, and what it must answer a browser whose session ended. */
const probes: Record<string, (b: TestClient, strategy: Strategy) => Promise<void>> = {
  'GET /auth/session': async (b) => expect(await (await b.get('/auth/session')).json()).toBeNull(),
  'POST /auth/session (update)': async (b) => expect(await (await b.post('/auth/session', JSON.stringify({ csrfToken: await csrf(b), data: { name: 'x' } }), { json: true })).json()).toBeNull(),
  'GET /auth/factors': async (b) => expect((await b.get('/auth/factors', json)).status).toBe(401),
  'POST /auth/factors/totp': async (b) => expect((await b.post('/auth/factors/totp', { csrfToken: await csrf(b) }, json)).status).toBe(401),
  'POST /auth/factors/backup-codes': async (b) => expect((await b.post('/auth/factors/backup-codes', { csrfToken: await csrf(b) }, json)).status).toBe(401),
  'GET /auth/factors/verify (step-up)': async (b) => expect((await b.get('/auth/factors/verify?callbackUrl=/x')).location?.pathname).toBe('/auth/signin'),
  'GET /auth/sessions': async (b, strategy) => expect((await b.get('/auth/sessions')).status).toBe(strategy === 'database' ? 401 : 400),
  'POST /auth/sessions/revoke': async (b) => expect((await b.post('/auth/sessions/revoke', { csrfToken: await csrf(b), scope: 'others' })).status).toBe(401),
  'getSession(event, config)': async (b) => expect(await (await b.get('/app/get-session')).json()).toEqual({ session: null }),
  'requireUserSession(event, config)': async (b) => expect((await b.get('/app/require-user-session')).status).toBe(401),
  'auth() of AuthInit': async (b) => expect(await (await b.get('/app/auth')).json()).toEqual({ session: null }),
  'checkRecentSignIn': async (b) => expect(await (await b.get('/app/recent')).json()).toMatchObject({ ok: false, reason: 'signedOut' }),
  'getToken({ validAfter })': async (b) => expect(await (await b.get('/app/get-token')).json()).toEqual({ token: null }),
};

describe.each<Strategy>(['jwt', 'database'])('an ended %s session', (strategy) => {
  it.each(Object.keys(probes))('is refused by %s, and the factors are left as they were', async (name) => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const { client } = world(strategy);
    const email = `gate-${strategy}-${name.replace(/\W+/g, '-')}-${Date.now()}@example.test`;
    const [laptop, phone] = [client(), client()];
    await signIn(laptop, email);
    await signIn(phone, email);
    vi.setSystemTime(Date.now() + 1000);
    // Signed in on the phone: the probe answers as for a live session first (so the refusal below is the gate's).
    expect(await (await phone.get('/auth/session')).json()).toMatchObject({ user: { email } });
    const ended = await laptop.post('/auth/sessions/revoke', { csrfToken: await csrf(laptop), scope: 'all' });
    expect(ended.status).toBe(200);
    await probes[name](phone, strategy);
    expect(await pglite.adapter.listFactors(email)).toEqual([]);
  });
});

describe('the claims the gate relies on', () => {
  // The pattern: whatever the client sends to POST /auth/session is merged into the token.
  const merging: Partial<AuthConfig> = {
    callbacks: { jwt: ({ token, trigger, session }) => (trigger === 'update' ? { ...token, ...(session as object) } : token) },
  };

  it('a client cannot forge when or how it signed in, nor move its session past "sign out everywhere"', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const { config, client } = world('jwt', merging);
    const email = `claims-${Date.now()}@example.test`;
    const [laptop, thief] = [client(), client()];
    await signIn(laptop, email);
    await signIn(thief, email);
    vi.setSystemTime(Date.now() + 2 * 3600_000);
    const now = Math.floor(Date.now() / 1000);
    const forged = { auth_time: now, amr: ['pwd', 'otp'], session_iat: now + 86_400, sub: 'someone-else', name: 'Mallory' };
    const updated = await thief.post('/auth/session', JSON.stringify({ csrfToken: await csrf(thief), data: forged }), { json: true });
    expect(await updated.json()).toMatchObject({ user: { name: 'Mallory' } });
    const token = (await getToken(new Request(`${ORIGIN}/`, { headers: { cookie: thief.cookies.header(new URL(ORIGIN)) } }), { secret: TEST_SECRET })) as JWT;
    expect(token.sub).toBe(email);
    expect(token.amr).toEqual(['pwd']);
    expect(token.auth_time).toBeLessThan(now - 3600);
    expect(token.session_iat).toBeLessThan(now - 3600);
    // Step-up does not pass on a forged auth_time.
    const recent = await checkRecentSignIn(new Request(`${ORIGIN}/x`, { headers: { cookie: thief.cookies.header(new URL(ORIGIN)) } }), config, { maxAge: 300 });
    expect(recent).toMatchObject({ ok: false, reason: 'stale' });
    // And the session still ends with the others.
    vi.setSystemTime(Date.now() + 1000);
    await laptop.post('/auth/sessions/revoke', { csrfToken: await csrf(laptop), scope: 'all' });
    expect(await (await thief.get('/auth/session')).json()).toBeNull();
  });

  it('at sign-in, a jwt callback that returns its own auth_time, amr or sub does not change them', async () => {
    const { client } = world('jwt', {
      callbacks: { jwt: ({ token, trigger }) => (trigger === 'signIn' ? { ...token, auth_time: 1, amr: ['pwd', 'otp', 'hwk'], sub: 'admin', session_iat: 9e9 } : token) },
    });
    const browser = client();
    const email = `signin-${Date.now()}@example.test`;
    await signIn(browser, email);
    const token = (await getToken(new Request(`${ORIGIN}/`, { headers: { cookie: browser.cookies.header(new URL(ORIGIN)) } }), { secret: TEST_SECRET })) as JWT;
    expect(token).toMatchObject({ sub: email, amr: ['pwd'] });
    expect(token.auth_time).toBeGreaterThan(1);
    expect(token.session_iat).toBeLessThan(9e9);
  });
});

