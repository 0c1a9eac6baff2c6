// The e-mail code page's dead ends, walked in Chromium with script off (the countdown must work without it), in
// English, Arabic and Japanese, each state looked at on desktop and phone, light and dark: a wrong code (the tries
// left said), "send a new code" within the cooldown (the same page, counting down, the first code still usable), the
// lock-out after too many wrong codes (said in terms of codes, the address kept, a new code the one action), then a
// new code after the cooldown, which signs in. Every state: readable, no sideways scroll, targets of 24 px at least,
// no raw error id. Screenshots in /tmp/email-code-shots.
import { H3, serve } from 'h3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translatorFor } from '../../src/core/messages/request.js';
import { createAuthHandler } from '../../src/index.js';
import { Email, type SendVerificationRequestParams } from '../../src/providers/email.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { fenceToLoopback, launchChromium } from './peers/browser.js';
import { lookAt, problemsOf, smallTargets } from './peers/look.js';
import { freePort } from './peers/net.js';

const SHOTS = '/tmp/email-code-shots';
const COOLDOWN = 5;
const TRIES = 3;

/** The countdown's value now (the animated integer behind the CSS counter), or null when the page shows none. */
function countdown(page: Page): Promise<number | null> {
  return page.evaluate(() => {
    const el = document.querySelector('.countdown');
    if (!el || getComputedStyle(el.closest('.wait')!).visibility === 'hidden') return null;
    return Number(getComputedStyle(el).getPropertyValue('--wait'));
  });
}

describe('the e-mail code page in Chromium, without script', { timeout: 300_000 }, () => {
  const pg = useMigratedPGlite();
  const outbox: SendVerificationRequestParams[] = [];
  let browser: Browser;
  let origin: string;
  let server: ReturnType<typeof serve>;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    const app = new H3();
    app.all(
      '/auth/**',
      createAuthHandler({
        secret: 'a-test-secret-that-is-long-enough-for-hkdf-0123456789',
        trustHost: true,
        adapter: pg.adapter,
        providers: [Email({ sendVerificationRequest: (params) => void outbox.push(params), code: { resendCooldown: COOLDOWN, maxAttempts: TRIES } })],
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
  });

  for (const locale of ['en', 'ar', 'ja']) {
    it(`${locale}: a wrong code, a new code asked too soon, the lock-out, a new code that signs in`, async () => {
      const i18n = await translatorFor(locale, {});
      const context = await browser.newContext({ locale, javaScriptEnabled: false });
      await fenceToLoopback(context);
      const page = await context.newPage();
      const email = `walk-${locale}@code-browser.test`;
      const codes = () => outbox.filter((m) => m.identifier === email).map((m) => m.code!);
      const wrong = () => (codes().at(-1) === '000000' ? '111111' : '000000');
      const text = () => page.locator('main').innerText();
      /** Looks at the state in the four views, then checks what every state must have. */
      const look = async (state: string) => {
        expect(problemsOf(await lookAt(page, SHOTS, `${locale}-${state}`)), state).toEqual({});
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 844 });
          expect(await smallTargets(page), `${state} at ${width}`).toEqual([]);
        }
        const said = await text();
        expect(said, `${state}: no raw error id`).not.toMatch(/Error code|Verification|RateLimited|Default/);
        expect(said, `${state}: the address kept`).toContain(email);
      };
      const submitCode = async (code: string) => {
        await page.fill('input[name=code]', code);
        await Promise.all([page.waitForNavigation(), page.locator('form:has(input[name=code]) button[type=submit]').click()]);
      };
      const pressResend = () => Promise.all([page.waitForNavigation(), page.getByRole('button', { name: i18n.t('emailCode.resend') }).click()]);
      try {
        await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`);
        await page.fill('input[type=email]', email);
        await Promise.all([page.waitForNavigation(), page.locator('form[action$="/signin/email"] button[type=submit]').click()]);
        expect(codes()).toHaveLength(1);

        // A wrong code: the tries left, on the code page.
        await submitCode(wrong());
        expect(await text()).toContain(i18n.t('emailCode.wrong', { count: TRIES - 1 }));
        await look('wrong-code');

        // "Send a new code" at once: the same page, a countdown that runs without script, nothing mailed.
        await pressResend();
        expect(codes()).toHaveLength(1);
        expect(await page.locator('input[name=code]').count()).toBe(1);
        const first = await countdown(page);
        expect(first).toBeGreaterThanOrEqual(COOLDOWN - 2);
        expect(first).toBeLessThanOrEqual(COOLDOWN);
        await new Promise((r) => setTimeout(r, 2100));
        const later = await countdown(page);
        expect(later, 'the countdown runs').toBeLessThanOrEqual(first! - 2);
        await look('resend-cooldown');

        // The remaining tries wrong: the lock-out says so in terms of codes, and offers a new code for the address.
        for (let i = 1; i < TRIES; i++) await submitCode(wrong());
        const locked = await text();
        expect(locked).toContain(i18n.t('emailCode.spentTries'));
        expect(locked).not.toContain(i18n.t('error.Verification.message'));
        expect(await page.locator('input[name=code]').count()).toBe(0);
        expect(await page.getByRole('button', { name: i18n.t('emailCode.resend') }).count()).toBe(1);
        await look('locked');

        // After the cooldown, the new code goes to the same address and signs in.
        await new Promise((r) => setTimeout(r, COOLDOWN * 1000));
        await pressResend();
        expect(codes()).toHaveLength(2);
        await look('new-code');
        await submitCode(codes()[1]);
        expect(new URL(page.url()).pathname).toBe('/');
        const session = await (await context.request.get(`${origin}/auth/session`)).json();
        expect(session?.user?.email).toBe(email);
      } finally {
        await context.close();
      }
    });
  }
});
