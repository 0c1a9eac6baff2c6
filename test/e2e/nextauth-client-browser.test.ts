// The browser code apps bring from Auth.js, run unchanged in Chromium against authchart (the demo: credentials, e-mail
// through its mail catcher, its OpenID Provider, passkeys): next-auth v5's `next-auth/react` (getCsrfToken,
// getProviders, getSession, signIn with and without redirect, signOut, SessionProvider + useSession + update) and
// `next-auth/webauthn`, and next-auth v4's client, which asks with `json=true` in the form body. Each module is
// bundled here by esbuild from browser-clients/node_modules (npm --prefix browser-clients ci), no CDN, and served to
// the page by the browser context. The results are the shapes these clients give against Auth.js's own server:
// `ok: true` with `error` set for a refused sign-in, the error and its code read from the `{ url }` answer.
import { existsSync } from 'node:fs';
import { build } from 'esbuild';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDemo } from '../../examples/demo/app.js';
import { DEMO_EMAIL, DEMO_PASSWORD } from '../../examples/demo/config.js';
import { fenceToLoopback, launchChromium, newPageWithVirtualAuthenticator } from './peers/browser.js';
import { loginAtDemoIdp, startOfflineDemo } from './peers/demo.js';

const CLIENTS = new URL('../../browser-clients/', import.meta.url).pathname;

/** next-auth v5's client and React, with a SessionProvider app that records what useSession gives. */
const V5_ENTRY = `
import * as React from 'react';
import { createRoot } from 'react-dom/client';
import * as client from 'next-auth/react';
import * as webauthn from 'next-auth/webauthn';
function Who() {
  const { data, status, update } = client.useSession();
  React.useEffect(() => { window.seen.push({ status, email: data?.user?.email ?? null }); }, [status, data]);
  window.update = update;
  return React.createElement('p', { id: 'who' }, status);
}
window.seen = [];
window.mount = (el) => createRoot(el).render(React.createElement(client.SessionProvider, { basePath: '/auth' }, React.createElement(Who)));
export { client, webauthn };
`;

/** next-auth v4's client (the npm alias next-auth-v4). */
const V4_ENTRY = `export * as client from 'next-auth-v4/react';`;

