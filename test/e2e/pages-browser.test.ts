// The built-in pages and the demo as a person meets them: Chromium walks every sign-in kind of the demo (demo
// account, e-mail link, Demo IdP, passkey) and looks at each page in light and dark, at 1280x800 and 390x844:
// text, focus after an error, contrast computed from the rendered colours, no horizontal scroll, no failed request.
// Screenshots go to .data/screenshots/pages/ (gitignored): look at them after changing a page.
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEMO_EMAIL, DEMO_PASSWORD } from '../../examples/demo/config.js';
import { fenceToLoopback, isLoopbackUrl, newPageWithVirtualAuthenticator } from './peers/browser.js';
import { focusRing, lookAt, problemsOf } from './peers/look.js';
import { useDemoInChromium } from './peers/demo.js';

// The demo account's form (the Password provider's, with its sign-up and recovery links, comes after it).
const CRED = 'form[data-credentials][action$="/callback/credentials"]';
const CRED_EMAIL = `${CRED} input[name=email]`;
const CRED_PASSWORD = `${CRED} input[name=password]`;
const SHOTS = new URL('../../.data/screenshots/pages/', import.meta.url).pathname;

describe('the pages and the demo as a person sees them', { timeout: 120_000 }, () => {
  const run = useDemoInChromium();
  /** Requests that failed or were refused (4xx/5xx), over every page of every test; expected ones are listed. */
  const failed: string[] = [];

  function watch(page: Page): Page {
    // ERR_ABORTED is the browser dropping a request it no longer needs (a navigation, an autofill request a
    // ceremony replaced), not a failure.
    page.on('requestfailed', (r) => r.failure()?.errorText !== 'net::ERR_ABORTED' && failed.push(`${r.failure()?.errorText} ${r.url()}`));
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    page.on('request', (r) => {
      if (!isLoopbackUrl(r.url())) failed.push(`off-machine ${r.url()}`);
    });
    return page;
  }

  async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await run.browser.newContext({ viewport: { width: 1280, height: 800 } });
    await fenceToLoopback(context);
    return { context, page: watch(await context.newPage()) };
  }

  /** The visible text of the page's main content, spaces collapsed. */
  const textOf = async (page: Page) => (await page.locator('body').innerText()).replace(/\s+/g, ' ');

  async function signInWithPassword(page: Page, password = DEMO_PASSWORD): Promise<void> {
    await page.fill(CRED_EMAIL, DEMO_EMAIL);
    await page.fill(CRED_PASSWORD, password);
    await Promise.all([page.waitForNavigation(), page.click(`${CRED} button[type=submit]`)]);
  }

  it('the sign-in page: providers first, one primary action, distinct labels, fields that help, readable everywhere', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${run.origin}/auth/signin`);
      expect(await page.locator('h1').innerText()).toBe('Sign in');
      const buttons = await page.locator('main button:visible').allInnerTexts();
      expect(buttons[0]).toBe('Sign in with Demo IdP');
      // One loud button; the rest are outlined.
      expect(await page.locator('main .button.primary:visible').count()).toBe(1);
      // No two fields of a form share a label.
      for (const form of await page.locator('main form').all()) {
        const labels = await form.locator('label:visible').allInnerTexts();
        expect(new Set(labels).size).toBe(labels.length);
      }
      const email = page.locator(CRED_EMAIL);
      expect(await email.getAttribute('placeholder')).not.toBe(DEMO_EMAIL);
      // One address field: the password form's, which the e-mail link and passkeys share (passkeys in its autofill).
      expect(await email.evaluate((e: HTMLInputElement) => [e.required, e.autocomplete, e.inputMode])).toEqual([true, 'username webauthn', 'email']);
      expect(await page.locator(CRED_PASSWORD).evaluate((e: HTMLInputElement) => [e.required, e.autocomplete])).toEqual([true, 'current-password']);
      // One address field per password form (the demo account's, the Password provider's).
      expect(await page.locator('main input[type=email]').count()).toBe(2);
      expect(await page.locator('[data-webauthn] input[name=email]').evaluate((e) => e === document.querySelector('form[data-credentials] input[name=email]'))).toBe(true);
      // Every way to sign in is on the first screen at 1280x800.
      const box = await page.locator('[data-webauthn] button[data-action=authenticate]').boundingBox();
      expect(box!.y + box!.height).toBeLessThanOrEqual(800);
      expect(problemsOf(await lookAt(page, SHOTS, 'signin'))).toEqual({});
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        await page.locator(CRED_EMAIL).focus();
        await page.keyboard.press('Tab');
        expect(await focusRing(page)).toEqual([]);
      }
    } finally {
      await context.close();
    }
  });

  it('a wrong password keeps the typed address, says what failed and puts focus on the password', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${run.origin}/auth/signin`);
      await signInWithPassword(page, 'not-the-password');
      expect(await page.locator('[role=alert]').innerText()).toMatch(/sign in failed/i);
      expect(await page.locator(CRED_EMAIL).inputValue()).toBe(DEMO_EMAIL);
      expect(await page.evaluate(() => [document.activeElement?.closest('form')?.hasAttribute('data-credentials'), document.activeElement?.getAttribute('name')])).toEqual([true, 'password']);
      // The address is not put in the URL.
      expect(page.url()).not.toContain('demo%40');
      expect(problemsOf(await lookAt(page, SHOTS, 'signin-error'))).toEqual({});
    } finally {
      await context.close();
    }
  });

  it('signs in with the demo account; the home page says how; a signed-in visitor of the sign-in page is told; sign-out only for the signed in', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${run.origin}/auth/signin`);
      await signInWithPassword(page);
      expect(new URL(page.url()).pathname).toBe('/');
      const home = await textOf(page);
      expect(home).toContain(`Signed in as Demo User (${DEMO_EMAIL})`);
      expect(home).toMatch(/You signed in with the demo account's password/);
      expect(home).toMatch(/Add a passkey/);
      expect(home).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe('rgb(255, 255, 255)');
      expect(problemsOf(await lookAt(page, SHOTS, 'home-signed-in'))).toEqual({});

      await page.goto(`${run.origin}/auth/signin`);
      expect(await textOf(page)).toContain(`You are signed in as ${DEMO_EMAIL}`);
      expect(await page.getByRole('link', { name: 'Continue' }).count()).toBe(1);
      expect(problemsOf(await lookAt(page, SHOTS, 'signin-signed-in'))).toEqual({});

      await page.goto(`${run.origin}/protected`);
      expect(await textOf(page)).toContain('Demo User');
      expect(problemsOf(await lookAt(page, SHOTS, 'protected'))).toEqual({});

      await page.goto(`${run.origin}/auth/signout`);
      expect(await textOf(page)).toContain(`Signed in as ${DEMO_EMAIL}`);
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
      await page.goto(`${run.origin}/auth/signout`);
      expect(await textOf(page)).toContain('You are not signed in');
      expect(await page.locator('button[type=submit]').count()).toBe(0);
      expect(problemsOf(await lookAt(page, SHOTS, 'signout-signed-out'))).toEqual({});
    } finally {
      await context.close();
    }
  });

  it('/protected signed out says why; the return address it saved applies to that sign-in only', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${run.origin}/protected`);
      expect(new URL(page.url()).pathname).toBe('/auth/signin');
      expect(await page.locator('[role=status],[role=alert]').first().innerText()).toMatch(/sign in to see that page/i);
      await signInWithPassword(page);
      expect(new URL(page.url()).pathname).toBe('/protected');
      await page.goto(`${run.origin}/auth/signout`);
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
      await page.goto(`${run.origin}/auth/signin`);
      await signInWithPassword(page);
      expect(new URL(page.url()).pathname).toBe('/');
    } finally {
      await context.close();
    }
  });

  it('the mailbox tells its reader a new mail came, without reloading what they opened', async () => {
    const reader = await newPage();
    const sender = await newPage();
    const address = `new-mail-${process.pid}@example.test`;
    try {
      await reader.page.goto(`${run.origin}/dev/mailbox`);
      const notice = reader.page.locator('#new-mail');
      expect(await notice.isVisible()).toBe(false);
      // Something the reader opened stays open: the page is not reloaded behind their back.
      await reader.page.evaluate(() => document.body.setAttribute('data-opened', 'yes'));

      await sender.page.goto(`${run.origin}/auth/signin`);
      await sender.page.fill('[data-webauthn] input[name=email]', address);
      await Promise.all([sender.page.waitForNavigation(), sender.page.getByRole('button', { name: 'Email me a sign-in link' }).click()]);

      // The page asks every 3 s.
      await notice.waitFor({ state: 'visible', timeout: 15_000 });
      expect(await notice.innerText()).toMatch(/New mail arrived/);
      expect(await reader.page.evaluate(() => document.body.dataset.opened)).toBe('yes');
      expect(await textOf(reader.page)).not.toContain(address);
      await Promise.all([reader.page.waitForNavigation(), notice.getByRole('link', { name: 'Show it' }).click()]);
      expect(await textOf(reader.page)).toContain(address);
      expect(await reader.page.locator('#new-mail').isVisible()).toBe(false);
    } finally {
      await reader.context.close();
      await sender.context.close();
    }
  });

  /** The newest code mailed to `address`, read from the demo's mailbox (its SMTP catcher) in a page of its own. */
  async function mailedCode(address: string): Promise<{ code: string; link: string }> {
    const { context, page } = await newPage();
    try {
      await page.goto(`${run.origin}/dev/mailbox`);
      const mail = page.locator('article', { hasText: address }).first();
      const text = await mail.locator('pre').textContent();
      const code = /enter this code[^\n]*\n\s*(\d{6})/i.exec(text ?? '')?.[1];
      if (!code) throw new Error(`no code in the mail to ${address}: ${text}`);
      return { code, link: (await mail.locator('a[href*="/auth/callback/email"]').first().getAttribute('href'))! };
    } finally {
      await context.close();
    }
  }

  it('e-mail code: check-your-email asks for the code mailed over SMTP; a wrong one says so; the right one signs in and spends the link', async () => {
    const { context, page } = await newPage();
    const address = `code-${process.pid}@example.test`;
    try {
      await page.goto(`${run.origin}/auth/signin`);
      await page.fill('[data-webauthn] input[name=email]', address);
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Email me a sign-in link' }).click()]);
      expect(await textOf(page)).toContain(address);
      const field = page.getByLabel('Code from the email');
      expect(await field.getAttribute('autocomplete')).toBe('one-time-code');
      expect(problemsOf(await lookAt(page, SHOTS, 'email-code'))).toEqual({});

      const { code, link } = await mailedCode(address);
      await field.fill(code === '000000' ? '111111' : '000000');
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
      expect(await textOf(page)).toMatch(/That code did not match. 4 tries left./);
      expect(problemsOf(await lookAt(page, SHOTS, 'email-code-wrong'))).toEqual({});

      await page.getByLabel('Code from the email').fill(code);
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
      expect(await textOf(page)).toContain(address);
      expect(problemsOf(await lookAt(page, SHOTS, 'email-code-signed-in'))).toEqual({});

      // The link in the same mail went with the code.
      const other = await newPage();
      try {
        await other.page.goto(link);
        expect(await textOf(other.page)).toMatch(/been used already, expired/i);
      } finally {
        await other.context.close();
      }
      failed.splice(0);
    } finally {
      await context.close();
    }
  });

  it('e-mail link: the code page names the address; the mailed link signs in once; a used link says so at once', async () => {
    const { context, page } = await newPage();
    const address = 'a.rather.long.address.for.wrapping@subdomain.example-organisation.test';
    try {
      await page.goto(`${run.origin}/auth/signin`);
      await page.fill('[data-webauthn] input[name=email]', address);
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Email me a sign-in link' }).click()]);
      expect(await textOf(page)).toContain(address);
      expect(problemsOf(await lookAt(page, SHOTS, 'verify-request'))).toEqual({});

      await page.goto(`${run.origin}/`);
      await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: /mailbox/i }).first().click()]);
      expect(await page.locator('meta[http-equiv=refresh]').count()).toBe(0);
      expect(await textOf(page)).toContain(address);
      expect(problemsOf(await lookAt(page, SHOTS, 'mailbox'))).toEqual({});
      const link = (await page.locator('article a[href*="/auth/callback/email"]').first().getAttribute('href'))!;

      await page.goto(link);
      expect(await textOf(page)).toContain(address);
      expect(problemsOf(await lookAt(page, SHOTS, 'confirm-email'))).toEqual({});
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
      expect(await textOf(page)).toContain(address);
      expect(await textOf(page)).toMatch(/You signed in with a link sent to/);

      await page.goto(link);
      const used = await textOf(page);
      expect(used).toMatch(/been used already, expired/i);
      expect(used).not.toContain(`Sign in as ${address}`);
      expect(problemsOf(await lookAt(page, SHOTS, 'link-used'))).toEqual({});
      failed.splice(0);
    } finally {
      await context.close();
    }
  });

  it('Demo IdP: its page is the demo style with one cancel button; cancelling says so and names the provider; then signs in', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${run.origin}/auth/signin`);
      await Promise.all([page.waitForURL((u) => u.hostname === '127.0.0.1'), page.getByRole('button', { name: 'Sign in with Demo IdP' }).click()]);
      expect(await page.getByRole('button', { name: /cancel/i }).count()).toBe(1);
      expect(await page.locator('text=/debug|session details/i').count()).toBe(0);
      expect(problemsOf(await lookAt(page, SHOTS, 'idp-login'))).toEqual({});
      await Promise.all([page.waitForURL((u) => u.origin === run.origin), page.getByRole('button', { name: /cancel/i }).click()]);
      const alert = await page.locator('[role=alert]').innerText();
      expect(alert).toMatch(/cancelled/i);
      expect(alert).toContain('Demo IdP');
      expect(problemsOf(await lookAt(page, SHOTS, 'signin-cancelled'))).toEqual({});
      failed.splice(0);

      await Promise.all([page.waitForURL((u) => u.hostname === '127.0.0.1'), page.getByRole('button', { name: 'Sign in with Demo IdP' }).click()]);
      await page.fill('input[name=login]', 'alice');
      await page.fill('input[name=password]', 'any');
      await page.getByRole('button', { name: /^(sign in|continue)/i }).first().click();
      await page.waitForURL(`${run.origin}/`);
      const home = await textOf(page);
      expect(home).toContain('alice@demo-idp.test');
      expect(home).toMatch(/You signed in with Demo IdP/);
    } finally {
      await context.close();
    }
  });

  it('passkeys: a new address gets a passkey and is signed in; the home page says so', async () => {
    const tab = await newPageWithVirtualAuthenticator(run.browser);
    const page = watch(tab.page);
    try {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${run.origin}/auth/signin`);
      await page.fill('[data-webauthn] input[name=email]', 'passkey-person@example.test');
      await Promise.all([page.waitForURL(`${run.origin}/`), page.click('[data-webauthn] button[data-action=register]')]);
      expect(await textOf(page)).toMatch(/You signed in with a passkey/);
      expect(await tab.credentials()).toHaveLength(1);
      // "Add a passkey" on the home page: this device holds this user's passkey already, and says so.
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await expect.poll(() => page.locator('[data-webauthn-status]').textContent()).toMatch(/already holds a passkey/);
      expect(await tab.credentials()).toHaveLength(1);
    } finally {
      await tab.close();
    }
  });

  it('passkeys: a user signed in with a password adds one from the home page', async () => {
    const tab = await newPageWithVirtualAuthenticator(run.browser);
    const page = watch(tab.page);
    try {
      await page.goto(`${run.origin}/auth/signin`);
      await signInWithPassword(page);
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Add a passkey' }).click()]);
      await page.waitForLoadState();
      expect(await tab.credentials()).toHaveLength(1);
      expect(await textOf(page)).toMatch(/passkey \(webauthn\)/);
    } finally {
      await tab.close();
    }
  });

  it('the demo has a favicon and no request failed or left the machine', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${run.origin}/`);
      const icon = await page.request.get(new URL((await page.locator('link[rel=icon]').getAttribute('href'))!, run.origin).href);
      expect(icon.status()).toBe(200);
      expect(icon.headers()['content-type']).toMatch(/^image\//);
      expect(failed).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
