// next-auth v4's client asks for redirects as data with `json=true` in the form body (no X-Auth-Return-Redirect); v4's
// server answered any redirect with 200 { url }. authchart answers it the same way, errors included. The real v4
// client is driven in Chromium by test/e2e/nextauth-client-browser.test.ts.
import { describe, expect, it } from 'vitest';
import { testAuth, ORIGIN } from '../support/auth-app.js';
import { ADA, adaProvider, sessionWrites, signIn } from './helpers.js';

describe('json=true in the form body (next-auth v4 client)', () => {
  it('turns the sign-in redirect into 200 {url} and keeps the session cookie', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await signIn(t, { callbackUrl: '/dashboard', json: 'true' });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.json()).toEqual({ url: `${ORIGIN}/dashboard` });
    expect(sessionWrites(res)).toHaveLength(1);
    expect((await (await t.client.get('/auth/session')).json()).user.email).toBe(ADA.email);
  });

  it('turns an error redirect into 200 {url} of the page v4 read the error from', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await signIn(t, { password: 'wrong', json: 'true' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ url: `${ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials` });
    expect(sessionWrites(res)).toEqual([]);
  });

  it('answers sign-out with 200 {url} and ends the session', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    await signIn(t);
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/signout', { csrfToken, callbackUrl: '/bye', json: 'true' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ url: `${ORIGIN}/bye` });
    expect(await (await t.client.get('/auth/session')).json()).toBeNull();
  });

  it('a missing CSRF token is still refused, as {url} of the error', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await t.client.post('/auth/callback/credentials', { email: ADA.email, password: 'secret', json: 'true' });
    expect(res.status).toBe(200);
    const { url } = (await res.json()) as { url: string };
    expect(new URL(url).searchParams.get('error')).toBe('MissingCSRF');
    expect(sessionWrites(res)).toEqual([]);
  });

  it('any other value of json, or json=true on a GET, is an ordinary redirect', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await signIn(t, { callbackUrl: '/dashboard', json: '1' });
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe(`${ORIGIN}/dashboard`);
    const page = await t.client.get('/auth/signout?json=true');
    expect(page.headers.get('content-type')).toContain('text/html');
  });
});
