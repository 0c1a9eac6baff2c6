// The second-factor lock-out, walked in Chromium in English, Arabic and Japanese, each state looked at on desktop and
// phone, light and dark: a password sign-in pauses at the factor check; each wrong code says how many tries are left
// (the last one says that the next wrong code stops the sign-in); the last allowed wrong code ends on a page that says
// what happened in words and offers the way on (sign in again, with the app, a backup code or a passkey), never a
// bare error id and never only "back to the host". Screenshots in /tmp/factor-lockout-shots.
import { describe, expect, it } from 'vitest';
import { translatorFor } from '../../src/core/messages/request.js';
import { activeTotp, codeNow, otherCode } from '../support/factors.js';
import { seedUser } from '../flows/webauthn/webauthn-world.js';
import { fenceToLoopback } from './peers/browser.js';
import { lookAt, problemsOf, smallTargets } from './peers/look.js';
import { usePasskeySiteInChromium } from './peers/passkey-site.js';

const SHOTS = '/tmp/factor-lockout-shots';
const TRIES = 3;

describe('the second-factor lock-out in Chromium', { timeout: 240_000 }, () => {
  const site = usePasskeySiteInChromium({ secondFactor: { issuer: 'Test', maxAttempts: TRIES } });

  for (const locale of ['en', 'ar', 'ja']) {
    it(`${locale}: tries left at each wrong code, then a page that says what happened and offers the way on`, async () => {
      const i18n = await translatorFor(locale, {});
      const { world, origin, browser } = site;
      const user = await seedUser(world);
      const key = await activeTotp(world.adapter, user.id);
      const context = await browser.newContext({ locale });
      await fenceToLoopback(context);
      const page = await context.newPage();
      const look = async (state: string) => {
        expect(problemsOf(await lookAt(page, SHOTS, `${locale}-${state}`)), state).toEqual({});
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 844 });
          expect(await smallTargets(page), `${state} at ${width}`).toEqual([]);
        }
      };
      const wrongCode = async () => {
        await page.fill('input[name=code]', otherCode(codeNow(key)));
        await Promise.all([page.waitForNavigation(), page.locator('form:has(input[name=code]) button[type=submit]').click()]);
      };
      try {
        await page.goto(`${origin}/auth/signin`);
        await page.fill('form[data-credentials] input[name=email]', user.email!);
        await Promise.all([page.waitForNavigation(), page.click('form[data-credentials] button[type=submit]')]);
        expect(await page.locator('input[name=code]').count(), 'the factor check').toBe(1);

        await wrongCode();
        expect(await page.locator('main').innerText()).toContain(i18n.t('factor.check.wrongCodeLeft', { count: TRIES - 1 }));
        await look('tries-left');
        await wrongCode();
        expect(await page.locator('main').innerText()).toContain(i18n.t('factor.check.wrongCodeLast'));
        await look('last-try');

        // The last allowed wrong code: the lock-out page, in words, with the way on.
        await wrongCode();
        const said = await page.locator('main').innerText();
        expect(said).toContain(i18n.t('error.SecondFactorFailed.heading'));
        expect(said).toContain(i18n.t('error.SecondFactorFailed.message'));
        expect(said, 'no bare error id').not.toMatch(/SecondFactorFailed|Error code|Default/);
        const onward = page.locator('main a[href*="/auth/signin"]');
        expect(await onward.count(), 'a way to sign in again').toBeGreaterThanOrEqual(1);
        await look('locked');
        // The way on works: a new sign-in reaches the check again, and the right code passes.
        await Promise.all([page.waitForNavigation(), onward.first().click()]);
        await page.fill('form[data-credentials] input[name=email]', user.email!);
        await Promise.all([page.waitForNavigation(), page.click('form[data-credentials] button[type=submit]')]);
        await page.fill('input[name=code]', codeNow(key, 1));
        await Promise.all([page.waitForNavigation(), page.locator('form:has(input[name=code]) button[type=submit]').click()]);
        await page.goto(`${origin}/`);
        expect(JSON.parse(await page.locator('#session').innerText())?.user?.email).toBe(user.email);
      } finally {
        await context.close();
      }
    });
  }
});
