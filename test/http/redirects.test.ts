import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseSetCookie } from '../support/cookie-jar.js';
import { testAuth, ORIGIN } from '../support/auth-app.js';
import { ADA, adaProvider, CALLBACK_COOKIE, PASSWORD, sessionWrites, signIn } from './helpers.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

/** The base URL a refused callbackUrl is replaced with: the origin. */
const BASE = `${ORIGIN}/`;

/** Ways to leave the site that a naive "starts with /" or "same host" check lets through. */
const attacks = [
  'https://evil.com',
  'https://evil.com/localhost:3000',
  '//evil.com',
  '///evil.com',
  '/\\evil.com',
  '\\/evil.com',
  '\\\\evil.com',
  'javascript:alert(1)',
  'JavaScript:alert(document.cookie)',
  'data:text/html,<script>alert(1)</script>',
  '%2F%2Fevil.com',
  '/%2F/evil.com',
  '/%5Cevil.com',
  '/%5C%5Cevil.com',
  '/\t/evil.com',
  '/\n/evil.com',
  ' //evil.com',
  'http://localhost:3000@evil.com',
  'http://localhost:3000.evil.com',
  'https://localhost:3000/x',
  'HTTPS://EVIL.COM',
];

const allowed: [string, string][] = [
  ['/dashboard?x=1', `${ORIGIN}/dashboard?x=1`],
  ['http://localhost:3000/x', `${ORIGIN}/x`],
  ['/a/b#frag', `${ORIGIN}/a/b#frag`],
];

describe('callbackUrl after a credentials sign-in', () => {
  it.each(attacks)('replaces %j in the body by the base URL', async (attack) => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await signIn(t, { callbackUrl: attack });
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe(BASE);
    expect(sessionWrites(res)).toHaveLength(1);
  });

  it.each(attacks)('replaces %j in the query by the base URL', async (attack) => {
    const t = testAuth({ providers: [adaProvider()] });
    const csrfToken = await t.csrfToken();
    const res = await t.client.post(`/auth/callback/credentials?callbackUrl=${encodeURIComponent(attack)}`, { csrfToken, email: ADA.email, password: PASSWORD });
    expect(res.location?.href).toBe(BASE);
  });

  it.each(allowed)('keeps %j (as %s)', async (url, expected) => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await signIn(t, { callbackUrl: url });
    expect(res.location?.href).toBe(expected);
  });

  it('prefers the body over the query, and the query over the cookie', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    t.client.cookies.set(CALLBACK_COOKIE, encodeURIComponent(`${ORIGIN}/from-cookie`), 'localhost:3000');
    const csrfToken = await t.csrfToken();
    const fields = { csrfToken, email: ADA.email, password: PASSWORD };
    expect((await t.client.post('/auth/callback/credentials?callbackUrl=/from-query', { ...fields, callbackUrl: '/from-body' })).location?.href).toBe(`${ORIGIN}/from-body`);
    expect((await t.client.post('/auth/callback/credentials?callbackUrl=/from-query', fields)).location?.href).toBe(`${ORIGIN}/from-query`);
  });

  it('remembers the validated URL in the callback-url cookie for that sign-in only, and sanitizes a forged cookie', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    // A failed attempt keeps it: the retry, posted without a callbackUrl, still goes where the sign-in was for.
    const failed = await signIn(t, { callbackUrl: '/dashboard', password: 'wrong' });
    expect(failed.location?.searchParams.get('error')).toBe('CredentialsSignin');
    expect(decodeURIComponent(t.client.cookies.get(CALLBACK_COOKIE)!)).toBe(`${ORIGIN}/dashboard`);
    const res = await signIn(t, {});
    expect(res.location?.href).toBe(`${ORIGIN}/dashboard`);
    // Served: a later sign-in starts from its own return address, not this one.
    expect(t.client.cookies.get(CALLBACK_COOKIE)).toBeUndefined();
    expect((await signIn(t, {})).location?.href).toBe(BASE);

    const victim = t.newClient();
    victim.cookies.set(CALLBACK_COOKIE, encodeURIComponent('https://evil.com/phish'), 'localhost:3000');
    const forged = await signIn(t, {}, victim);
    expect(forged.location?.href).toBe(BASE);
  });
});

describe('callbackUrl after sign-out', () => {
  it.each(['https://evil.com', '//evil.com', '/\\evil.com', '/%5Cevil.com'])('replaces %j by the base URL', async (attack) => {
    const t = testAuth({ providers: [adaProvider()] });
    await signIn(t);
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/signout', { csrfToken, callbackUrl: attack });
    expect(res.location?.href).toBe(BASE);
  });

  it('keeps a same-origin path', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/signout', { csrfToken, callbackUrl: '/goodbye' });
    expect(res.location?.href).toBe(`${ORIGIN}/goodbye`);
  });
});

