// What each Nitro example must do once built by Nitro and started as its output server: serve authchart under
// /auth, give every route the session, guard a page and an API route, and sign in with credentials and with a
// real OpenID Provider, over HTTP. Shared by the Nitro 3 (h3 v2) and Nitro 2 (h3 v1) examples.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type OidcProviderHarness } from '../e2e/peers/oidc.js';
import { createClient, type TestClient } from '../support/client.js';
import { buildExample, freePort, startExample, type NitroApp } from '../support/nitro-app.js';
import { csrfTokenOf, sessionOf, signInWithCredentials, signInWithOidc } from '../support/signin-over-http.js';

const ADA = { email: 'ada@example.test', password: 'analytical-engine' };

export function nitroExampleSuite(name: string, title: string): void {
  describe(title, () => {
    let op: OidcProviderHarness;
    let app: NitroApp;
    let server: string;
    const browser = (): TestClient => createClient({ baseUrl: app.origin });

    beforeAll(async () => {
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      [server, op] = await Promise.all([buildExample(name), startOidcProvider({ redirectUris: [`${origin}/auth/callback/oidc`] })]);
      app = await startExample(name, port, {
        AUTH_SECRET: randomBytes(32).toString('base64url'),
        AUTH_URL: origin,
        AUTH_OIDC_ISSUER: op.issuer,
        AUTH_OIDC_ID: op.clientId,
        AUTH_OIDC_SECRET: op.clientSecret!,
        // No database here (the test environment's own would otherwise turn the example's organizations on).
        DATABASE_URL: '',
      });
    }, 240_000);
    afterAll(async () => {
      await app?.stop();
      await op?.stop();
    });

    it("is built by Nitro's own build into a server of its own", () => {
      expect(server).toMatch(new RegExp(`examples/${name}/\\.output/server/index\\.mjs$`));
    });

    it('serves authchart under /auth: CSRF token, providers, the sign-in page', async () => {
      const client = browser();
      expect(await csrfTokenOf(client)).toMatch(/^[0-9a-f]{64}$/);
      const providers = (await (await client.get('/auth/providers')).json()) as Record<string, { type: string }>;
      expect(Object.fromEntries(Object.entries(providers).map(([id, p]) => [id, p.type]))).toEqual({ credentials: 'credentials', oidc: 'oidc' });
      const page = await client.get('/auth/signin');
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Company SSO');
    });

    it('signed out: the session is null on every route, the page redirects to sign-in, the API answers 401', async () => {
      const client = browser();
      expect(await sessionOf(client)).toBeNull();
      expect(await (await client.get('/')).json()).toEqual({ signedIn: false, user: null });
      const page = await client.get('/dashboard');
      expect(page.status).toBe(302);
      expect(page.location?.pathname).toBe('/auth/signin');
      expect(page.location?.searchParams.get('callbackUrl')).toBe('/dashboard');
      expect((await client.get('/api/me')).status).toBe(401);
    });

    it('signs in with credentials: back on the protected page, the session on every route', async () => {
      const client = browser();
      const res = await signInWithCredentials(client, ADA, `${app.origin}/dashboard`);
      expect(res.status).toBe(302);
      expect(res.location?.href).toBe(`${app.origin}/dashboard`);
      expect(res.setCookie.some((line) => line.startsWith('authchart.session-token='))).toBe(true);
      const page = await client.get('/dashboard');
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Hello, Ada Lovelace');
      expect(await (await client.get('/')).json()).toMatchObject({ signedIn: true, user: { name: 'Ada Lovelace', email: ADA.email } });
      expect(await (await client.get('/api/me')).json()).toMatchObject({ user: { email: ADA.email } });
    });

    it('refuses a wrong password: the error page, no session', async () => {
      const client = browser();
      const res = await signInWithCredentials(client, { ...ADA, password: 'difference-engine' }, `${app.origin}/dashboard`);
      expect(res.status).toBe(302);
      expect(res.location?.searchParams.get('error')).toBe('CredentialsSignin');
      expect(await sessionOf(client)).toBeNull();
      expect((await client.get('/api/me')).status).toBe(401);
    });

    it('clears a session cookie that does not open, from any route that reads the session', async () => {
      const client = browser();
      const res = await client.get('/', { headers: { cookie: 'authchart.session-token=not-a-token' } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ signedIn: false, user: null });
      expect(res.setCookie.find((line) => line.startsWith('authchart.session-token='))).toMatch(/Max-Age=0/i);
    });

    it('signs in with the OpenID Provider, then signs out', async () => {
      const client = browser();
      const { start, callback } = await signInWithOidc(client, op, 'alice', `${app.origin}/dashboard`);
      expect(start.location?.origin).toBe(op.issuer);
      expect(start.location?.searchParams.get('redirect_uri')).toBe(`${app.origin}/auth/callback/oidc`);
      expect(callback.status).toBe(302);
      expect(callback.location?.href).toBe(`${app.origin}/dashboard`);
      expect(await (await client.get('/dashboard')).text()).toContain('Hello, Alice Liddell');
      expect(await (await client.get('/')).json()).toMatchObject({ signedIn: true, user: { email: 'alice@example.test' } });

      const out = await client.post('/auth/signout', { csrfToken: await csrfTokenOf(client), callbackUrl: `${app.origin}/` });
      expect(out.status).toBe(302);
      expect(await (await client.get('/')).json()).toEqual({ signedIn: false, user: null });
    });

    it('logs only the two refusals above: the wrong password and the cookie that did not open', () => {
      const lines = app.output().split('\n');
      const logged = lines.flatMap((line) => /\[authchart\]\[error\]\S*\s+(\w+):/.exec(line)?.[1] ?? []);
      expect(logged.sort()).toEqual(['CredentialsSignin', 'JWTSessionError']);
      // Nothing else went wrong, e.g. an h3 error the framework took for an unhandled one.
      expect(lines.filter((line) => /Error\b/.test(line) && !/\[authchart\]\[(error|cause)\]/.test(line))).toEqual([]);
    });
  });
}
