// authchart/client in Chromium against the demo app (examples/demo, PGlite in memory): the reads, signIn's result
// without navigating, and two tabs of one browser following each other's sign-in and sign-out over BroadcastChannel.
// Screenshots go to .data/screenshots/ (gitignored).
import { mkdirSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_EMAIL, DEMO_PASSWORD } from '../../examples/demo/config.js';
import { fenceToLoopback, newPageWithVirtualAuthenticator } from './peers/browser.js';
import { loginAtDemoIdp, useDemoInChromium } from './peers/demo.js';

const SHOTS = new URL('../../.data/screenshots/', import.meta.url).pathname;

/**
 * Runs `body` in the page with the client module as `c`. A string, not a function: vitest would rewrite an
 * `import()` written in this file.
 */
function inPage<T>(page: Page, body: string): Promise<T> {
  return page.evaluate(`import('/_client/index.js').then(async (c) => { ${body} })`) as Promise<T>;
}

/**
 * Records, in the page, every state a store of its own sees; with no interval and no focus refresh, only the
 * BroadcastChannel can change it. The page must not reload (the demo's home page does, on a change).
 */
async function watchSession(page: Page): Promise<void> {
  await inPage(page, `
    const states = (window.states = []);
    c.createSessionStore({ refetchOnWindowFocus: false, refetchInterval: 0 })
      .subscribe((s) => states.push({ status: s.status, email: s.data?.user?.email ?? null }));`);
  await page.waitForFunction(() => (window as unknown as { states: { status: string }[] }).states.some((s) => s.status !== 'loading'));
}

const statesOf = (page: Page) => page.evaluate(() => (window as unknown as { states: { status: string; email: string | null }[] }).states);

