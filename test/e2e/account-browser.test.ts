// The account page in Chromium (issue 30), on the demo: a credentials user links the Demo IdP from the account page,
// signs out, signs in with the Demo IdP as the same user, and unlinks it again. Screenshots in .data/screenshots/.
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_EMAIL } from '../../examples/demo/config.js';
import { fenceToLoopback, hasChromium } from './peers/browser.js';
import { loginAtDemoIdp, signInAsDemoUser, useDemoInChromium } from './peers/demo.js';

const SHOTS = new URL('../../.data/screenshots/', import.meta.url).pathname;

describe.skipIf(!hasChromium())('the account page: link, sign in with, and unlink the Demo IdP', { timeout: 120_000 }, () => {
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

  it('links the Demo IdP to the demo user, signs in with it, and unlinks it', async () => {
    const context = await run.browser.newContext();
    await fenceToLoopback(context);
    const page = await context.newPage();
    await signInAsDemoUser(page, run.origin);

    await Promise.all([page.waitForNavigation(), page.click('a[data-account]')]);
    expect(new URL(page.url()).pathname).toBe('/auth/account');
    expect(await idpRow(page).innerText()).toContain('not linked');
    await page.screenshot({ path: `${SHOTS}account-before-link.png`, fullPage: true });

    await page.click('[data-account-action="link-demo-idp"]');
    await atTheIdp(page);
    await page.waitForURL(`${run.origin}/auth/account`);
    expect(await idpRow(page).innerText()).toContain('linked');
    expect(await idpRow(page).innerText()).not.toContain('not linked');
    expect(await page.locator('body').innerText()).toContain(`Signed in as ${DEMO_EMAIL}`);
    await page.screenshot({ path: `${SHOTS}account-linked.png`, fullPage: true });

    // Signed out, the Demo IdP now signs in as the demo user.
    await context.clearCookies();
    await page.goto(`${run.origin}/auth/signin`);
    await page.click('form[action$="/signin/demo-idp"] button');
    await atTheIdp(page);
    await page.waitForURL((url) => url.origin === run.origin && !url.pathname.startsWith('/auth/callback'));
    await page.goto(`${run.origin}/`);
    expect(await page.locator('body').innerText()).toContain('Signed in as Demo User');

    await page.goto(`${run.origin}/auth/account`);
    await Promise.all([page.waitForNavigation(), page.click('[data-account-action="unlink-demo-idp"]')]);
    expect(new URL(page.url()).pathname).toBe('/auth/account');
    expect(await idpRow(page).innerText()).toContain('not linked');
    await page.screenshot({ path: `${SHOTS}account-unlinked.png`, fullPage: true });
    await context.close();
  });
});
