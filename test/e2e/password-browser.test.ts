// The Password provider walked in Chromium, in English, Arabic and Japanese, on embedded PostgreSQL (PGlite) with the
// mails going through a real SMTP server: a person signs up on the built-in page, proves the address by the mailed
// link (by the mailed code in Arabic), is signed in, signs out, follows "Forgot your password?" from the sign-in
// page, gets the reset mail, sets a new password (by the link; by the code in Arabic), and signs in with it while the
// old one is refused. Every page: readable in the four views, no sideways scroll, targets of 24 px at least, no raw
// error id. Screenshots in /tmp/password-shots.
import { H3, serve } from 'h3';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translatorFor } from '../../src/core/messages/request.js';
import { createAuthHandler } from '../../src/index.js';
import { Email } from '../../src/providers/email.js';
import { argon2id, Password } from '../../src/providers/password/index.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { fenceToLoopback, launchChromium } from './peers/browser.js';
import { lookAt, problemsOf, smallTargets } from './peers/look.js';
import { freePort } from './peers/net.js';
import { startSmtpServer, type ReceivedMail, type SmtpHarness } from './peers/smtp.js';

const SHOTS = '/tmp/password-shots';
const FIRST = 'first horse battery staple';
const SECOND = 'second horse battery staple';

/** The six-digit code of a mail (sign-up or reset). */
function codeOf(mail: ReceivedMail): string {
  const found = /(?:^|\n)\s*(\d{6})\s*(?:\n|$)/.exec(mail.text);
  if (!found) throw new Error(`no code in the mail: ${mail.text}`);
  return found[1]!;
}