describe('a custom redirect callback', () => {
  it('may allow another origin and receives the URL and base URL', async () => {
    const calls: { url: string; baseUrl: string }[] = [];
    const t = testAuth({
      providers: [adaProvider()],
      callbacks: { redirect: (p) => (calls.push(p), p.url.startsWith('https://partner.example/') ? p.url : p.baseUrl) },
    });
    const res = await signIn(t, { callbackUrl: 'https://partner.example/welcome' });
    expect(res.location?.href).toBe('https://partner.example/welcome');
    expect(calls).toContainEqual({ url: 'https://partner.example/welcome', baseUrl: ORIGIN });
  });

  it('cannot send the browser to a non-http(s) URL', async () => {
    const t = testAuth({ providers: [adaProvider()], callbacks: { redirect: () => 'javascript:alert(1)' } });
    const res = await signIn(t, { callbackUrl: '/x' });
    expect(res.location?.href).toBe(BASE);
  });

  it('falls back to the base URL when it throws, logging the error', async () => {
    const t = testAuth({
      providers: [adaProvider()],
      callbacks: {
        redirect: () => {
          throw new Error('bug in redirect');
        },
      },
    });
    const res = await signIn(t, { callbackUrl: '/x' });
    expect(res.location?.href).toBe(BASE);
    expect(t.logger.errors.map((e) => e.message)).toContain('bug in redirect');
  });
});

describe('X-Auth-Return-Redirect', () => {
  it('turns the sign-in redirect into 200 {url} and keeps the cookies', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await signIn(t, { callbackUrl: '/dashboard' }, t.client, { headers: { 'x-auth-return-redirect': '1' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.json()).toEqual({ url: `${ORIGIN}/dashboard` });
    expect(sessionWrites(res)).toHaveLength(1);
    expect((await (await t.client.get('/auth/session')).json()).user.email).toBe(ADA.email);
  });

  it('turns an error redirect into 200 {url} of the error page', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await signIn(t, { password: 'wrong' }, t.client, { headers: { 'x-auth-return-redirect': '1' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ url: `${ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials` });
    expect(sessionWrites(res)).toEqual([]);
  });
});

describe('host detection', () => {
  const forwarded = { 'x-forwarded-host': 'app.example.com', 'x-forwarded-proto': 'https' };

  it('believes X-Forwarded-Host and X-Forwarded-Proto with trustHost, using secure cookie names', async () => {
    const t = testAuth({ providers: [adaProvider()], trustHost: true });
    const csrf = await t.client.get('/auth/csrf', { headers: forwarded });
    const { csrfToken } = await csrf.json();
    const csrfLine = csrf.setCookie.find((l) => l.startsWith('__Host-authchart.csrf-token='));
    expect(parseSetCookie(csrfLine!)).toMatchObject({ secure: true, path: '/' });

    const res = await t.client.post('/auth/callback/credentials', { csrfToken, email: ADA.email, password: PASSWORD, callbackUrl: '/dashboard' }, { headers: forwarded });
    expect(res.location?.href).toBe('https://app.example.com/dashboard');
    const session = res.setCookie.map((l) => parseSetCookie(l)!).find((c) => c.name === '__Secure-authchart.session-token');
    expect(session).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax' });
    expect(res.setCookie.some((l) => l.startsWith('authchart.session-token='))).toBe(false);

    const providers = await (await t.client.get('/auth/providers', { headers: forwarded })).json();
    expect(providers.credentials.callbackUrl).toBe('https://app.example.com/auth/callback/credentials');
    // The secure session cookie is read back over the same proxy.
    expect((await (await t.client.get('/auth/session', { headers: forwarded })).json()).user.email).toBe(ADA.email);
  });

  it('treats a redirect to the forwarded host as same-origin and the request host as foreign', async () => {
    const t = testAuth({ providers: [adaProvider()], trustHost: true });
    const csrfToken = await (await t.client.get('/auth/csrf', { headers: forwarded })).json().then((b) => b.csrfToken);
    const res = await t.client.post('/auth/callback/credentials', { csrfToken, email: ADA.email, password: PASSWORD, callbackUrl: 'http://localhost:3000/x' }, { headers: forwarded });
    expect(res.location?.href).toBe('https://app.example.com/');
  });

  it('lets AUTH_URL win over the Host and X-Forwarded-* headers', async () => {
    vi.stubEnv('AUTH_URL', 'https://auth.example.org');
    const t = testAuth({ providers: [adaProvider()], trustHost: true });
    const headers = { 'x-forwarded-host': 'evil.com', 'x-forwarded-proto': 'http' };
    const providers = await (await t.client.get('/auth/providers', { headers })).json();
    expect(providers.credentials.signinUrl).toBe('https://auth.example.org/auth/signin/credentials');
    const csrf = await t.client.get('/auth/csrf', { headers });
    expect(csrf.setCookie.some((l) => l.startsWith('__Host-authchart.csrf-token='))).toBe(true);
    const res = await t.client.post('/auth/callback/credentials', { csrfToken: (await csrf.json()).csrfToken, email: ADA.email, password: PASSWORD, callbackUrl: 'https://evil.com/x' }, { headers });
    expect(res.location?.href).toBe('https://auth.example.org/');
  });

  it.each([
    ['GET', '/auth/session'],
    ['GET', '/auth/csrf'],
    ['GET', '/auth/signin'],
    ['POST', '/auth/callback/credentials'],
  ])('answers %s %s from an untrusted host with 500 JSON and logs UntrustedHost', async (method, path) => {
    const t = testAuth({ providers: [adaProvider()], trustHost: false });
    const res = await t.client.request(new Request(`${ORIGIN}${path}`, { method, headers: { 'x-forwarded-host': 'evil.com' } }));
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toEqual({ message: expect.stringContaining('server configuration') });
    expect(t.logger.errorTypes()).toEqual(['UntrustedHost']);
    expect(res.setCookie).toEqual([]);
  });
});
