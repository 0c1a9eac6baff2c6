// The demo's "Your devices" card in Chromium (issue 19): two browsers signed in to the demo account each see both
// sessions, this one marked; "End" on the other device's row, or "Sign out other devices", signs that browser out.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDemo } from '../../examples/demo/app.js';
import { fenceToLoopback, hasChromium, launchChromium } from './peers/browser.js';
import { signInAsDemoUser, startOfflineDemo } from './peers/demo.js';


describe.skipIf(!hasChromium())('the demo: your devices', { timeout: 120_000 }, () => {
  let browser: Browser;
  let demo: RunningDemo;
  let origin: string;

  beforeAll(async () => {
    ({ demo, origin } = await startOfflineDemo());
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  });

  async function signedInPage(): Promise<Page> {
    const context = await browser.newContext();
    await fenceToLoopback(context);
    const page = await context.newPage();
    await signInAsDemoUser(page, origin);
    return page;
  }

  const rows = (page: Page) => page.locator('#devices li[data-session]');

  it('lists both browsers; End signs the other out; Sign out other devices does the same for the rest', async () => {
    const laptop = await signedInPage();
    const phone = await signedInPage();
    const tablet = await signedInPage();
    await laptop.goto(`${origin}/`);
    expect(await rows(laptop).count()).toBe(3);
    expect(await laptop.locator('#devices li[data-current]').count()).toBe(1);
    expect(await laptop.locator('#devices').innerText()).toContain('this device');

    await Promise.all([laptop.waitForNavigation(), laptop.locator('#devices [data-end-session]').first().click()]);
    expect(await rows(laptop).count()).toBe(2);
    await Promise.all([laptop.waitForNavigation(), laptop.click('#devices [data-end-others]')]);
    expect(await rows(laptop).count()).toBe(1);
    expect(await laptop.locator('#devices [data-end-others]').count()).toBe(0);

    for (const other of [phone, tablet]) {
      await other.goto(`${origin}/`);
      expect(await other.locator('body').innerText()).toContain('You are not signed in');
      expect(await other.locator('#devices').count()).toBe(0);
    }
    await laptop.reload();
    expect(await laptop.locator('body').innerText()).toContain('Signed in as Demo User');
  });
});
