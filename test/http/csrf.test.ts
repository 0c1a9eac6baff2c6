import { describe, expect, it } from 'vitest';
import { skipCSRFCheck } from '../../src/core/options.js';
import { mintCsrf } from '../../src/http/csrf.js';
import { testAuth, TEST_SECRET, type TestAuth } from '../support/auth-app.js';
import { parseSetCookie } from '../support/cookie-jar.js';
import type { TestClient } from '../support/client.js';
import { ADA, adaProvider, CALLBACK_COOKIE, cookiesNamed, CSRF_COOKIE, expectNoCache, PASSWORD, SESSION_COOKIE, sessionToken, sessionWrites, signIn } from './helpers.js';

const OTHER_SECRET = 'the-newest-secret-of-the-rotation-0123456789';

describe('GET /csrf', () => {
  it('returns a token, sets the CSRF cookie, and forbids caching', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await t.client.get('/auth/csrf');
    expect(res.status).toBe(200);
    const { csrfToken } = await res.json();
    expect(csrfToken).toMatch(/^[0-9a-f]{64}$/);
    expectNoCache(res);
    const [cookie] = cookiesNamed(res, CSRF_COOKIE);
    expect(cookie).toMatchObject({ name: CSRF_COOKIE, httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(decodeURIComponent(cookie!.value).split('|')[0]).toBe(csrfToken);
  });

  it('reuses the token of a valid cookie without setting it again', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const first = await t.csrfToken();
    const res = await t.client.get('/auth/csrf');
    expect((await res.json()).csrfToken).toBe(first);
    expect(cookiesNamed(res, CSRF_COOKIE)).toEqual([]);
  });

  it('replaces a forged cookie with a fresh token', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const forgedToken = 'a'.repeat(64);
    t.client.cookies.set(CSRF_COOKIE, `${forgedToken}|${'b'.repeat(64)}`, 'localhost:3000');
    const res = await t.client.get('/auth/csrf');
    const { csrfToken } = await res.json();
    expect(csrfToken).not.toBe(forgedToken);
    expect(cookiesNamed(res, CSRF_COOKIE)).toHaveLength(1);
  });

  it('gives two browsers different tokens', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    expect(await t.csrfToken(t.newClient())).not.toBe(await t.csrfToken(t.newClient()));
  });
});

/** The state-changing POSTs, each with the fields it needs apart from csrfToken. */
const routes: { name: string; path: string; fields: Record<string, string>; browser: boolean }[] = [
  { name: 'POST /signin/:provider', path: '/auth/signin/credentials', fields: { callbackUrl: '/after' }, browser: true },
  { name: 'POST /callback/credentials', path: '/auth/callback/credentials', fields: { email: ADA.email, password: PASSWORD, callbackUrl: '/after' }, browser: true },
  { name: 'POST /signout', path: '/auth/signout', fields: { callbackUrl: '/bye' }, browser: true },
  { name: 'POST /session', path: '/auth/session', fields: {}, browser: false },
];

async function attack(t: TestAuth, client: TestClient, route: (typeof routes)[number], csrfToken?: string) {
  const fields = { ...route.fields, ...(csrfToken === undefined ? {} : { csrfToken }) };
  return route.browser ? client.post(route.path, fields) : client.post(route.path, JSON.stringify({ ...fields, data: { name: 'Mallory' } }), { json: true });
}

describe.each(routes)('CSRF on $name', (route) => {
  const variants: [string, (t: TestAuth, victim: TestClient) => Promise<string | undefined>][] = [
    ['no token', async () => undefined],
    ['a wrong token', async () => 'f'.repeat(64)],
    ["another browser's token", async (t) => t.csrfToken(t.newClient())],
    ['the whole cookie value as the token', async (_t, victim) => decodeURIComponent(victim.cookies.get(CSRF_COOKIE)!)],
  ];

  it.each(variants)('refuses %s as MissingCSRF and signs nothing in or out', async (_name, tokenFor) => {
    const t = testAuth({ providers: [adaProvider()] });
    const victim = t.client;
    if (route.path === '/auth/callback/credentials') await t.csrfToken(victim);
    else await signIn(t);
    const before = sessionToken(victim);
    const res = await attack(t, victim, route, await tokenFor(t, victim));
    if (route.browser) {
      expect(res.status).toBe(302);
      expect(res.location?.pathname).toBe('/auth/signin');
      expect(res.location?.searchParams.get('error')).toBe('MissingCSRF');
      expect(t.logger.errorTypes()).toEqual(['MissingCSRF']);
    } else {
      expect(res.status).toBe(400);
      expect(await res.json()).toBeNull();
    }
    expect(cookiesNamed(res, SESSION_COOKIE)).toEqual([]);
    expect(cookiesNamed(res, CALLBACK_COOKIE)).toEqual([]);
    expect(sessionToken(victim)).toBe(before);
    const session = await (await victim.get('/auth/session')).json();
    if (route.path === '/auth/callback/credentials') expect(session).toBeNull();
    else expect(session.user).toEqual({ name: ADA.name, email: ADA.email, image: ADA.image });
  });

  it('accepts the matching token', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    await signIn(t);
    const res = await attack(t, t.client, route, await t.csrfToken());
    expect(res.location?.searchParams.get('error') ?? null).toBeNull();
    expect(res.status).toBe(route.browser ? 302 : 200);
    expect(t.logger.errorTypes()).toEqual([]);
  });
});

