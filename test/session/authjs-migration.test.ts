// Moving an app from Auth.js to authchart without signing anyone out (`migrateFrom: 'authjs'`), proven against the
// real @auth/core that bench/ installs: a user signs in through Auth.js's own handler, the app switches to
// authchart with the same secret, and the same user keeps the same session, now in authchart's cookie.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EncryptJWT } from 'jose';
import { hkdfSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/core/types.js';
import { getToken } from '../../src/session/get-token.js';
import { Credentials } from '../../src/providers/credentials.js';
import { MissingSecret } from '../../src/core/errors.js';
import { ORIGIN, TEST_SECRET, testAuth, type TestAuth } from '../support/auth-app.js';
import { createClient, type TestClient } from '../support/client.js';

const CORE = new URL('../../bench/node_modules/@auth/core/', import.meta.url);

type AuthjsHandler = (request: Request, config: Record<string, unknown>) => Promise<Response>;
interface AuthjsModules {
  Auth: AuthjsHandler;
  Credentials: (options: Record<string, unknown>) => unknown;
  encode: (params: { token: Record<string, unknown>; secret: string; salt: string; maxAge?: number }) => Promise<string>;
  getToken: (params: Record<string, unknown>) => Promise<Record<string, unknown> | null>;
}

let authjs: AuthjsModules;

const USER = { id: 'user-42', name: 'Ada Lovelace', email: 'ada@example.test' };
const SESSION_COOKIE = 'authchart.session-token';
const AUTHJS_COOKIE = 'authjs.session-token';

// Both apps put the user id (the token's `sub`) in the session, so "the same user" is checked by id.
const withUserId = ({ session, token }: { session: Session; token: { sub?: string } }) => ({ ...session, user: { ...session.user, id: token.sub } });

/** The Auth.js app as it ran before the switch: credentials sign-in, JWT sessions, the same secret. */
function authjsApp(extra: Record<string, unknown> = {}): (request: Request) => Promise<Response> {
  const config = {
    secret: TEST_SECRET,
    trustHost: true,
    basePath: '/auth',
    providers: [authjs.Credentials({ credentials: { email: {} }, authorize: async () => USER })],
    callbacks: { session: withUserId, ...(extra.callbacks as object) },
    ...extra,
  };
  return (request) => authjs.Auth(request, config);
}

/** The same app on authchart. */
function authchartApp(options: { migrate?: boolean } = {}): TestAuth {
  return testAuth({
    ...(options.migrate === false ? {} : { migrateFrom: 'authjs' as const }),
    providers: [Credentials({ credentials: { email: {} }, authorize: async () => USER })],
    callbacks: { session: withUserId as never },
  });
}

/** Signs in through Auth.js's own handler; returns the browser (its jar holds Auth.js's session cookie). */
async function signInWithAuthjs(handler: (request: Request) => Promise<Response>): Promise<TestClient> {
  const client = createClient({ fetch: handler, baseUrl: ORIGIN });
  const { csrfToken } = (await (await client.get('/auth/csrf')).json()) as { csrfToken: string };
  const res = await client.post('/auth/callback/credentials', { csrfToken, email: USER.email, callbackUrl: `${ORIGIN}/` });
  expect(res.status).toBe(302);
  return client;
}

/** The same browser (same cookies), now talking to the authchart app. */
const sameBrowser = (client: TestClient, t: TestAuth) => createClient({ fetch: t.handle, baseUrl: ORIGIN, cookies: client.cookies });

const setCookieNamed = (lines: readonly string[], name: string) => lines.find((l) => l.startsWith(`${name}=`));
const cleared = (line: string | undefined) => line !== undefined && /Max-Age=0/i.test(line);

describe('moving from Auth.js (real @auth/core from bench/node_modules)', () => {
  beforeAll(async () => {
    const [core, credentials, jwt] = await Promise.all([
      import(new URL('index.js', CORE).href),
      import(new URL('providers/credentials.js', CORE).href),
      import(new URL('jwt.js', CORE).href),
    ]);
    authjs = { Auth: core.Auth, Credentials: credentials.default, encode: jwt.encode, getToken: jwt.getToken };
  });

  it('keeps a user signed in across the switch: same user id, cookie re-issued as authchart\u2019s, Auth.js\u2019s cleared', async () => {
    const before = await signInWithAuthjs(authjsApp());
    expect(before.cookies.get(AUTHJS_COOKIE)).toBeTruthy();
    const authjsSession = (await (await before.get('/auth/session')).json()) as { user: { id: string; email: string } };
    expect(authjsSession.user).toMatchObject({ id: USER.id, email: USER.email });

    const t = authchartApp();
    const browser = sameBrowser(before, t);
    const first = await browser.get('/auth/session');
    const session = (await first.json()) as { user: { id: string; email: string; name: string } };
    expect(session.user).toEqual({ id: USER.id, name: USER.name, email: USER.email, image: undefined });
    expect(setCookieNamed(first.setCookie, SESSION_COOKIE)).toBeDefined();
    expect(cleared(setCookieNamed(first.setCookie, SESSION_COOKIE))).toBe(false);
    expect(cleared(setCookieNamed(first.setCookie, AUTHJS_COOKIE))).toBe(true);
    expect(t.logger.errors).toEqual([]);

    // From now on the browser holds only authchart's cookie, and it is the same user.
    expect(browser.cookies.get(AUTHJS_COOKIE)).toBeUndefined();
    const again = (await (await browser.get('/auth/session')).json()) as { user: { id: string } };
    expect(again.user.id).toBe(USER.id);
    const token = await getToken(new Request(`${ORIGIN}/api`, { headers: { cookie: browser.cookies.header(new URL(ORIGIN)) ?? '' } }), { secret: TEST_SECRET });
    expect(token?.sub).toBe(USER.id);
  });

  it('reads a chunked Auth.js session cookie (.0, .1, ...)', async () => {
    const big = 'x'.repeat(6000);
    const before = await signInWithAuthjs(authjsApp({ callbacks: { session: withUserId, jwt: ({ token }: { token: object }) => ({ ...token, big }) } }));
    expect(before.cookies.get(`${AUTHJS_COOKIE}.0`)).toBeTruthy();
    expect(before.cookies.get(`${AUTHJS_COOKIE}.1`)).toBeTruthy();
    const t = authchartApp();
    const res = await sameBrowser(before, t).get('/auth/session');
    expect(((await res.json()) as { user: { id: string } }).user.id).toBe(USER.id);
    expect(cleared(setCookieNamed(res.setCookie, `${AUTHJS_COOKIE}.0`))).toBe(true);
    expect(cleared(setCookieNamed(res.setCookie, `${AUTHJS_COOKIE}.1`))).toBe(true);
    // The claim made it over: the new cookie (chunked too) carries it.
    const token = await getToken(new Request(`${ORIGIN}/api`, { headers: { cookie: sameBrowser(before, t).cookies.header(new URL(ORIGIN)) ?? '' } }), { secret: TEST_SECRET });
    expect((token as { big?: string } | null)?.big).toBe(big);
  });

  it.each(['__Secure-authjs.session-token', 'next-auth.session-token', '__Secure-next-auth.session-token'])('reads a token Auth.js encoded for %s', async (name) => {
    const value = await authjs.encode({ token: { sub: USER.id, name: USER.name, email: USER.email }, secret: TEST_SECRET, salt: name });
    const t = authchartApp();
    const res = await t.client.get('/auth/session', { headers: { cookie: `${name}=${value}` } });
    expect(((await res.json()) as { user: { id: string } } | null)?.user.id).toBe(USER.id);
    expect(cleared(setCookieNamed(res.setCookie, name))).toBe(true);
    expect(setCookieNamed(res.setCookie, SESSION_COOKIE)).toBeDefined();
  });

  it('reads a next-auth v4 token (A256GCM, its fixed HKDF salt and info, no kid)', async () => {
    // next-auth v4's encode, written out: HKDF-SHA256(secret, "", "NextAuth.js Generated Encryption Key", 32), dir + A256GCM.
    const key = new Uint8Array(hkdfSync('sha256', TEST_SECRET, '', 'NextAuth.js Generated Encryption Key', 32));
    const now = Math.floor(Date.now() / 1000);
    const value = await new EncryptJWT({ sub: USER.id, name: USER.name, email: USER.email })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .setJti('v4-token')
      .encrypt(key);
    const t = authchartApp();
    const res = await t.client.get('/auth/session', { headers: { cookie: `next-auth.session-token=${value}` } });
    expect(((await res.json()) as { user: { id: string } } | null)?.user.id).toBe(USER.id);
  });

  it('prefers authchart\u2019s own cookie when a browser has both', async () => {
    const before = await signInWithAuthjs(authjsApp());
    const t = authchartApp();
    // The first visit moved the session; an Auth.js cookie that shows up again beside it is ignored, not read.
    const own = await sameBrowser(before, t).get('/auth/session');
    expect(setCookieNamed(own.setCookie, SESSION_COOKIE)).toBeDefined();
    before.cookies.setFromResponse(new URL(ORIGIN), new Response(null, { headers: { 'set-cookie': `${AUTHJS_COOKIE}=stale-but-present; Path=/` } }));
    const next = await sameBrowser(before, t).get('/auth/session');
    expect(((await next.json()) as { user: { id: string } }).user.id).toBe(USER.id);
    expect(setCookieNamed(next.setCookie, AUTHJS_COOKIE)).toBeUndefined();
  });

  it('signing out clears Auth.js\u2019s cookie too', async () => {
    const before = await signInWithAuthjs(authjsApp());
    const t = authchartApp();
    const browser = sameBrowser(before, t);
    const csrfToken = await t.csrfToken(browser);
    const res = await browser.post('/auth/signout', { csrfToken });
    expect(res.status).toBe(302);
    expect(cleared(setCookieNamed(res.setCookie, AUTHJS_COOKIE))).toBe(true);
    expect(await (await browser.get('/auth/session')).json()).toBeNull();
  });
});

describe('getToken (Auth.js semantics, checked against @auth/core\u2019s own getToken)', () => {
  beforeAll(async () => {
    const jwt = await import(new URL('jwt.js', CORE).href);
    authjs = { ...authjs, encode: jwt.encode, getToken: jwt.getToken };
  });

  const request = (headers: Record<string, string>) => new Request(`${ORIGIN}/api`, { headers });

  it('decodes an Auth.js session cookie exactly as Auth.js does', async () => {
    const value = await authjs.encode({ token: { sub: USER.id, email: USER.email }, secret: TEST_SECRET, salt: AUTHJS_COOKIE });
    const req = request({ cookie: `${AUTHJS_COOKIE}=${value}` });
    const ours = await getToken(req, { secret: TEST_SECRET });
    const theirs = await authjs.getToken({ req, secret: TEST_SECRET });
    expect(ours).toEqual(theirs);
    expect(ours?.sub).toBe(USER.id);
    expect(await getToken(req, { secret: TEST_SECRET, cookieName: AUTHJS_COOKIE })).toEqual(theirs);
  });

  it('reads authchart\u2019s own session cookie by default, and __Secure- names with secureCookie', async () => {
    const t = authchartApp({ migrate: false });
    const csrfToken = await t.csrfToken();
    await t.client.post('/auth/callback/credentials', { csrfToken, email: USER.email });
    const value = t.client.cookies.get(SESSION_COOKIE)!;
    expect((await getToken(request({ cookie: `${SESSION_COOKIE}=${value}` }), { secret: TEST_SECRET }))?.sub).toBe(USER.id);
    // The secure name is another salt: the plain cookie's value does not open under it.
    expect(await getToken(request({ cookie: `__Secure-${SESSION_COOKIE}=${value}` }), { secret: TEST_SECRET, secureCookie: true })).toBeNull();
    expect((await getToken(request({ cookie: `__Secure-${SESSION_COOKIE}=${value}` }), { secret: TEST_SECRET, secureCookie: true, salt: SESSION_COOKIE }))?.sub).toBe(USER.id);
    expect(await getToken(request({ cookie: `${SESSION_COOKIE}=${value}` }), { secret: TEST_SECRET, secureCookie: true })).toBeNull();
  });

  it('falls back to Authorization: Bearer (URL-encoded), and a malformed one is null', async () => {
    const value = await authjs.encode({ token: { sub: USER.id }, secret: TEST_SECRET, salt: AUTHJS_COOKIE });
    expect((await getToken(request({ authorization: `Bearer ${encodeURIComponent(value)}` }), { secret: TEST_SECRET, salt: AUTHJS_COOKIE }))?.sub).toBe(USER.id);
    expect(await getToken(request({ authorization: 'Bearer %E0%A4%A' }), { secret: TEST_SECRET })).toBeNull();
    expect(await authjs.getToken({ req: request({ authorization: 'Bearer %E0%A4%A' }), secret: TEST_SECRET })).toBeNull();
  });

  it('returns the raw token with raw: true (no secret needed), and throws MissingSecret without a secret otherwise', async () => {
    const req = request({ cookie: `${AUTHJS_COOKIE}=abc.def` });
    expect(await getToken(req, { raw: true })).toBe('abc.def');
    await expect(getToken(req, {})).rejects.toBeInstanceOf(MissingSecret);
  });

  it('is null for no token, a wrong secret, and a tampered token; also callable as getToken({ req, secret })', async () => {
    const value = await authjs.encode({ token: { sub: USER.id }, secret: TEST_SECRET, salt: AUTHJS_COOKIE });
    expect(await getToken(request({}), { secret: TEST_SECRET })).toBeNull();
    expect(await getToken(request({ cookie: `${AUTHJS_COOKIE}=${value}` }), { secret: 'another-secret-0123456789abcdefghij' })).toBeNull();
    const tampered = value.slice(0, -3) + (value.endsWith('AAA') ? 'BBB' : 'AAA');
    expect(await getToken(request({ cookie: `${AUTHJS_COOKIE}=${tampered}` }), { secret: TEST_SECRET })).toBeNull();
    expect((await getToken({ req: request({ cookie: `${AUTHJS_COOKIE}=${value}` }), secret: TEST_SECRET }))?.sub).toBe(USER.id);
  });
});
