// Second factors in Chromium, end to end: a signed-in user enrols an authenticator app (the key read off the page,
// codes computed here), makes backup codes, signs out, signs in with the password and with a real OpenID Provider,
// passes the stage each time, then opens a step-up route that sends them through the factor check and back.
// Screenshots go to .data/screenshots/ (gitignored).
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { PGlite } from '@electric-sql/pglite';
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import type { AuthConfig } from '../../src/core/options.js';
import { totpCode, totpStep } from '../../src/flows/second-factor/totp.js';
import { checkRecentSignIn } from '../../src/http/integrations/step-up.js';
import { ServerAuth } from '../../src/http/integrations/node.js';
import { Credentials } from '../../src/providers/credentials.js';
import { OIDC } from '../../src/providers/oauth.js';
import { recordingLogger, TEST_SECRET, type RecordingLogger } from '../support/auth-app.js';
import { fenceToLoopback, launchChromium } from './peers/browser.js';
import { closeHttpServer, listenLoopback } from './peers/net.js';
import { startOidcProvider, type OidcProviderHarness } from './peers/oidc.js';

const SHOTS = new URL('../../.data/screenshots/', import.meta.url).pathname;
const EMAIL = 'alice@example.test';

/** TOTP codes as a phone would give them, never a step twice (the server refuses a spent one). */
class Phone {
  private last = -Infinity;
  constructor(private readonly key: Uint8Array) {}
  async code(): Promise<string> {
    const now = totpStep(Date.now());
    const step = Math.max(now - 1, this.last + 1);
    // One step ahead is accepted (drift); further ahead, wait for the clock.
    while (totpStep(Date.now()) < step - 1) await new Promise((r) => setTimeout(r, 250));
    this.last = step;
    return totpCode(this.key, step);
  }
}