// Generous per test: the CPU is shared, and a cold PGlite, IdP and browser make the first steps slow.
describe('authchart/client in Chromium against the demo', { timeout: 60_000 }, () => {
  const run = useDemoInChromium();

  beforeAll(() => {
    mkdirSync(SHOTS, { recursive: true });
  });

  async function newContext(): Promise<BrowserContext> {
    const context = await run.browser.newContext({ viewport: { width: 900, height: 700 } });
    await fenceToLoopback(context);
    return context;
  }

  /** A tab on a demo page (the home page unless said), with page errors collected. */
  async function openHome(context: BrowserContext, problems: string[], path = '/'): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (msg) => msg.type() === 'error' && problems.push(msg.text()));
    await page.goto(`${run.origin}${path}`);
    return page;
  }

  it('getSession, getProviders and getCsrfToken answer; signIn with redirect: false reports a wrong password', async () => {
    const context = await newContext();
    const problems: string[] = [];
    try {
      // The mailbox, not the home page: the home page reloads itself when its session changes, which would race the
      // reads after the sign-in below.
      const page = await openHome(context, problems, '/dev/mailbox');
      const reads = await inPage<{ session: unknown; providers: Record<string, unknown>; csrfToken: string }>(page,
        'return { session: await c.getSession(), providers: await c.getProviders(), csrfToken: await c.getCsrfToken() };');
      expect(reads.session).toBeNull();
      expect(Object.keys(reads.providers)).toEqual(expect.arrayContaining(['demo-idp', 'credentials', 'email', 'passkey']));
      expect(reads.providers.credentials).toMatchObject({ type: 'credentials', callbackUrl: `${run.origin}/auth/callback/credentials` });
      expect(reads.csrfToken).toMatch(/^[\w-]{20,}$/);
      // The token is the one the cookie pairs with: a second read gives the same token.
      expect(await inPage(page, 'return c.getCsrfToken();')).toBe(reads.csrfToken);

      const url = page.url();
      const refused = await inPage(page, `return c.signIn('credentials', { email: '${DEMO_EMAIL}', password: 'wrong', redirect: false });`);
      expect(refused).toEqual({ ok: false, status: 200, error: 'CredentialsSignin', code: 'credentials', url: null });
      expect(page.url()).toBe(url);
      expect(await inPage(page, 'return c.getSession();')).toBeNull();

      const accepted = await inPage(page, `return c.signIn('credentials', { email: '${DEMO_EMAIL}', password: '${DEMO_PASSWORD}', redirect: false, redirectTo: '/protected' });`);
      expect(accepted).toEqual({ ok: true, status: 200, error: null, code: null, url: `${run.origin}/protected` });
      const session = await inPage(page, 'return c.getSession();');
      expect(session).toMatchObject({ user: { email: DEMO_EMAIL, name: 'Demo User' } });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('two tabs: a sign-in and a sign-out in one are followed by the other (BroadcastChannel)', async () => {
    const context = await newContext();
    const problems: string[] = [];
    try {
      const a = await openHome(context, problems);
      const b = await openHome(context, problems);
      await expect.poll(() => b.locator('#who').textContent()).toContain('You are not signed in.');
      // A third tab of the same site holding nothing but a store (a page that never reloads itself).
      const watcher = await context.newPage();
      await watcher.goto(`${run.origin}/a-page-with-only-the-client`);
      await watchSession(watcher);

      // Tab A signs in with the home page's own form (signIn, redirect: false); the wrong password first.
      await a.fill('#quick-signin input[name=email]', DEMO_EMAIL);
      await a.fill('#quick-signin input[name=password]', 'wrong');
      await a.click('#quick-signin button');
      await expect.poll(() => a.locator('#quick-signin [role=alert]').textContent()).toBe('Wrong e-mail or password.');
      await a.screenshot({ path: `${SHOTS}client-wrong-password.png` });
      await a.fill('#quick-signin input[name=password]', DEMO_PASSWORD);
      await a.click('#quick-signin button');
      await expect.poll(() => a.locator('#who').textContent()).toContain('Signed in as Demo User');

      // The other tabs were told: the watcher's store saw the sign-in, and the page tab B shows followed.
      await expect.poll(async () => (await statesOf(watcher)).at(-1)).toEqual({ status: 'authenticated', email: DEMO_EMAIL });
      await expect.poll(() => b.locator('#who').textContent()).toContain('Signed in as Demo User');
      await b.screenshot({ path: `${SHOTS}client-tab-b-signed-in.png` });

      // Tab B signs out with one click (signOut); tab A and the watcher follow.
      await b.click('[data-signout]');
      await expect.poll(() => b.locator('#who').textContent()).toContain('You are not signed in.');
      await expect.poll(async () => (await statesOf(watcher)).at(-1)).toEqual({ status: 'unauthenticated', email: null });
      expect((await statesOf(watcher)).map((s) => s.status)).toEqual(['loading', 'unauthenticated', 'authenticated', 'unauthenticated']);
      await expect.poll(() => a.locator('#who').textContent()).toContain('You are not signed in.');
      await a.screenshot({ path: `${SHOTS}client-tab-a-followed-signout.png` });
      expect((await context.cookies(run.origin)).some((c) => c.name === 'authchart.session-token')).toBe(false);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a store looks again when the window regains focus', async () => {
    const context = await newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${run.origin}/a-page-with-only-the-client`);
      await inPage(page, `
        const states = (window.states = []);
        c.createSessionStore({ refetchInterval: 0 }).subscribe((s) => states.push({ status: s.status, email: s.data?.user?.email ?? null }));`);
      await page.waitForFunction(() => (window as unknown as { states: { status: string }[] }).states.some((s) => s.status !== 'loading'));
      // Signed in behind the store's back: a plain form post, no broadcast.
      await inPage(page, `
        const body = new URLSearchParams({ csrfToken: await c.getCsrfToken(), email: '${DEMO_EMAIL}', password: '${DEMO_PASSWORD}' });
        await fetch('/auth/callback/credentials', { method: 'POST', body });`);
      expect((await statesOf(page)).at(-1)).toEqual({ status: 'unauthenticated', email: null });
      await page.evaluate(() => window.dispatchEvent(new Event('focus')));
      await expect.poll(async () => (await statesOf(page)).at(-1)).toEqual({ status: 'authenticated', email: DEMO_EMAIL });
    } finally {
      await context.close();
    }
  });

  it('registerPasskey and signInWithPasskey run the ceremonies with a virtual authenticator', async () => {
    const { page, credentials, close } = await newPageWithVirtualAuthenticator(run.browser);
    try {
      await page.goto(`${run.origin}/`);
      expect(await inPage(page, 'return c.passkeysSupported();')).toBe(true);
      const registered = await inPage(page, `return c.registerPasskey({ email: 'grace@example.test', redirect: false, redirectTo: '/protected' });`);
      expect(registered).toEqual({ ok: true, status: 200, error: null, code: null, url: `${run.origin}/protected` });
      expect(await credentials()).toHaveLength(1);
      // The address only labels the passkey (nobody verified it): a new user, known by id.
      const first = await inPage<{ user: { id: string; email: string | null } }>(page, 'return c.getSession();');
      expect(first.user.id).toEqual(expect.any(String));
      expect(first.user.email).toBeNull();

      await inPage(page, 'await c.signOut({ redirect: false });');
      expect(await inPage(page, 'return c.getSession();')).toBeNull();
      const signedIn = await inPage(page, 'return c.signInWithPasskey({ redirect: false });');
      expect(signedIn).toMatchObject({ ok: true, error: null });
      expect(await inPage(page, 'return c.getSession();')).toMatchObject({ user: { id: first.user.id } });

      // A ceremony the server refuses (an e-mail it cannot take) is a result, not a navigation.
      const refused = await inPage(page, `return c.registerPasskey({ email: 'not an address', redirect: false });`);
      expect(refused).toMatchObject({ ok: false, status: 400, error: 'InvalidRequest', url: null });
    } finally {
      await close();
    }
  });

  it('signIn with the OIDC provider leaves for the IdP and comes back signed in', async () => {
    const context = await newContext();
    const problems: string[] = [];
    try {
      const page = await openHome(context, problems);
      const leaving = page.waitForURL((url) => url.origin !== run.origin);
      // The page navigates away while the call is pending: its promise is left behind.
      void inPage(page, `c.signIn('demo-idp', { redirectTo: '${run.origin}/protected' });`).catch(() => {});
      await leaving;
      await loginAtDemoIdp(page, run.origin);
      await page.waitForURL(`${run.origin}/protected`);
      expect(await page.locator('body').textContent()).toContain('Hello, Alice Liddell');
      await page.screenshot({ path: `${SHOTS}client-oidc-protected.png` });
      // The IdP's pages ask for a web font the fence blocks; nothing else may fail.
      expect(problems.filter((p) => !p.includes('ERR_BLOCKED_BY_CLIENT'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
