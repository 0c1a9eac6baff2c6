// The `cookies` and `useSecureCookies` options over real HTTP (127.0.0.1): the names and attributes of every cookie
// authchart writes, the __Secure-/__Host- prefixes, and Auth.js's flow-cookie keys (pkceCodeVerifier, state, nonce,
// webauthnChallenge) mapped onto the per-provider flow cookies, with sign-ins that complete through them.
import { afterEach, describe, expect, it } from 'vitest';
import type { AuthConfig } from '../../src/core/options.js';
import { Passkey } from '../../src/providers/webauthn.js';
import { recordingLogger, TEST_SECRET } from '../support/auth-app.js';
import { parseSetCookie, type ParsedSetCookie } from '../support/cookie-jar.js';
import { serveLoopback, type LoopbackApp } from '../support/loopback-app.js';
import { OFFLINE_PROFILE, offlineOAuthAt } from '../support/offline-oauth.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { ADA, adaProvider, PASSWORD } from './helpers.js';

const pg = useMigratedPGlite();
let app: LoopbackApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve(extra: Partial<AuthConfig> = {}): Promise<LoopbackApp> {
  app = await serveLoopback({ secret: TEST_SECRET, trustHost: true, logger: recordingLogger(), providers: [adaProvider(), offlineOAuthAt('acme')], ...extra });
  return app;
}

const parsed = (res: Response): ParsedSetCookie[] => res.headers.getSetCookie().map((l) => parseSetCookie(l)!);
const named = (res: Response, name: string) => parsed(res).find((c) => c.name === name);
const HTTPS = { 'x-forwarded-proto': 'https' };

/** Signs in with the credentials form; returns the response (its Set-Cookie lines). */
const credentialsSignIn = (a: LoopbackApp, headers: Record<string, string> = {}) =>
  a.postForm('/auth/callback/credentials', { email: ADA.email, password: PASSWORD, callbackUrl: '/home' }, headers);

/** Starts the OAuth sign-in at `acme`; returns the response and the state the provider would echo back. */
async function startOAuth(a: LoopbackApp, headers: Record<string, string> = {}) {
  const res = await a.postForm('/auth/signin/acme', { callbackUrl: '/home' }, headers);
  expect(res.status).toBe(302);
  return { res, state: new URL(res.headers.get('location')!).searchParams.get('state')! };
}

describe('default names and attributes', () => {
  it('over http: authchart.* names, HttpOnly, SameSite=Lax, Path=/, no Secure', async () => {
    const a = await serve();
    const csrf = named(await a.fetch('/auth/csrf'), 'authchart.csrf-token')!;
    expect(csrf).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(csrf.secure).toBeFalsy();
    const session = named(await credentialsSignIn(a), 'authchart.session-token')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(session.secure).toBeFalsy();
    const { res } = await startOAuth(a);
    expect(named(res, 'authchart.flow.acme')).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', maxAge: 900 });
  });

  it('over https (X-Forwarded-Proto under trustHost): __Host- for CSRF, __Secure- for the others, all Secure', async () => {
    const a = await serve();
    const csrf = named(await a.fetch('/auth/csrf', { headers: HTTPS }), '__Host-authchart.csrf-token')!;
    expect(csrf).toMatchObject({ secure: true, path: '/' });
    expect(csrf.domain).toBeUndefined();
    expect(named(await credentialsSignIn(a, HTTPS), '__Secure-authchart.session-token')).toMatchObject({ secure: true, httpOnly: true });
    expect(named((await startOAuth(a, HTTPS)).res, '__Secure-authchart.flow.acme')).toMatchObject({ secure: true });
  });
});

describe('useSecureCookies', () => {
  it('true over http: prefixed, Secure names, and the session they carry reads back', async () => {
    const a = await serve({ useSecureCookies: true });
    const res = await credentialsSignIn(a);
    const session = named(res, '__Secure-authchart.session-token')!;
    expect(session).toMatchObject({ secure: true });
    expect(named(res, 'authchart.session-token')).toBeUndefined();
    const read = await a.fetch('/auth/session', { cookie: `__Secure-authchart.session-token=${session.value}` });
    expect(await read.json()).toMatchObject({ user: { email: ADA.email } });
    // The unprefixed name is not read.
    expect(await (await a.fetch('/auth/session', { cookie: `authchart.session-token=${session.value}` })).json()).toBeNull();
  });

  it('false over https: plain names without Secure', async () => {
    const a = await serve({ useSecureCookies: false });
    const res = await credentialsSignIn(a, HTTPS);
    const session = named(res, 'authchart.session-token')!;
    expect(session.secure).toBeFalsy();
    expect(parsed(res).some((c) => c.name.startsWith('__'))).toBe(false);
  });
});