describe('the Password provider in Chromium', { timeout: 300_000 }, () => {
  const pg = useMigratedPGlite();
  let smtp: SmtpHarness;
  let browser: Browser;
  let origin: string;
  let server: ReturnType<typeof serve>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    const port = await freePort();
    origin = `http://localhost:${port}`;
    const mailServer = { host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true };
    const app = new H3();
    app.all(
      '/auth/**',
      createAuthHandler({
        secret: 'a-test-secret-that-is-long-enough-for-hkdf-0123456789',
        trustHost: true,
        adapter: pg.adapter,
        providers: [
          Password({ hasher: argon2id({ memoryCost: 1024, timeCost: 1 }), mail: { server: mailServer, from: 'auth@password-browser.test' } }),
          Email({ server: mailServer, from: 'auth@password-browser.test' }),
        ],
        throttle: { enabled: false },
      }),
    );
    app.get('/', () => new Response('<!doctype html><title>home</title><p>home</p>', { headers: { 'content-type': 'text/html' } }));
    server = serve(app, { port, hostname: '127.0.0.1', silent: true });
    await server.ready();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close(true);
    await smtp?.stop();
  });

  for (const locale of ['en', 'ar', 'ja']) {
    const byCode = locale === 'ar';
    it(`${locale}: sign up (proven by ${byCode ? 'code' : 'link'}), sign out, forgot password, the new password signs in`, async () => {
      const i18n = await translatorFor(locale, {});
      const context = await browser.newContext({ locale });
      await fenceToLoopback(context);
      const page = await context.newPage();
      const email = `walk-${locale}@password-browser.test`;
      const text = () => page.locator('main').innerText();
      const session = async () => ((await (await context.request.get(`${origin}/auth/session`)).json()) as { user?: { email?: string } } | null)?.user?.email;
      /** Looks at the page in the four views, then checks what every page must have. */
      const look = async (state: string) => {
        expect(problemsOf(await lookAt(page, SHOTS, `${locale}-${state}`)), state).toEqual({});
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 844 });
          expect(await smallTargets(page), `${state} at ${width}`).toEqual([]);
        }
        expect(await text(), `${state}: no raw error id`).not.toMatch(/Error code|Verification|CredentialsSignin|RateLimited|Default|\b[a-z]+\.[a-zA-Z]+\.[a-zA-Z]+\b/);
        expect(await page.locator('html').getAttribute('lang'), state).toBe(locale);
        if (locale === 'ar') expect(await page.locator('html').getAttribute('dir'), state).toBe('rtl');
      };
      const submit = (form: string) => Promise.all([page.waitForNavigation(), page.locator(`${form} button[type=submit]`).first().click()]);
      const signIn = async (password: string) => {
        await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`);
        await page.fill('form[data-credentials] input[name=email]', email);
        await page.fill('form[data-credentials] input[name=password]', password);
        await submit('form[data-credentials]');
      };
      try {
        // The sign-in page offers sign-up; the sign-up page, then "check your mail".
        await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`);
        await look('signin');
        await Promise.all([page.waitForNavigation(), page.locator('a[data-signup]').click()]);
        expect(new URL(page.url()).pathname).toBe('/auth/signup/password');
        expect(await text()).toContain(i18n.t('signup.title'));
        await look('signup');
        await page.fill('#signup-email', email);
        await page.fill('#signup-password', 'short');
        await submit('main form');
        expect(await text()).toContain(i18n.t('signup.error.too_short', { min: 8 }));
        await look('signup-too-short');
        await page.fill('#signup-name', `Walker ${locale}`);
        await page.fill('#signup-password', FIRST);
        await submit('main form');
        expect(await text()).toContain(i18n.t('signup.checkTitle'));
        await look('signup-check');
        const proof = await smtp.waitForMessage(email);
        expect(proof.text).not.toContain(FIRST);

        if (byCode) {
          await page.fill('input[name=code]', codeOf(proof));
          await submit('form:has(input[name=code])');
        } else {
          await page.goto(proof.links.find((l) => l.includes('/auth/signup/password?token='))!);
        }
        expect(await session(), 'signed in after proving the address').toBe(email);

        // Sign out on the built-in page.
        await page.goto(`${origin}/auth/signout`);
        await look('signout');
        await submit('main form');
        expect(await session()).toBeUndefined();

        // "Forgot your password?" on the sign-in page: the address, the mail, a new password.
        await page.goto(`${origin}/auth/signin`);
        await Promise.all([page.waitForNavigation(), page.locator('a[data-recover]').click()]);
        expect(await text()).toContain(i18n.t('recovery.title'));
        await look('recover');
        await page.fill('input[name=email]', email);
        await submit('main form');
        expect(await text()).toContain(i18n.t('recovery.sent', { address: email }).slice(0, 12));
        await look('recover-sent');
        const reset = await smtp.waitForMessage(email);
        if (byCode) {
          await page.fill('input[name=code]', codeOf(reset));
          await submit('form:has(input[name=code])');
        } else {
          await page.goto(reset.links.find((l) => l.includes('/recover/'))!);
        }
        expect(await text()).toContain(i18n.t('recovery.newTitle'));
        await look('recover-new');
        await page.fill('input[name=password]', 'short');
        await submit('form:has(input[name=password])');
        expect(await text()).toContain(i18n.t('recovery.tooShort', { min: 8 }));
        await look('recover-too-short');
        await page.fill('input[name=password]', SECOND);
        await submit('form:has(input[name=password])');
        expect(new URL(page.url()).pathname).toBe('/auth/signin');
        expect(await text()).toContain(i18n.t('recovery.done'));
        await look('recover-done');
        const notice = await smtp.waitForMessage(email);
        expect(notice.subject).toBe(i18n.t('changedMail.subject', { host: new URL(origin).host }));

        // The old password is refused, the new one signs in.
        await signIn(FIRST);
        expect(await session()).toBeUndefined();
        await look('signin-refused');
        await signIn(SECOND);
        expect(new URL(page.url()).pathname).toBe('/');
        expect(await session()).toBe(email);
      } finally {
        await context.close();
      }
    });
  }
});
