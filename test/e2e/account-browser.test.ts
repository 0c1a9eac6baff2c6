// The account page in Chromium (issue 30), on the demo, as one journey in one browser session: a credentials user
// links the Demo IdP from the account page, signs out, signs in with the Demo IdP as the same user, unlinks it, and
// signs in with an e-mail code read from the demo's SMTP catcher. Each page is looked at in light, dark, desktop and
// phone (contrast, no sideways scroll); screenshots in .data/screenshots/.
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_EMAIL } from '../../examples/demo/config.js';
import { fenceToLoopback } from './peers/browser.js';
import { lookAt, problemsOf } from './peers/look.js';
import { loginAtDemoIdp, signInAsDemoUser, useDemoInChromium } from './peers/demo.js';

const SHOTS = new URL('../../.data/screenshots/', import.meta.url).pathname;

describe('the account page: link, sign in with, and unlink the Demo IdP, then an e-mail code', { timeout: 180_000 }, () => {
  const run = useDemoInChromium();

  beforeAll(() => {
    mkdirSync(SHOTS, { recursive: true });
  });

  /** Logs in at the Demo IdP as alice and comes back. */
  async function atTheIdp(page: Page): Promise<void> {
    await page.waitForURL((url) => url.origin !== run.origin);
    await loginAtDemoIdp(page, run.origin);
  }

  const idpRow = (page: Page) => page.locator('[data-linked-accounts] li[data-provider="demo-idp"]');

  /** The newest code mailed to `address`, read from the demo's mailbox (its SMTP catcher) in a tab of the same session. */
  async function mailedCode(page: Page, address: string): Promise<string> {
    const tab = await page.context().newPage();
    try {
      await tab.goto(`${run.origin}/dev/mailbox`);
      const text = await tab.locator('article', { hasText: address }).first().locator('pre').textContent();
      const code = /enter this code[^\n]*\n\s*(\d{6})/i.exec(text ?? '')?.[1];
      if (!code) throw new Error(`no code in the mail to ${address}: ${text}`);
      return code;
    } finally {
      await tab.close();
    }
  }

  const bodyText = (page: Page) => page.locator('body').innerText();

  it('links the Demo IdP to the demo user, signs in with it, unlinks it, and signs in with an e-mail code', async () => {
    const context = await run.browser.newContext();
    await fenceToLoopback(context);
    const page = await context.newPage();
    await signInAsDemoUser(page, run.origin);

    await Promise.all([page.waitForNavigation(), page.click('a[data-account]')]);
    expect(new URL(page.url()).pathname).toBe('/auth/account');
    expect(await idpRow(page).innerText()).toContain('not linked');
    expect(problemsOf(await lookAt(page, SHOTS, 'account-before-link'))).toEqual({});

    await page.click('[data-account-action="link-demo-idp"]');
    await atTheIdp(page);
    await page.waitForURL(`${run.origin}/auth/account`);
    expect(await idpRow(page).innerText()).toContain('linked');
    expect(await idpRow(page).innerText()).not.toContain('not linked');
    expect(await bodyText(page)).toContain(`Signed in as ${DEMO_EMAIL}`);
    expect(problemsOf(await lookAt(page, SHOTS, 'account-linked'))).toEqual({});

    // Signed out, the Demo IdP now signs in as the demo user.
    await context.clearCookies();
    await page.goto(`${run.origin}/auth/signin`);
    await page.click('form[action$="/signin/demo-idp"] button');
    await atTheIdp(page);
    await page.waitForURL((url) => url.origin === run.origin && !url.pathname.startsWith('/auth/callback'));
    await page.goto(`${run.origin}/`);
    expect(await bodyText(page)).toContain('Signed in as Demo User');

    await page.goto(`${run.origin}/auth/account`);
    await Promise.all([page.waitForNavigation(), page.click('[data-account-action="unlink-demo-idp"]')]);
    expect(new URL(page.url()).pathname).toBe('/auth/account');
    expect(await idpRow(page).innerText()).toContain('not linked');
    expect(problemsOf(await lookAt(page, SHOTS, 'account-unlinked'))).toEqual({});

    // Signed out again: an e-mail code to the demo user's address, read from the SMTP catcher, signs them in.
    await context.clearCookies();
    await page.goto(`${run.origin}/auth/signin`);
    await page.fill('[data-webauthn] input[name=email]', DEMO_EMAIL);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Email me a sign-in link' }).click()]);
    const field = page.getByLabel('Code from the email');
    expect(await field.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await page.locator('[data-form-alternative]').innerText()).toBe('Send a new code');
    expect(problemsOf(await lookAt(page, SHOTS, 'account-email-code'))).toEqual({});
    await field.fill(await mailedCode(page, DEMO_EMAIL));
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.goto(`${run.origin}/auth/account`);
    expect(await bodyText(page)).toContain(`Signed in as ${DEMO_EMAIL}`);
    expect(await idpRow(page).innerText()).toContain('not linked');
    expect(problemsOf(await lookAt(page, SHOTS, 'account-after-email-code'))).toEqual({});
    await context.close();
  });
});
