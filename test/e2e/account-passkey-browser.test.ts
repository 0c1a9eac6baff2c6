// "Add a passkey" on the account page in Chromium: a CDP virtual authenticator, the built-in passkey script asking
// POST /auth/link/passkey for the options (CSRF token, recent sign-in) and posting the credential back; the link
// stage stores it for the signed-in user, and the new passkey then signs that user in. PostgresAdapter on PGlite.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { passkeyOwner, seedUser } from '../flows/webauthn/webauthn-world.js';
import { newPageWithVirtualAuthenticator } from './peers/browser.js';
import { usePasskeySiteInChromium } from './peers/passkey-site.js';

describe('adding a passkey from the account page, in Chromium', () => {
  const site = usePasskeySiteInChromium();

  const sessionUser = async (page: Page) => {
    await page.goto(`${site.origin}/`);
    return (JSON.parse(await page.locator('#session').innerText()) as { user?: { id?: string } } | null)?.user?.id ?? null;
  };

  it('the button registers a passkey for the signed-in user, who then signs in with it', { timeout: 90_000 }, async () => {
    const { world, origin, browser } = site;
    const user = await seedUser(world);
    const tab = await newPageWithVirtualAuthenticator(browser);
    try {
      const { page } = tab;
      await page.addInitScript(() => {
        PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
      });
      await page.goto(`${origin}/auth/signin`);
      await page.fill('form[data-credentials] input[name=email]', user.email!);
      await Promise.all([page.waitForNavigation(), page.click('form[data-credentials] button[type=submit]')]);
      expect(await sessionUser(page)).toBe(user.id);

      await page.goto(`${origin}/auth/account`);
      expect(await page.locator('[data-passkeys]').innerText()).toBe('No passkey yet.');
      const link = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/auth/link/passkey');
      await Promise.all([page.waitForURL(`${origin}/auth/account?done=passkeyAdded`, { waitUntil: 'load' }), page.click('[data-account-action="add-passkey"]')]);
      await link;
      expect(await page.locator('[data-passkey]').count()).toBe(1);
      expect(await page.locator('[data-done]').innerText()).toBe('Passkey added. You can now sign in with it.');
      const [credential] = await tab.credentials();
      expect((await passkeyOwner(world, credential.credentialId)).id).toBe(user.id);
      expect(await sessionUser(page)).toBe(user.id);

      // Signed out, the passkey signs the same user in.
      await tab.context.clearCookies();
      await page.goto(`${origin}/auth/signin`);
      await Promise.all([page.waitForNavigation(), page.click('[data-webauthn] button[data-action="authenticate"]')]);
      expect(await sessionUser(page)).toBe(user.id);
    } finally {
      await tab.close();
    }
  });
});
