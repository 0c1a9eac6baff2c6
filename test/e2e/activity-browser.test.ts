// The account page's "Recent security activity" in Chromium: a user signs in, signs out and signs in again, and
// finds all three on their account page, newest first (a failed sign-in names nobody, so it is on no one's page), with the device ("… on Linux") and the place (the loopback address), in English
// and in German; looked at in light, dark, desktop and phone (contrast, no sideways scroll); screenshots under /tmp.
import { PGlite } from '@electric-sql/pglite';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { Credentials } from '../../src/providers/credentials.js';
import { serveLoopback, type LoopbackApp } from '../support/loopback-app.js';
import { fenceToLoopback, launchChromium } from './peers/browser.js';
import { lookAt, problemsOf } from './peers/look.js';

const SHOTS = '/tmp/authchart-activity-shots';
const PASSWORD = 'correct horse battery staple';

describe('the account page shows recent security activity', { timeout: 120_000 }, () => {
  let db: PGlite;
  let app: LoopbackApp;
  let browser: Browser;

  beforeAll(async () => {
    db = await PGlite.create();
    const adapter = PostgresAdapter(db);
    await adapter.migrate();
    await adapter.createUser({ id: 'ada', email: 'ada@example.com', emailVerified: null, name: 'Ada' });
    app = await serveLoopback({
      secret: 'x'.repeat(40),
      trustHost: true,
      adapter,
      session: { strategy: 'database' },
      activity: {},
      providers: [Credentials({ credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } }, authorize: (c) => (c.password === PASSWORD ? { id: 'ada', email: 'ada@example.com', name: 'Ada' } : null) })],
    });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await db?.close();
  });

  async function signIn(page: Page, password: string) {
    await page.goto(`${app.origin}/auth/signin`);
    await page.fill('input[name="email"]', 'ada@example.com');
    await page.fill('input[name="password"]', password);
    await Promise.all([page.waitForNavigation(), page.click('form[action$="/callback/credentials"] button[type="submit"]')]);
  }

  it('lists sign-ins and a sign-out, with device and place, in two languages', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    await fenceToLoopback(context);
    const page = await context.newPage();
    await signIn(page, 'not the password');
    await signIn(page, PASSWORD);
    await page.goto(`${app.origin}/auth/signout`);
    await Promise.all([page.waitForNavigation(), page.click('form[action$="/signout"] button')]);
    await signIn(page, PASSWORD);
    await page.goto(`${app.origin}/auth/account`);
    const section = page.locator('section[data-section="activity"]');
    expect(await section.locator('h2').innerText()).toBe('Recent security activity');
    const rows = section.locator('li[data-activity]');
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-activity')))).toEqual(['signIn.succeeded', 'session.ended', 'signIn.succeeded']);
    const first = await rows.first().innerText();
    expect(first).toContain('Signed in');
    expect(first).toContain('from 127.0.0.1');
    expect(await rows.first().locator('[data-activity-device]').innerText()).toMatch(/ on Linux$/);
    expect(await rows.nth(1).innerText()).toContain('Signed out');
    expect(problemsOf(await lookAt(page, SHOTS, 'account-activity'))).toEqual({});
    await context.close();

    const german = await browser.newContext({ locale: 'de-DE', extraHTTPHeaders: { 'accept-language': 'de-DE,de;q=0.9' } });
    await fenceToLoopback(german);
    const seite = await german.newPage();
    await signIn(seite, PASSWORD);
    await seite.goto(`${app.origin}/auth/account`);
    const abschnitt = seite.locator('section[data-section="activity"]');
    expect(await abschnitt.locator('h2').innerText()).toBe('Letzte Sicherheitsaktivität');
    expect(await abschnitt.locator('li[data-activity]').first().innerText()).toContain('Angemeldet');
    expect(await abschnitt.locator('li[data-activity]').count()).toBe(4);
    expect(await abschnitt.locator('li[data-activity]').nth(1).innerText()).toContain('Angemeldet');
    expect(problemsOf(await lookAt(seite, SHOTS, 'account-activity-de'))).toEqual({});
    await german.close();
  });
});
