// The demo with no configuration offers password accounts: in Chromium, a person creates one from the sign-in page,
// finds the mail in the demo mailbox (/dev/mailbox), opens its link and is signed in; signed out, "Forgot your
// password?" sends a reset mail to the same mailbox, whose link sets a new password that then signs in. The demo's
// own account still signs in beside it.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { fenceToLoopback } from './peers/browser.js';
import { signInAsDemoUser, useDemoInChromium } from './peers/demo.js';

const FIRST = 'first horse battery staple';
const SECOND = 'second horse battery staple';

describe('password accounts in the demo', { timeout: 120_000 }, () => {
  const run = useDemoInChromium();

  /** The newest link in the demo mailbox that contains `part`, for `address`. */
  async function mailedLink(page: Page, address: string, part: string): Promise<string> {
    for (let i = 0; i < 50; i++) {
      await page.goto(`${run.origin}/dev/mailbox`);
      const cards = page.locator('article', { hasText: address });
      const links = await cards.locator('a.mail-link').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
      const found = links.find((l) => l.includes(part));
      if (found) return found;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no mail with ${part} for ${address} in the demo mailbox`);
  }

  it('sign up, the mail in /dev/mailbox, signed in; forgot password, reset by the mailed link, the new one signs in', async () => {
    const context = await run.browser.newContext();
    await fenceToLoopback(context);
    const page = await context.newPage();
    const email = `demo-${randomUUID()}@example.test`;
    const session = async () => ((await (await context.request.get(`${run.origin}/auth/session`)).json()) as { user?: { email?: string } } | null)?.user?.email;
    const submit = (form: string) => Promise.all([page.waitForNavigation(), page.locator(`${form} button[type=submit]`).first().click()]);
    try {
      await page.goto(`${run.origin}/auth/signin`);
      await Promise.all([page.waitForNavigation(), page.locator('a[data-signup]').click()]);
      expect(new URL(page.url()).pathname).toBe('/auth/signup/credentials');
      await page.fill('#signup-email', email);
      await page.fill('#signup-password', FIRST);
      await submit('main form');
      await page.goto(await mailedLink(page, email, '/auth/signup/credentials?token='));
      expect(await session()).toBe(email);

      await context.clearCookies();
      await page.goto(`${run.origin}/auth/signin`);
      await Promise.all([page.waitForNavigation(), page.locator('a[data-recover]').click()]);
      await page.fill('input[name=email]', email);
      await submit('main form');
      await page.goto(await mailedLink(page, email, '/recover/'));
      await page.fill('input[name=password]', SECOND);
      await submit('form:has(input[name=password])');
      expect(new URL(page.url()).pathname).toBe('/auth/signin');

      await page.fill('form[action$="/callback/credentials"] input[name=email]', email);
      await page.fill('form[action$="/callback/credentials"] input[name=password]', SECOND);
      await submit('form[action$="/callback/credentials"]');
      expect(await session()).toBe(email);

      // The demo's own account still signs in.
      await context.clearCookies();
      await signInAsDemoUser(page, run.origin);
      expect(await session()).toBe('demo@authchart.dev');
    } finally {
      await context.close();
    }
  });
});
