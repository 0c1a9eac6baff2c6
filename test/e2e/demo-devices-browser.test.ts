// The demo's "Your devices" card in Chromium (issue 19): two browsers signed in to the demo account each see both
// sessions, this one marked; "End" on the other device's row, or "Sign out other devices", signs that browser out.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { fenceToLoopback } from './peers/browser.js';
import { signInAsDemoUser, useDemoInChromium } from './peers/demo.js';

describe('the demo: your devices', { timeout: 120_000 }, () => {
  const run = useDemoInChromium();

  async function signedInPage(): Promise<Page> {
    const context = await run.browser.newContext();
    await fenceToLoopback(context);
    const page = await context.newPage();
    await signInAsDemoUser(page, run.origin);
    return page;
  }

  const rows = (page: Page) => page.locator('#devices li[data-session]');

  it('lists both browsers; End signs the other out; Sign out other devices does the same for the rest', async () => {
    const laptop = await signedInPage();
    const phone = await signedInPage();
    const tablet = await signedInPage();
    await laptop.goto(`${run.origin}/`);
    expect(await rows(laptop).count()).toBe(3);
    expect(await laptop.locator('#devices li[data-current]').count()).toBe(1);
    expect(await laptop.locator('#devices').innerText()).toContain('this device');

    await Promise.all([laptop.waitForNavigation(), laptop.locator('#devices [data-end-session]').first().click()]);
    expect(await rows(laptop).count()).toBe(2);
    await Promise.all([laptop.waitForNavigation(), laptop.click('#devices [data-end-others]')]);
    expect(await rows(laptop).count()).toBe(1);
    expect(await laptop.locator('#devices [data-end-others]').count()).toBe(0);

    for (const other of [phone, tablet]) {
      await other.goto(`${run.origin}/`);
      expect(await other.locator('body').innerText()).toContain('You are not signed in');
      expect(await other.locator('#devices').count()).toBe(0);
    }
    await laptop.reload();
    expect(await laptop.locator('body').innerText()).toContain('Signed in as Demo User');
  });
});
