// The sign-in page's one clear path, walked in Chromium as a person would, in English, Arabic and Japanese, on a
// desktop and a 390 px phone, light and dark: a bad address, a missing field and a provider with a very long name.
// Each state must have one solid (primary) button, one address field, the value typed kept, the error right under
// its field, no raw JSON, no sideways scroll, and every target at least 24 px (WCAG 2.5.8).
// Screenshots go to /tmp/signin-shots (look at them after changing the page).
import { mkdirSync } from 'node:fs';
import { H3, serve } from 'h3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translatorFor } from '../../src/core/messages/request.js';
import { createAuthHandler } from '../../src/index.js';
import { Credentials } from '../../src/providers/credentials.js';
import { Email, type SendVerificationRequestParams } from '../../src/providers/email.js';
import { OAuth } from '../../src/providers/oauth.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { fenceToLoopback, launchChromium } from './peers/browser.js';
import { VIEWS } from './peers/look.js';
import { freePort } from './peers/net.js';

const SHOTS = '/tmp/signin-shots';
const LONG_NAME = 'A Very Long Enterprise Identity Provider Name Incorporated';

/** What the test measures on the page as rendered. */
interface Measured {
  solidButtons: string[];
  addressFields: number;
  scrollWidth: number;
  innerWidth: number;
  smallTargets: string[];
  rawJson: boolean;
}

function measure(page: Page): Promise<Measured> {
  return page.evaluate(() => {
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
    };
    const card = getComputedStyle(document.querySelector('.card')!).backgroundColor;
    const solid = (el: Element) => {
      const bg = getComputedStyle(el).backgroundColor;
      return !/rgba\(.*,\s*0\)$/.test(bg) && bg !== 'transparent' && bg !== card;
    };
    const targets = Array.from(document.querySelectorAll('main a, main button, main input:not([type=hidden])')).filter(visible);
    return {
      solidButtons: targets.filter((el) => (el.tagName === 'BUTTON' || el.classList.contains('button') || (el as HTMLInputElement).type === 'submit') && solid(el)).map((el) => (el as HTMLElement).innerText || (el as HTMLInputElement).value),
      addressFields: Array.from(document.querySelectorAll('input[type=email]')).filter(visible).length,
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      smallTargets: targets.filter((el) => el.getBoundingClientRect().height < 24 || el.getBoundingClientRect().width < 24).map((el) => `${el.tagName} "${(el as HTMLElement).innerText ?? ''}" ${Math.round(el.getBoundingClientRect().height)}px`),
      rawJson: /^\s*[[{]/.test(document.body.innerText) || document.contentType.includes('json'),
    };
  });
}

/** The gap (px) from the bottom of the invalid field to the top of its error sentence, and the field's value. */
function errorBeside(page: Page): Promise<{ gap: number; value: string; text: string; count: number }> {
  return page.evaluate(() => {
    const input = document.querySelector('input[aria-invalid=true]') as HTMLInputElement;
    const note = document.getElementById(input.getAttribute('aria-describedby')!)!;
    return { gap: note.getBoundingClientRect().top - input.getBoundingClientRect().bottom, value: input.value, text: note.innerText, count: document.querySelectorAll('[aria-invalid=true]').length };
  });
}

describe('one clear sign-in path, in three languages, on desktop and phone, light and dark', { timeout: 300_000 }, () => {
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
        providers: [
          // Never followed in this test: the button only has to fit.
          OAuth({ id: 'enterprise', name: LONG_NAME, clientId: 'c', clientSecret: 's', authorization: 'https://idp.invalid/authorize', token: 'https://idp.invalid/token', userinfo: 'https://idp.invalid/userinfo', style: { brandColor: '#0b5394' } }),
          Credentials({ credentials: { email: { type: 'email' }, password: { type: 'password' } }, authorize: async () => null }),
          Email({ sendVerificationRequest: (params) => void outbox.push(params) }),
        ],
      }),
    );
    server = serve(app, { port, hostname: '127.0.0.1', silent: true });
    await server.ready();
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close(true);
  });

  for (const locale of ['en', 'ar', 'ja']) {
    it(`${locale}: the page, a bad address, a missing password`, async () => {
      const i18n = await translatorFor(locale, {});
      for (const view of VIEWS) {
        const context = await browser.newContext({ locale, viewport: { width: view.width, height: view.height }, colorScheme: view.colorScheme });
        await fenceToLoopback(context);
        const page = await context.newPage();
        const where = `${locale} ${view.name}`;
        const check = async (state: string) => {
          const m = await measure(page);
          expect(m.solidButtons, `${where} ${state}: solid buttons`).toEqual([i18n.t('signin.with', { provider: 'Credentials' })]);
          expect(m.addressFields, `${where} ${state}: address fields`).toBe(1);
          expect(m.scrollWidth, `${where} ${state}: no sideways scroll`).toBeLessThanOrEqual(m.innerWidth);
          expect(m.smallTargets, `${where} ${state}: targets under 24 px`).toEqual([]);
          expect(m.rawJson, `${where} ${state}: raw JSON`).toBe(false);
          expect(await page.locator('.divider').count(), `${where} ${state}: one "or"`).toBe(1);
          await page.screenshot({ path: `${SHOTS}/${locale}-${view.name}-${state}.png`, fullPage: true });
        };
        try {
          await page.goto(`${origin}/auth/signin`);
          // The long provider name wraps inside its button, which stays inside the card.
          const [button, cardBox] = await Promise.all([page.getByRole('button', { name: new RegExp(LONG_NAME) }).boundingBox(), page.locator('.card').boundingBox()]);
          expect(button!.x + button!.width, `${where}: provider button inside the card`).toBeLessThanOrEqual(cardBox!.x + cardBox!.width);
          expect(await page.locator('label', { hasText: i18n.t('signin.passwordLabel') }).count()).toBe(1);
          await check('page');

          // A bad address, sent with "Email me a sign-in link": the error under the field, the address kept.
          await page.fill('input[type=email]', 'ada@');
          await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: i18n.t('signin.emailLink') }).click()]);
          let beside = await errorBeside(page);
          expect(beside).toMatchObject({ value: 'ada@', text: i18n.t('signin.field.badAddress'), count: 1 });
          expect(beside.gap, `${where}: error right under its field`).toBeGreaterThanOrEqual(0);
          expect(beside.gap).toBeLessThan(16);
          await check('bad-address');

          // A password missing (a browser that skips `required`): the error under the password, the address kept.
          await page.fill('input[type=email]', 'ada@example.com');
          await page.evaluate(() => document.querySelectorAll('[required]').forEach((el) => el.removeAttribute('required')));
          await page.fill('input[type=password]', '');
          await Promise.all([page.waitForNavigation(), page.locator('form[data-credentials] button[type=submit]').click()]);
          beside = await errorBeside(page);
          expect(beside).toMatchObject({ value: '', text: i18n.t('signin.field.missing'), count: 1 });
          expect(beside.gap).toBeGreaterThanOrEqual(0);
          expect(beside.gap).toBeLessThan(16);
          expect(await page.inputValue('input[type=email]')).toBe('ada@example.com');
          await check('missing-password');
        } finally {
          await context.close();
        }
      }
      expect(outbox).toHaveLength(0);
    });
  }
});
