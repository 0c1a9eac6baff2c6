// "Add a passkey" on the account page in Chromium: a CDP virtual authenticator, the built-in passkey script asking
// POST /auth/link/passkey for the options (CSRF token, recent sign-in) and posting the credential back; the link
// stage stores it for the signed-in user, and the new passkey then signs that user in. PostgresAdapter on PGlite.
import { createServer, type Server } from 'node:http';
import { H3 } from 'h3';
import { toNodeHandler } from 'h3/node';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authOn, createWorld, passkeyOwner, seedUser, type World, type WorldAuth } from '../flows/webauthn/webauthn-world.js';
import { hasChromium, launchChromium, newPageWithVirtualAuthenticator } from './peers/browser.js';
import { closeHttpServer, listenLoopback } from './peers/net.js';

describe.skipIf(!hasChromium())('adding a passkey from the account page, in Chromium', () => {
  let world: World;
  let t: WorldAuth;
  let server: Server;
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    world = await createWorld();
    t = authOn(world);
    const app = new H3();
    app.all('/auth/**', (event) => t.handle(event.req as Request));
    app.get('/', async (event) => {
      const res = await t.handle(new Request(new URL('/auth/session', event.url), { headers: { cookie: event.req.headers.get('cookie') ?? '' } }));
      return new Response(`<!doctype html><title>home</title><pre id="session">${(await res.text()).replace(/</g, '&lt;')}</pre>`, { headers: { 'content-type': 'text/html' } });
    });
    server = createServer(toNodeHandler(app));
    origin = `http://localhost:${await listenLoopback(server)}`;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    if (server) await closeHttpServer(server);
    await world?.close();
  });

  const sessionUser = async (page: Page) => {
    await page.goto(`${origin}/`);
    return (JSON.parse(await page.locator('#session').innerText()) as { user?: { id?: string } } | null)?.user?.id ?? null;
  };

  it('the button registers a passkey for the signed-in user, who then signs in with it', { timeout: 90_000 }, async () => {
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
      expect(await page.locator('[data-passkeys]').innerText()).toBe('Passkeys: 0');
      const link = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/auth/link/passkey');
      await Promise.all([page.waitForURL(`${origin}/auth/account`, { waitUntil: 'load' }), page.click('[data-account-action="add-passkey"]')]);
      await link;
      await page.waitForFunction(() => document.querySelector('[data-passkeys]')?.textContent === 'Passkeys: 1');
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
