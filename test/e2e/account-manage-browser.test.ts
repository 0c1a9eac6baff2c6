// The account page run alone, in Chromium, in English, Arabic and Japanese: one user signed in on two devices
// (Chrome on Linux with a CDP virtual authenticator, Firefox on Windows) with two passkeys (one seeded, one added
// from the page) and an authenticator app. The page names both devices without their raw user agent, signs the other
// one out (after a confirmation), renames and removes a passkey, and the factors page removes the app (confirmation,
// then the code check). Every state is looked at on desktop and phone (390 px), light and dark: no sideways scroll,
// readable contrast, every target at least 24 px. Screenshots in /tmp/acct-shots.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { en, type MessageId } from '../../src/core/messages/en.js';
import { Translator } from '../../src/core/messages/translator.js';
import { ar } from '../../src/core/messages/ar.js';
import { ja } from '../../src/core/messages/ja.js';
import { activeTotp, codeNow } from '../support/factors.js';
import { SoftAuthenticator } from '../flows/webauthn/webauthn-authenticator.js';
import { seedPasskey, seedUser } from '../flows/webauthn/webauthn-world.js';
import { fenceToLoopback, newPageWithVirtualAuthenticator } from './peers/browser.js';
import { lookAt, problemsOf, smallTargets } from './peers/look.js';
import { usePasskeySiteInChromium } from './peers/passkey-site.js';

const SHOTS = '/tmp/acct-shots';
const CHROME_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