describe('second factors in Chromium', () => {
  let browser: Browser;
  let server: Server;
  let op: OidcProviderHarness;
  let db: PGlite;
  let origin: string;
  const logger: RecordingLogger = recordingLogger();

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    db = await PGlite.create();
    const adapter = PostgresAdapter(db);
    await adapter.migrate();
    await adapter.createUser({ id: 'alice', email: EMAIL, emailVerified: new Date(), name: 'Alice' });
    let handler: ReturnType<typeof ServerAuth> | undefined;
    let config: AuthConfig | undefined;
    server = createServer((req, res) => {
      if (req.url?.startsWith('/auth')) return void handler!(req, res);
      if (req.url?.startsWith('/settings')) {
        // Step-up on a Node server: recent means within the last 2 seconds here, so the test can let it go stale.
        void checkRecentSignIn(req, config!, { maxAge: 2 }).then((recent) => {
          if (!recent.ok) return void res.writeHead(302, { location: recent.location }).end();
          res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>settings</title><h1>Settings of ${recent.session.user?.email}</h1><p id="amr">${recent.amr.join(' ')}</p>`);
        });
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title><p>app page</p>');
    });
    origin = `http://localhost:${await listenLoopback(server)}`;
    op = await startOidcProvider({ redirectUris: [`${origin}/auth/callback/op`] });
    config = {
      secret: TEST_SECRET,
      trustHost: true,
      logger,
      adapter,
      secondFactor: { issuer: 'authchart e2e' },
      providers: [
        Credentials({ credentials: { email: { type: 'email' }, password: { type: 'password' } }, authorize: (c) => (c.email === EMAIL && c.password === 'pw' ? { id: 'alice', email: EMAIL } : null) }),
        // The OP vouches for the address, so its account joins the same user (and with it, her factors).
        OIDC({ id: 'op', name: 'Test OP', issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, allowDangerousEmailAccountLinking: true }),
      ],
    };
    handler = ServerAuth(config);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await op?.stop();
    if (server) await closeHttpServer(server);
    await db?.close();
  });

  async function passwordSignIn(page: Page) {
    await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`);
    await page.fill('form[action$="/callback/credentials"] input[name=email]', EMAIL);
    await page.fill('form[action$="/callback/credentials"] input[name=password]', 'pw');
    await page.click('form[action$="/callback/credentials"] button');
  }

  const session = (page: Page) => page.evaluate(async () => (await fetch('/auth/session')).json());

  it('enrol, sign out, sign in with the password and with the OP through the stage, then step up', async () => {
    const context = await browser.newContext();
    await fenceToLoopback(context);
    try {
      const page = await context.newPage();
      // Signed in with the password: no factor yet, so no stage.
      await passwordSignIn(page);
      await page.waitForURL(`${origin}/`);

      // Enrol an authenticator app from the factors page.
      await page.goto(`${origin}/auth/factors`);
      await page.screenshot({ path: `${SHOTS}factors-none.png` });
      await page.click('form[action$="/factors/totp"] button');
      await expect.poll(() => page.locator('h1').textContent()).toBe('Set up two-step verification');
      expect(await page.locator('img.figure').getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
      await page.screenshot({ path: `${SHOTS}factors-enrol-qr.png` });
      const typed = (await page.locator('[data-copy-value]').textContent())!;
      const phone = new Phone(decodeBase32IgnorePadding(typed.replace(/ /g, '')));
      await page.fill('input[name=code]', await phone.code());
      await page.click('button[type=submit]');
      await page.waitForURL(`${origin}/auth/factors`);
      expect(await page.locator('.factors').textContent()).toContain('Authenticator app');

      // Backup codes, right after: the check is fresh, so no code is asked; shown once.
      await page.click('form[action$="/factors/backup-codes"] button');
      await expect.poll(() => page.locator('h1').textContent()).toBe('Your backup codes');
      const codes = await page.locator('[data-backup-codes] li').allTextContents();
      expect(codes).toHaveLength(10);
      await page.screenshot({ path: `${SHOTS}factors-backup-codes.png` });
      await page.click('.done-link a.button');
      expect(await page.locator('.factors').textContent()).toContain('10 left');
      await page.screenshot({ path: `${SHOTS}factors-list.png` });

      // Sign out, then the password again: the stage asks for a code; a backup code passes it.
      await page.goto(`${origin}/auth/signout`);
      await page.click('button[type=submit]');
      expect(await session(page)).toBeNull();
      await passwordSignIn(page);
      await expect.poll(() => page.locator('h1').textContent()).toBe('Two-step verification');
      expect(await session(page)).toBeNull();
      await page.screenshot({ path: `${SHOTS}factors-stage-password.png` });
      await page.fill('input[name=code]', codes[0]);
      await page.click('button[type=submit]');
      await page.waitForURL(`${origin}/`);
      expect(await session(page)).toMatchObject({ user: { email: EMAIL } });

      // Sign out, then the OpenID Provider: the same stage, passed with the app's code.
      await page.goto(`${origin}/auth/signout`);
      await page.click('button[type=submit]');
      await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`);
      await page.click('form[action$="/signin/op"] button');
      await page.waitForURL((url) => url.origin === new URL(op.issuer).origin);
      await page.fill('input[name=login]', 'alice');
      await page.fill('input[name=password]', 'any-password');
      await page.click('button[type=submit]');
      await expect.poll(() => page.locator('h1').textContent(), { timeout: 15_000 }).toBe('Two-step verification');
      expect(new URL(page.url()).origin).toBe(origin);
      expect(await session(page)).toBeNull();
      await page.screenshot({ path: `${SHOTS}factors-stage-oidc.png` });
      await page.fill('input[name=code]', await phone.code());
      await page.click('button[type=submit]');
      await page.waitForURL(`${origin}/`);
      expect(await session(page)).toMatchObject({ user: { email: EMAIL } });

      // The step-up route: recent now; stale two seconds on, it sends the browser through the check and back.
      await page.goto(`${origin}/settings?tab=security`);
      expect(await page.locator('h1').textContent()).toBe(`Settings of ${EMAIL}`);
      expect(await page.locator('#amr').textContent()).toBe('oauth otp');
      await page.waitForTimeout(2_100);
      await page.goto(`${origin}/settings?tab=security`);
      expect(new URL(page.url()).pathname).toBe('/auth/factors/verify');
      expect(await page.locator('h1').textContent()).toBe('Confirm it is you');
      await page.screenshot({ path: `${SHOTS}factors-step-up.png` });
      await page.fill('input[name=code]', await phone.code());
      await page.click('button[type=submit]');
      await page.waitForURL(`${origin}/settings?tab=security`);
      expect(await page.locator('h1').textContent()).toBe(`Settings of ${EMAIL}`);
      await page.screenshot({ path: `${SHOTS}factors-step-up-back.png` });
      expect(logger.errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