describe('cookies', () => {
  it('renames the session, CSRF and callback-URL cookies and sets their attributes; the session reads back under its name', async () => {
    const a = await serve({
      cookies: {
        sessionToken: { name: 'app.sid', options: { sameSite: 'strict', path: '/' } },
        csrfToken: { name: 'app.csrf' },
        callbackUrl: { name: 'app.return-to', options: { maxAge: 600 } },
      },
    });
    const csrf = await a.fetch('/auth/csrf');
    expect(named(csrf, 'app.csrf')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    const res = await credentialsSignIn(a);
    expect(res.headers.get('location')).toBe(`${a.origin}/home`);
    const sid = named(res, 'app.sid')!;
    expect(sid).toMatchObject({ sameSite: 'Strict', httpOnly: true });
    expect(named(res, 'authchart.session-token')).toBeUndefined();
    expect(await (await a.fetch('/auth/session', { cookie: `app.sid=${sid.value}` })).json()).toMatchObject({ user: { email: ADA.email } });
    const signin = await a.fetch('/auth/signin?callbackUrl=%2Fafter');
    expect(named(signin, 'app.return-to')).toMatchObject({ maxAge: 600 });
  });

  it("pkceCodeVerifier / state / nonce configure the OAuth flow cookie: the first name given, pkceCodeVerifier's attributes winning", async () => {
    const a = await serve({
      cookies: {
        nonce: { name: 'app.nonce', options: { sameSite: 'strict', maxAge: 60 } },
        state: { options: { sameSite: 'lax', path: '/auth' } },
        pkceCodeVerifier: { name: 'app.pkce', options: { sameSite: 'none', secure: true } },
      },
    });
    const { res, state } = await startOAuth(a);
    const flow = named(res, 'app.pkce.acme')!;
    // SameSite and Secure from pkceCodeVerifier, Path from state; the flow's own 15 minutes always apply.
    expect(flow).toMatchObject({ sameSite: 'None', secure: true, path: '/auth', maxAge: 900, httpOnly: true });
    expect(parsed(res).some((c) => c.name.startsWith('authchart.flow') || c.name.startsWith('app.nonce'))).toBe(false);
    // The sign-in completes through the renamed cookie, and clears it.
    const done = await a.fetch(`/auth/callback/acme?code=c1&state=${state}`, { cookie: `app.pkce.acme=${flow.value}` });
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe(`${a.origin}/home`);
    expect(named(done, 'app.pkce.acme')).toMatchObject({ maxAge: 0, path: '/auth' });
    const session = named(done, 'authchart.session-token')!;
    expect(await (await a.fetch('/auth/session', { cookie: `authchart.session-token=${session.value}` })).json()).toMatchObject({ user: { email: OFFLINE_PROFILE.email } });
    // Under the default name the same value is not looked for.
    const again = await startOAuth(a);
    const value = named(again.res, 'app.pkce.acme')!.value;
    const refused = await a.fetch(`/auth/callback/acme?code=c2&state=${again.state}`, { cookie: `authchart.flow.acme=${value}` });
    expect(new URL(refused.headers.get('location')!).searchParams.get('error')).toBeTruthy();
  });

  it('state alone names the OAuth flow cookie; flow names every flow cookie not configured otherwise', async () => {
    const byState = await serve({ cookies: { state: { name: 'app.state' } } });
    expect(named((await startOAuth(byState)).res, 'app.state.acme')).toBeDefined();
    await byState.close();
    app = undefined;
    const byFlow = await serve({ cookies: { flow: { name: 'app.flow', options: { sameSite: 'strict' } } } });
    expect(named((await startOAuth(byFlow)).res, 'app.flow.acme')).toMatchObject({ sameSite: 'Strict' });
  });

  it('webauthnChallenge configures the WebAuthn flow cookie (and only it)', async () => {
    const a = await serve({
      adapter: pg.adapter,
      experimental: { enableWebAuthn: true },
      providers: [offlineOAuthAt('acme'), Passkey()],
      cookies: { webauthnChallenge: { name: 'app.challenge', options: { sameSite: 'strict' } } },
    });
    const options = await a.fetch('/auth/webauthn-options/passkey');
    expect(options.status).toBe(200);
    expect(named(options, 'app.challenge.passkey')).toMatchObject({ sameSite: 'Strict', httpOnly: true, maxAge: 900 });
    expect(named((await startOAuth(a)).res, 'authchart.flow.acme')).toMatchObject({ sameSite: 'Lax' });
  });

  it('useSecureCookies keeps a configured name as given (no prefix added), with the Secure attribute', async () => {
    const a = await serve({ useSecureCookies: true, cookies: { pkceCodeVerifier: { name: '__Secure-app.pkce' }, sessionToken: { name: 'app.sid' } } });
    expect(named((await startOAuth(a)).res, '__Secure-app.pkce.acme')).toMatchObject({ secure: true });
    // The secure default attributes stay under a renamed cookie.
    expect(named(await credentialsSignIn(a), 'app.sid')).toMatchObject({ secure: true });
  });
});