describe('the account page managed in Chromium', { timeout: 240_000 }, () => {
  const site = usePasskeySiteInChromium({ session: { strategy: 'database' }, secondFactor: { issuer: 'Test' } });

  /** Looks at the page in the four views: nothing unreadable, no sideways scroll, no small target. */
  async function look(page: Page, name: string): Promise<void> {
    expect(problemsOf(await lookAt(page, SHOTS, name)), name).toEqual({});
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      expect(await smallTargets(page), `${name} at ${width}`).toEqual([]);
    }
  }

  async function signIn(page: Page, email: string): Promise<void> {
    await page.goto(`${site.origin}/auth/signin`);
    await page.fill('form[data-credentials] input[name=email]', email);
    await Promise.all([page.waitForNavigation(), page.click('form[data-credentials] button[type=submit]')]);
  }

  const sessionOf = async (page: Page) => {
    await page.goto(`${site.origin}/`);
    return JSON.parse(await page.locator('#session').innerText()) as { user?: { id?: string } } | null;
  };

  for (const locale of ['en', 'ar', 'ja'] as const) {
    it(`${locale}: two devices and two passkeys; signs the other device out, renames and removes a passkey, removes the app`, async () => {
      const i18n = new Translator(locale, [{ en: undefined, ar, ja }[locale], en]);
      const t = (id: MessageId, values?: Record<string, string | number>) => i18n.t(id, values);
      const { world, origin, browser } = site;
      const user = await seedUser(world);
      await seedPasskey(world, user, new SoftAuthenticator(origin));
      const tab = await newPageWithVirtualAuthenticator(browser, {}, { locale, userAgent: CHROME_LINUX });
      const other = await browser.newContext({ locale, userAgent: FIREFOX_WINDOWS });
      await fenceToLoopback(other);
      try {
        const { page } = tab;
        await page.addInitScript(() => {
          PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
        });
        const phone = await other.newPage();
        await signIn(phone, user.email!);
        await signIn(page, user.email!);

        // A passkey added from the page says so.
        await page.goto(`${origin}/auth/account`);
        await Promise.all([page.waitForURL(/\/auth\/account\?done=passkeyAdded$/, { waitUntil: 'load' }), page.click('[data-account-action="add-passkey"]')]);
        expect(await page.locator('[data-done]').innerText()).toBe(t('manage.passkeyAdded'));
        expect(await page.locator('[data-passkey]').count()).toBe(2);

        // Two devices, by name, this one marked; the raw user agent nowhere.
        const chrome = t('manage.deviceName', { browser: 'Chrome', os: 'Linux' });
        const firefox = t('manage.deviceName', { browser: 'Firefox', os: 'Windows' });
        expect(await page.locator('[data-session][data-current] [data-device-name]').innerText()).toBe(chrome);
        expect(await page.locator('[data-session][data-current] [data-this-device]').innerText()).toBe(t('manage.thisDevice'));
        expect(await page.locator('[data-session]:not([data-current]) [data-device-name]').innerText()).toBe(firefox);
        const body = await page.locator('body').innerText();
        expect(body).not.toContain('Mozilla');
        expect(await page.content()).not.toContain('Mozilla/5.0');
        await look(page, `${locale}-account-two-devices`);

        // Sign the other device out: a confirmation naming it first.
        await Promise.all([page.waitForNavigation(), page.click('[data-session]:not([data-current]) [data-account-action="sign-out-session"]')]);
        expect(await page.locator('[data-confirm-message]').innerText()).toBe(t('manage.confirmSignOut', { device: firefox }));
        await look(page, `${locale}-confirm-sign-out`);
        await Promise.all([page.waitForNavigation(), page.click('[data-confirm]')]);
        expect(await page.locator('[data-done]').innerText()).toBe(t('manage.signedOutOne'));
        expect(await page.locator('[data-session]').count()).toBe(1);
        expect(await sessionOf(phone)).toBeNull();

        // Rename the first passkey (a form behind a disclosure), then remove it after a confirmation.
        await page.goto(`${origin}/auth/account`);
        const first = page.locator('[data-passkey]').first();
        await first.locator('summary').click();
        await first.locator('input[name=name]').fill('ノートPC · laptop');
        await look(page, `${locale}-account-rename-open`);
        await Promise.all([page.waitForNavigation(), first.locator('[data-account-action="save-passkey-name"]').click()]);
        expect(await page.locator('[data-done]').innerText()).toBe(t('manage.passkeyRenamed'));
        expect(await page.locator('[data-passkey] [data-passkey-name]').first().innerText()).toBe('ノートPC · laptop');
        await Promise.all([page.waitForNavigation(), page.locator('[data-passkey]').first().locator('[data-account-action="remove-passkey"]').click()]);
        expect(await page.locator('[data-confirm-message]').innerText()).toBe(t('manage.confirmRemovePasskey', { name: 'ノートPC · laptop' }));
        await look(page, `${locale}-confirm-remove-passkey`);
        await Promise.all([page.waitForNavigation(), page.click('[data-confirm]')]);
        expect(await page.locator('[data-done]').innerText()).toBe(t('manage.passkeyRemoved'));
        expect(await page.locator('[data-passkey]').count()).toBe(1);
        await look(page, `${locale}-account-after`);

        // The authenticator app: Remove asks first (the consequence in words), then the code check removes it.
        const key = await activeTotp(world.adapter, user.id);
        await page.goto(`${origin}/auth/factors`);
        await look(page, `${locale}-factors`);
        await Promise.all([page.waitForNavigation(), page.click('[data-factor-action="remove"]')]);
        expect(await page.locator('[data-confirm-message]').first().innerText()).toBe(t('manage.confirmRemoveApp'));
        await look(page, `${locale}-confirm-remove-app`);
        await Promise.all([page.waitForNavigation(), page.click('[data-confirm]')]);
        await page.fill('input[name=code]', codeNow(key));
        await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
        expect(new URL(page.url()).pathname).toBe('/auth/factors');
        expect(await world.adapter.listFactors(user.id)).toEqual([]);

        // Setting up an app: the setup key in its own block, a copy button (script on), and Cancel back to the list.
        await Promise.all([page.waitForNavigation(), page.click('[data-factor-action="totp"]')]);
        expect(await page.locator('[data-copy-value]').innerText()).toMatch(/^[A-Z2-7 ]+$/);
        expect(await page.locator('[data-copy]').isVisible()).toBe(true);
        await look(page, `${locale}-enrol-setup-key`);
        await Promise.all([page.waitForNavigation(), page.click('[data-form-leave]')]);
        expect(new URL(page.url()).pathname).toBe('/auth/factors');

        // Backup codes: copy and print (script on), and a download of the codes as a text file.
        await Promise.all([page.waitForNavigation(), page.click('[data-factor-action="backup-codes"]')]);
        const codes = (await page.locator('[data-backup-codes] li').allInnerTexts()).map((c) => c.trim());
        expect(codes).toHaveLength(10);
        expect(await page.locator('[data-copy="backup-codes"]').isVisible()).toBe(true);
        expect(await page.locator('[data-print]').isVisible()).toBe(true);
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-download]')]);
        expect(download.suggestedFilename()).toBe('backup-codes.txt');
        const { readFile } = await import('node:fs/promises');
        const file = await readFile((await download.path())!, 'utf8');
        for (const code of codes) expect(file).toContain(code);
        await look(page, `${locale}-backup-codes`);
      } finally {
        await other.close();
        await tab.close();
      }
    });
  }
});