/** One browser module of `entry`, the clients' `process.env.NEXTAUTH_URL` set to the demo's auth routes. */
async function bundle(entry: string, authUrl: string): Promise<string> {
  const out = await build({
    stdin: { contents: entry, resolveDir: CLIENTS, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
    define: {
      'process.env.NODE_ENV': '"production"',
      'process.env.NEXTAUTH_URL': JSON.stringify(authUrl),
      'process.env.NEXTAUTH_URL_INTERNAL': 'undefined',
      'process.env.VERCEL_URL': 'undefined',
      'process.env': '{}',
    },
  });
  return out.outputFiles[0]!.text;
}

type Mod = 'v5' | 'v4';

/** Runs `body` in the page with the bundled module as `m` (`m.client`, `m.webauthn`). */
function inPage<T>(page: Page, mod: Mod, body: string): Promise<T> {
  return page.evaluate(`import('/_nextauth/${mod}.js').then(async (m) => { ${body} })`) as Promise<T>;
}

/** A page of the demo that never reloads itself (no page at that path: the demo's 404). */
const BLANK = '/a-page-for-next-auth';

describe('next-auth clients in Chromium against authchart', { timeout: 60_000 }, () => {
  let browser: Browser;
  let demo: RunningDemo;
  let origin: string;
  const modules: Record<Mod, string> = { v5: '', v4: '' };

  beforeAll(async () => {
    if (!existsSync(`${CLIENTS}node_modules/next-auth/package.json`)) {
      throw new Error('The browser clients are not installed: run npm --prefix browser-clients ci');
    }
    ({ demo, origin } = await startOfflineDemo());
    modules.v5 = await bundle(V5_ENTRY, `${origin}/auth`);
    modules.v4 = await bundle(V4_ENTRY, `${origin}/auth`);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  });

  /** Serves the bundles at /_nextauth/ in `context` (after the loopback fence, so it wins for those paths). */
  async function serveModules(context: BrowserContext): Promise<void> {
    await context.route(`${origin}/_nextauth/*.js`, (route) => {
      const mod = new URL(route.request().url()).pathname.split('/').pop()!.replace('.js', '') as Mod;
      return route.fulfill({ status: 200, contentType: 'text/javascript', body: modules[mod] });
    });
  }

  async function newPage(problems: string[]): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    await fenceToLoopback(context);
    await serveModules(context);
    const page = await context.newPage();
    page.on('pageerror', (err) => problems.push(err.message));
    await page.goto(`${origin}${BLANK}`);
    return { context, page };
  }

  /** The newest sign-in link the demo's mail catcher holds for `address`. */
  async function linkFor(page: Page, address: string): Promise<string> {
    const mailbox = await page.context().newPage();
    try {
      await mailbox.goto(`${origin}/dev/mailbox`);
      const card = mailbox.locator('article', { hasText: address }).first();
      return (await card.locator('a.mail-link').first().getAttribute('href'))!;
    } finally {
      await mailbox.close();
    }
  }

  describe('next-auth v5 (next-auth/react)', () => {
    it('getCsrfToken, getProviders and getSession read the routes; credentials signIn and signOut without redirect', async () => {
      const problems: string[] = [];
      const { context, page } = await newPage(problems);
      try {
        const reads = await inPage<{ csrf: string; again: string; providers: Record<string, Record<string, string>>; session: unknown }>(page, 'v5', `
          return { csrf: await m.client.getCsrfToken(), again: await m.client.getCsrfToken(), providers: await m.client.getProviders(), session: await m.client.getSession() };`);
        expect(reads.csrf).toMatch(/^[\w-]{20,}$/);
        expect(reads.again).toBe(reads.csrf);
        expect(reads.session).toBeNull();
        expect(Object.keys(reads.providers)).toEqual(expect.arrayContaining(['demo-idp', 'credentials', 'email', 'passkey']));
        expect(reads.providers.credentials).toEqual({
          id: 'credentials', name: 'Demo account', type: 'credentials',
          signinUrl: `${origin}/auth/signin/credentials`, callbackUrl: `${origin}/auth/callback/credentials`,
        });
        expect(reads.providers['demo-idp']).toMatchObject({ id: 'demo-idp', type: 'oidc' });
        expect(reads.providers.passkey).toMatchObject({ id: 'passkey', type: 'webauthn' });

        // Refused: Auth.js answers 200 { url } of the sign-in page with the error, so next-auth reports ok: true.
        const refused = await inPage(page, 'v5', `return m.client.signIn('credentials', { email: '${DEMO_EMAIL}', password: 'wrong', redirect: false });`);
        expect(refused).toEqual({ error: 'CredentialsSignin', code: 'credentials', status: 200, ok: true, url: null });
        expect(page.url()).toBe(`${origin}${BLANK}`);

        // callbackUrl (next-auth's name) is where the answer points.
        const accepted = await inPage(page, 'v5', `return m.client.signIn('credentials', { email: '${DEMO_EMAIL}', password: '${DEMO_PASSWORD}', redirect: false, callbackUrl: '/protected' });`);
        expect(accepted).toEqual({ error: undefined, code: undefined, status: 200, ok: true, url: `${origin}/protected` });
        expect(await inPage(page, 'v5', 'return m.client.getSession();')).toMatchObject({ user: { email: DEMO_EMAIL, name: 'Demo User' }, expires: expect.any(String) });

        const out = await inPage(page, 'v5', `return m.client.signOut({ redirect: false, callbackUrl: '/bye' });`);
        expect(out).toEqual({ url: `${origin}/bye` });
        expect(await inPage(page, 'v5', 'return m.client.getSession();')).toBeNull();
        expect(page.url()).toBe(`${origin}${BLANK}`);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('signIn and signOut with redirect go where the answer says; an unknown provider goes to the sign-in page', async () => {
      const problems: string[] = [];
      const { context, page } = await newPage(problems);
      try {
        await Promise.all([
          page.waitForURL(`${origin}/protected`),
          inPage(page, 'v5', `m.client.signIn('credentials', { email: '${DEMO_EMAIL}', password: '${DEMO_PASSWORD}', callbackUrl: '/protected' });`),
        ]);
        expect(await page.locator('body').textContent()).toContain('Demo User');

        await page.goto(`${origin}${BLANK}`);
        await Promise.all([page.waitForURL(`${origin}/signed-out`), inPage(page, 'v5', `m.client.signOut({ callbackUrl: '/signed-out' });`)]);
        expect(await inPage(page, 'v5', 'return m.client.getSession();')).toBeNull();

        // A wrong password with redirect: the browser lands on the sign-in page that names the error.
        await page.goto(`${origin}${BLANK}`);
        await Promise.all([
          page.waitForURL((u) => u.pathname === '/auth/signin'),
          inPage(page, 'v5', `m.client.signIn('credentials', { email: '${DEMO_EMAIL}', password: 'wrong' });`),
        ]);
        expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ error: 'CredentialsSignin', code: 'credentials' });

        // next-auth's own rule, before any request: an id the server does not list goes to the sign-in page.
        await page.goto(`${origin}${BLANK}`);
        await Promise.all([
          page.waitForURL((u) => u.pathname === '/auth/signin'),
          inPage(page, 'v5', `m.client.signIn('no-such-provider', { callbackUrl: '/protected' });`),
        ]);
        expect(new URL(page.url()).searchParams.get('callbackUrl')).toBe('/protected');
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('e-mail: signIn without redirect answers the code page (GET /auth/flow/email); the link signs in; a bad address is an error', async () => {
      const problems: string[] = [];
      const { context, page } = await newPage(problems);
      const address = `nextauth-v5-${process.pid}@example.test`;
      try {
        const sent = await inPage<{ url: string; ok: boolean; status: number; error?: string }>(page, 'v5',
          `return m.client.signIn('email', { email: '${address}', redirect: false, callbackUrl: '/protected' });`);
        expect(sent).toMatchObject({ error: undefined, code: undefined, status: 200, ok: true });
        // The demo mails a code with the link: the answer is the code page, read from this browser's flow cookie.
        expect(new URL(sent.url).pathname).toBe('/auth/flow/email');
        await page.goto(sent.url);
        expect(await page.locator('input[name="code"]').count()).toBe(1);

        const link = await linkFor(page, address);
        await page.goto(link);
        // authchart's confirm step (a scanner's GET does not spend the link), then the callbackUrl given.
        await Promise.all([page.waitForURL(`${origin}/protected`), page.click('button[type=submit]')]);
        await page.goto(`${origin}${BLANK}`);
        expect(await inPage(page, 'v5', 'return m.client.getSession();')).toMatchObject({ user: { email: address } });

        // Auth.js names this Configuration; authchart's EmailSignInError is client-safe (README, Errors).
        const bad = await inPage(page, 'v5', `return m.client.signIn('email', { email: 'not an address', redirect: false });`);
        expect(bad).toEqual({ error: 'EmailSignInError', code: undefined, ok: true, status: 200, url: null });
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('OAuth: without redirect the answer is the authorization URL; with it the browser goes to the IdP and back signed in', async () => {
      const problems: string[] = [];
      const { context, page } = await newPage(problems);
      try {
        const started = await inPage<{ url: string; ok: boolean; error?: string }>(page, 'v5',
          `return m.client.signIn('demo-idp', { redirect: false, callbackUrl: '/protected' }, { login_hint: 'alice' });`);
        expect(started).toMatchObject({ ok: true, status: 200, error: undefined });
        const authorize = new URL(started.url);
        expect(authorize.origin).not.toBe(origin);
        // The third argument rides to the provider as authorization parameters.
        expect(Object.fromEntries(authorize.searchParams)).toMatchObject({ response_type: 'code', code_challenge_method: 'S256', login_hint: 'alice' });

        await Promise.all([page.waitForURL((u) => u.origin !== origin), inPage(page, 'v5', `m.client.signIn('demo-idp', { callbackUrl: '/protected' });`)]);
        await loginAtDemoIdp(page, origin);
        await page.waitForURL(`${origin}/protected`);
        expect(await page.locator('body').textContent()).toContain('Alice Liddell');
        // The IdP's pages ask for a web font the fence blocks; nothing else may fail.
        expect(problems.filter((p) => !p.includes('ERR_BLOCKED_BY_CLIENT'))).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('SessionProvider and useSession follow signIn and signOut; update posts to the session route', async () => {
      const problems: string[] = [];
      const { context, page } = await newPage(problems);
      try {
        await inPage(page, 'v5', `const el = document.createElement('div'); document.body.append(el); window.mount(el);`);
        await expect.poll(() => page.locator('#who').textContent()).toBe('unauthenticated');
        await inPage(page, 'v5', `await m.client.signIn('credentials', { email: '${DEMO_EMAIL}', password: '${DEMO_PASSWORD}', redirect: false });`);
        await expect.poll(() => page.locator('#who').textContent()).toBe('authenticated');

        const posted = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/auth/session');
        const updated = await inPage(page, 'v5', `return window.update({ theme: 'dark' });`);
        expect((await posted).postDataJSON()).toEqual({ csrfToken: expect.any(String), data: { theme: 'dark' } });
        expect(updated).toMatchObject({ user: { email: DEMO_EMAIL } });

        await inPage(page, 'v5', `await m.client.signOut({ redirect: false });`);
        await expect.poll(() => page.locator('#who').textContent()).toBe('unauthenticated');
        const seen = await page.evaluate(() => (window as unknown as { seen: { status: string; email: string | null }[] }).seen);
        // next-auth shows 'loading' while update runs, as against Auth.js.
        expect(seen.map((s) => s.status).filter((s, i, all) => s !== all[i - 1])).toEqual(['loading', 'unauthenticated', 'authenticated', 'loading', 'authenticated', 'unauthenticated']);
        expect(seen.find((s) => s.status === 'authenticated')?.email).toBe(DEMO_EMAIL);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('next-auth/webauthn registers a passkey and signs in with it (virtual authenticator)', async () => {
      const { page, context, credentials, close } = await newPageWithVirtualAuthenticator(browser);
      try {
        await serveModules(context);
        await page.goto(`${origin}${BLANK}`);
        const registered = await inPage(page, 'v5', `return m.webauthn.signIn('passkey', { action: 'register', email: 'webauthn-${process.pid}@example.test', redirect: false, callbackUrl: '/protected' });`);
        expect(registered).toEqual({ error: null, code: null, status: 200, ok: true, url: `${origin}/protected` });
        expect(await credentials()).toHaveLength(1);
        const first = await inPage<{ user: { id: string } }>(page, 'v5', 'return m.client.getSession();');
        expect(first.user.id).toEqual(expect.any(String));

        await inPage(page, 'v5', 'await m.client.signOut({ redirect: false });');
        const signedIn = await inPage(page, 'v5', `return m.webauthn.signIn('passkey', { redirect: false });`);
        expect(signedIn).toMatchObject({ error: null, ok: true, status: 200 });
        expect(await inPage(page, 'v5', 'return m.client.getSession();')).toMatchObject({ user: { id: first.user.id } });

        // next-auth's own guards, before any request: each signIn refuses the other's provider kind.
        const mixed = await inPage<string[]>(page, 'v5', `
          const out = [];
          await m.client.signIn('passkey', { redirect: false }).catch((e) => out.push(e.name));
          await m.webauthn.signIn('credentials', { redirect: false }).catch((e) => out.push(e.name));
          return out;`);
        expect(mixed).toEqual(['TypeError', 'TypeError']);
      } finally {
        await close();
      }
    });
  });

  describe('next-auth v4 (next-auth/react 4.x, json=true in the form body)', () => {
    it('credentials signIn without redirect reports the error or the url; getSession, signOut', async () => {
      const problems: string[] = [];
      const { context, page } = await newPage(problems);
      try {
        const reads = await inPage<{ csrf: string; providers: Record<string, unknown>; session: unknown }>(page, 'v4', `
          return { csrf: await m.client.getCsrfToken(), providers: await m.client.getProviders(), session: await m.client.getSession() };`);
        expect(reads.csrf).toMatch(/^[\w-]{20,}$/);
        expect(Object.keys(reads.providers)).toEqual(expect.arrayContaining(['demo-idp', 'credentials', 'email']));
        expect(reads.session).toBeNull();

        const refused = await inPage(page, 'v4', `return m.client.signIn('credentials', { email: '${DEMO_EMAIL}', password: 'wrong', redirect: false });`);
        expect(refused).toEqual({ error: 'CredentialsSignin', status: 200, ok: true, url: null });

        const accepted = await inPage(page, 'v4', `return m.client.signIn('credentials', { email: '${DEMO_EMAIL}', password: '${DEMO_PASSWORD}', redirect: false, callbackUrl: '/protected' });`);
        expect(accepted).toEqual({ error: null, status: 200, ok: true, url: `${origin}/protected` });
        expect(await inPage(page, 'v4', 'return m.client.getSession();')).toMatchObject({ user: { email: DEMO_EMAIL } });

        const out = await inPage(page, 'v4', `return m.client.signOut({ redirect: false, callbackUrl: '/bye' });`);
        expect(out).toEqual({ url: `${origin}/bye` });
        expect(await inPage(page, 'v4', 'return m.client.getSession();')).toBeNull();
        expect(page.url()).toBe(`${origin}${BLANK}`);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('signIn with redirect (credentials, e-mail, OAuth) and signOut go where the { url } answer says', async () => {
      const problems: string[] = [];
      const { context, page } = await newPage(problems);
      const address = `nextauth-v4-${process.pid}@example.test`;
      try {
        await Promise.all([
          page.waitForURL(`${origin}/protected`),
          inPage(page, 'v4', `m.client.signIn('credentials', { email: '${DEMO_EMAIL}', password: '${DEMO_PASSWORD}', callbackUrl: '/protected' });`),
        ]);
        await page.goto(`${origin}${BLANK}`);
        await Promise.all([page.waitForURL(`${origin}/signed-out`), inPage(page, 'v4', `m.client.signOut({ callbackUrl: '/signed-out' });`)]);

        // v4's client always follows the answer for e-mail unless told not to: the code page (the demo mails a code).
        await page.goto(`${origin}${BLANK}`);
        const sent = await inPage<{ url: string; ok: boolean }>(page, 'v4', `return m.client.signIn('email', { email: '${address}', redirect: false, callbackUrl: '/protected' });`);
        expect(sent).toMatchObject({ ok: true, status: 200, error: null });
        expect(new URL(sent.url).pathname).toBe('/auth/flow/email');
        expect(await linkFor(page, address)).toContain('/auth/callback/email');

        // OAuth: v4 always navigates, to the authorization URL from the { url } answer.
        const [authorize] = await Promise.all([
          page.waitForRequest((r) => r.isNavigationRequest() && new URL(r.url()).origin !== origin),
          inPage(page, 'v4', `m.client.signIn('demo-idp', { callbackUrl: '/protected' });`),
        ]);
        expect(Object.fromEntries(new URL(authorize.url()).searchParams)).toMatchObject({ response_type: 'code', code_challenge_method: 'S256' });
        expect(problems.filter((p) => !p.includes('ERR_BLOCKED_BY_CLIENT'))).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
});