describe('secret rotation', () => {
  it('accepts a CSRF cookie signed by any configured secret, not only the first', async () => {
    const t = testAuth({ providers: [adaProvider()], secret: [OTHER_SECRET, TEST_SECRET] });
    const { token, cookieValue } = mintCsrf(TEST_SECRET);
    t.client.cookies.set(CSRF_COOKIE, encodeURIComponent(cookieValue), 'localhost:3000');
    const csrf = await t.client.get('/auth/csrf');
    expect((await csrf.json()).csrfToken).toBe(token);
    expect(cookiesNamed(csrf, CSRF_COOKIE)).toEqual([]);
    const res = await t.client.post('/auth/callback/credentials', { csrfToken: token, email: ADA.email, password: PASSWORD });
    expect(sessionWrites(res)).toHaveLength(1);
  });

  it('refuses a CSRF cookie signed by a secret that is no longer configured', async () => {
    const t = testAuth({ providers: [adaProvider()], secret: OTHER_SECRET });
    const { token, cookieValue } = mintCsrf(TEST_SECRET);
    t.client.cookies.set(CSRF_COOKIE, encodeURIComponent(cookieValue), 'localhost:3000');
    const res = await t.client.post('/auth/callback/credentials', { csrfToken: token, email: ADA.email, password: PASSWORD });
    expect(res.location?.searchParams.get('error')).toBe('MissingCSRF');
    expect(sessionWrites(res)).toEqual([]);
  });
});

describe('skipCSRFCheck', () => {
  it('signs in without a token', async () => {
    const t = testAuth({ providers: [adaProvider()], skipCSRFCheck });
    const res = await t.client.post('/auth/callback/credentials', { email: ADA.email, password: PASSWORD });
    expect(res.status).toBe(302);
    expect(sessionWrites(res)).toHaveLength(1);
  });

  it('updates the session without a token', async () => {
    const t = testAuth({ providers: [adaProvider()], skipCSRFCheck });
    await t.client.post('/auth/callback/credentials', { email: ADA.email, password: PASSWORD });
    const res = await t.client.post('/auth/session', JSON.stringify({ data: {} }), { json: true });
    expect(res.status).toBe(200);
    expect((await res.json()).user.email).toBe(ADA.email);
  });

  it('answers 404 on /csrf and sets no cookie', async () => {
    const t = testAuth({ providers: [adaProvider()], skipCSRFCheck });
    const res = await t.client.get('/auth/csrf');
    expect(res.status).toBe(404);
    expect(cookiesNamed(res, CSRF_COOKIE)).toEqual([]);
  });

  it('is only switched off by the exported symbol, not by a truthy value', async () => {
    const t = testAuth({ providers: [adaProvider()], skipCSRFCheck: true as never });
    const res = await t.client.post('/auth/callback/credentials', { email: ADA.email, password: PASSWORD });
    expect(res.location?.searchParams.get('error')).toBe('MissingCSRF');
  });
});

describe('CSRF cookie over HTTPS', () => {
  it('is named __Host- and marked Secure', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await t.client.get('/auth/csrf', { headers: { 'x-forwarded-proto': 'https' } });
    const line = res.setCookie.find((l) => l.startsWith('__Host-authchart.csrf-token='));
    expect(line).toBeDefined();
    expect(parseSetCookie(line!)).toMatchObject({ secure: true, path: '/' });
    expect(parseSetCookie(line!)?.domain).toBeUndefined();
  });
});
