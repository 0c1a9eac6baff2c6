// The built-in pages as a reader of Arabic and of Japanese meets them: Chromium with that browser language walks
// the demo's sign-in page, a failed password, the e-mail link pages, the sign-out pages and the error page, and
// looks at each in light and dark, desktop and phone (contrast, focus, no sideways scroll). Arabic pages run right
// to left: the document says so and the form's labels stand at the right edge.
// Screenshots go to .data/screenshots/locales/ (gitignored): look at them after changing a page or a translation.
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEMO_EMAIL, DEMO_PASSWORD } from '../../examples/demo/config.js';
import { translatorFor } from '../../src/core/messages/request.js';
import type { Translator } from '../../src/core/messages/translator.js';
import { fenceToLoopback } from './peers/browser.js';
import { lookAt, problemsOf } from './peers/look.js';
import { useDemoInChromium } from './peers/demo.js';

const SHOTS = new URL('../../.data/screenshots/locales/', import.meta.url).pathname;
const CRED = 'form[data-credentials][action$="/callback/credentials"]';

describe('the pages in Arabic and Japanese', { timeout: 180_000 }, () => {
  const run = useDemoInChromium();

  async function open(locale: string): Promise<{ context: BrowserContext; page: Page; i18n: Translator }> {
    // The browser's own language setting: Chromium sends it as Accept-Language.
    const context = await run.browser.newContext({ locale, viewport: { width: 1280, height: 800 } });
    await fenceToLoopback(context);
    return { context, page: await context.newPage(), i18n: await translatorFor(locale, {}) };
  }

  const h1 = (page: Page) => page.locator('h1').innerText();
  const documentLanguage = (page: Page) => page.evaluate(() => [document.documentElement.lang, document.documentElement.dir, getComputedStyle(document.body).direction]);

  for (const locale of ['ar', 'ja']) {
    const dir = locale === 'ar' ? 'rtl' : 'ltr';

    it(`${locale}: sign-in, a wrong password, sign-out, the error page`, async () => {
      const { context, page, i18n } = await open(locale);
      try {
        await page.goto(`${run.origin}/auth/signin`);
        expect(await documentLanguage(page)).toEqual([locale, dir, dir]);
        expect(await h1(page)).toBe(i18n.t('signin.title'));
        expect(await page.locator('main button:visible').first().innerText()).toBe(i18n.t('signin.with', { provider: 'Demo IdP' }));
        expect(await page.locator('[data-webauthn]').getAttribute('data-text-cancelled')).toBe(i18n.t('passkey.cancelled'));
        if (dir === 'rtl') {
          // Right to left for real: a label's text starts at the right edge of its field, not the left.
          const [textRight, fieldRight, textLeft, fieldLeft] = await page.locator(`${CRED} label`).first().evaluate((label) => {
            const range = document.createRange();
            range.selectNodeContents(label);
            const text = range.getBoundingClientRect();
            const field = document.getElementById(label.getAttribute('for')!)!.getBoundingClientRect();
            return [text.right, field.right, text.left, field.left];
          });
          expect(Math.abs(textRight - fieldRight)).toBeLessThan(2);
          expect(textLeft - fieldLeft).toBeGreaterThan(20);
        }
        expect(problemsOf(await lookAt(page, SHOTS, `${locale}-signin`))).toEqual({});

        await page.fill(`${CRED} input[name=email]`, DEMO_EMAIL);
        await page.fill(`${CRED} input[name=password]`, 'not-the-password');
        await Promise.all([page.waitForNavigation(), page.click(`${CRED} button[type=submit]`)]);
        expect(await page.locator('[role=alert]').innerText()).toBe(i18n.t('signin.error.CredentialsSignin'));
        expect(problemsOf(await lookAt(page, SHOTS, `${locale}-signin-error`))).toEqual({});

        await page.fill(`${CRED} input[name=password]`, DEMO_PASSWORD);
        await Promise.all([page.waitForNavigation(), page.click(`${CRED} button[type=submit]`)]);
        await page.goto(`${run.origin}/auth/signout`);
        expect(await h1(page)).toBe(i18n.t('signout.title'));
        expect(await page.locator('main').innerText()).toContain(i18n.t('signout.question'));
        expect(problemsOf(await lookAt(page, SHOTS, `${locale}-signout`))).toEqual({});
        await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
        await page.goto(`${run.origin}/auth/signout`);
        expect(await page.locator('main').innerText()).toContain(i18n.t('signout.notSignedIn'));

        await page.goto(`${run.origin}/auth/error?error=Verification`);
        expect(await h1(page)).toBe(i18n.t('error.Verification.heading'));
        expect(await documentLanguage(page)).toEqual([locale, dir, dir]);
        expect(problemsOf(await lookAt(page, SHOTS, `${locale}-error`))).toEqual({});
      } finally {
        await context.close();
      }
    });

    it(`${locale}: the e-mail link: check your e-mail, the mail, the confirmation page`, async () => {
      const { context, page, i18n } = await open(locale);
      try {
        const address = `reader.${locale}@example.test`;
        await page.goto(`${run.origin}/auth/signin`);
        await page.fill('[data-webauthn] input[name=email]', address);
        await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: i18n.t('signin.emailLink') }).click()]);
        expect(await h1(page)).toBe(i18n.t('verify.title'));
        expect(await page.locator('main').innerText()).toContain(address);
        expect(problemsOf(await lookAt(page, SHOTS, `${locale}-verify-request`))).toEqual({});

        // The mail went out in the reader's language: the demo's mailbox shows its subject.
        const mails = await (await page.request.get(`${run.origin}/dev/mailbox`)).text();
        expect(mails).toContain(i18n.t('mail.subject', { host: new URL(run.origin).host }));
        const links = [...mails.matchAll(/href="([^"]*\/auth\/callback\/email[^"]*)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
        const link = links.find((l) => new URL(l).searchParams.get('email') === address)!;
        expect(link).toBeDefined();
        await page.goto(link);
        expect(await h1(page)).toContain(address);
        expect(await page.locator('main').innerText()).toContain(i18n.t('confirm.note'));
        expect(problemsOf(await lookAt(page, SHOTS, `${locale}-confirm`))).toEqual({});
      } finally {
        await context.close();
      }
    });
  }
});
