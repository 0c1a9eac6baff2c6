// The inspector in a real browser (Debian's Chromium): Mermaid, served by the inspector itself, draws the failed
// flow's diagram under the page's Content-Security-Policy, with the failing state marked and nothing blocked.
// Set INSPECT_SCREENSHOT=<file.png> to keep a screenshot of the page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { FlowRecord } from '../../src/flows/runtime/record.js';
import { Credentials } from '../../src/providers/credentials.js';
import { offlineOAuth } from '../support/offline-oauth.js';
import { launchChromium } from '../e2e/peers/browser.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';

const credentials = Credentials({
  credentials: { email: {}, password: {} },
  authorize: async () => {
    throw new Error('user store is down');
  },
});

const acme = offlineOAuth;

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/**
 * Opens an inspector page in Chromium; the requests are answered by the in-process instance, nothing else. The
 * browser holds the test client's cookies: it is the browser that ran the flows, the only one shown them.
 */
async function open(t: TestAuth, path: string, viewport = { width: 1400, height: 900 }) {
  const context = await browser.newContext({ viewport });
  await context.addCookies(t.client.cookies.all().map((c) => ({ name: c.name, value: c.value, url: ORIGIN })));
  const problems: string[] = [];
  const loaded: string[] = [];
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (!url.startsWith(`${ORIGIN}/`)) return route.abort('blockedbyclient');
    loaded.push(new URL(url).pathname);
    const res = await t.handle(new Request(url, { headers: route.request().headers() }));
    await route.fulfill({ status: res.status, headers: Object.fromEntries(res.headers), body: Buffer.from(await res.arrayBuffer()) });
  });
  const page = await context.newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') problems.push(msg.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  await page.goto(`${ORIGIN}${path}`);
  return { context, page, problems, loaded };
}

function lastFlowId(t: TestAuth): string {
  const records = t.logger.debugs.filter((d) => d.message.startsWith('flow ')).map((d) => d.metadata as FlowRecord);
  return records.at(-1)!.id;
}

describe('the inspector in Chromium', () => {
  it('lists a failed credentials flow and draws it with the failing state marked', async () => {
    const t = testAuth({ providers: [credentials], debug: true });
    const csrfToken = await t.csrfToken();
    await t.client.post('/auth/callback/credentials', { csrfToken, email: 'a@b.test', password: 'x' });
    const id = lastFlowId(t);
    const { context, page, problems, loaded } = await open(t, '/auth/_inspect');
    try {
      expect(await page.locator('tbody tr').count()).toBe(1);
      await page.locator('tbody a').click();
      // Mermaid loads only once the diagram is in view (it comes after the trace).
      await page.locator('h2:has-text("Trace")').waitFor();
      await page.locator('.diagram').scrollIntoViewIfNeeded();
      await page.locator('pre.mermaid svg').waitFor({ timeout: 15_000 });
      expect(page.url()).toBe(`${ORIGIN}/auth/_inspect/${id}`);
      // Mermaid puts a classDef's class on the state's node group; the failing state is visited and failed.
      expect(await page.locator('pre.mermaid svg g.node.failed').count()).toBe(1);
      expect(await page.locator('pre.mermaid svg g.node.failed').textContent()).toContain('callbackRoute');
      const visited = await page.locator('pre.mermaid svg g.node.visited').allTextContents();
      // A state's title runs into its `invoke ...` line in textContent.
      expect(visited.map((text) => text.replace(/invoke.*$/s, '').trim())).toEqual(['idle', 'authorizing', 'callbackRoute']);
      expect(await page.locator('pre.mermaid svg').textContent()).toContain('(2) error: authorize');
      expect(loaded).toEqual(['/auth/_inspect', `/auth/_inspect/${id}`, '/auth/_inspect/mermaid.js']);
      // Zoom: the drawing grows and shrinks; labels are drawn at a readable size.
      const width = () => page.locator('pre.mermaid svg').evaluate((svg) => svg.getBoundingClientRect().width);
      const before = await width();
      await page.getByRole('button', { name: 'zoom in' }).click();
      expect(await width()).toBeGreaterThan(before * 1.2);
      await page.getByRole('button', { name: 'zoom out' }).click();
      expect(Math.round(await width())).toBe(Math.round(before));
      const fontSize = await page.locator('pre.mermaid svg g.node.failed').evaluate((g) => parseFloat(getComputedStyle(g.querySelector('span,text,p') ?? g).fontSize));
      expect(fontSize).toBeGreaterThanOrEqual(14);
      // The legend names what this drawing has: a failed state and visited ones.
      expect(await page.locator('.legend').innerText()).toMatch(/visited.*failed here/s);
      expect(problems).toEqual([]);
      if (process.env.INSPECT_SCREENSHOT) await page.screenshot({ path: process.env.INSPECT_SCREENSHOT, fullPage: true });
    } finally {
      await context.close();
    }
  });

  it('draws the two requests of a failed OAuth flow as one path', async () => {
    const t = testAuth({ providers: [acme], debug: true });
    await t.client.post('/auth/signin/acme', { csrfToken: await t.csrfToken() });
    await t.client.get('/auth/callback/acme?code=c&state=forged');
    const { context, page, problems } = await open(t, `/auth/_inspect/${lastFlowId(t)}`);
    try {
      await page.locator('.diagram').scrollIntoViewIfNeeded();
      await page.locator('pre.mermaid svg').waitFor({ timeout: 15_000 });
      expect(await page.locator('pre.mermaid svg g.node.failed').textContent()).toContain('invalidCheck');
      const visited = await page.locator('pre.mermaid svg g.node.visited').allTextContents();
      expect(visited.join(' ')).toMatch(/idle.*preparing.*awaitingCallback.*exchanging/s);
      expect(problems).toEqual([]);
      if (process.env.INSPECT_SCREENSHOT) await page.screenshot({ path: process.env.INSPECT_SCREENSHOT.replace(/\.png$/, '-oauth.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });

  it('on a phone: the flow page does not scroll sideways and loads no diagram script until the diagram is in view', async () => {
    const t = testAuth({ providers: [credentials], debug: true });
    const csrfToken = await t.csrfToken();
    await t.client.post('/auth/callback/credentials', { csrfToken, email: 'a@b.test', password: 'x' });
    const { context, page, loaded } = await open(t, `/auth/_inspect/${lastFlowId(t)}`, { width: 390, height: 844 });
    try {
      await page.locator('table.trace').waitFor();
      expect(loaded).not.toContain('/auth/_inspect/mermaid.js');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(1);
      const table = await page.locator('table.trace').boundingBox();
      expect(table!.x + table!.width).toBeLessThanOrEqual(390);
      if (process.env.INSPECT_SCREENSHOT) await page.screenshot({ path: process.env.INSPECT_SCREENSHOT.replace(/\.png$/, '-phone.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });

  it('folds flows that stopped at their first pause away from the list, below the rest', async () => {
    const t = testAuth({ providers: [credentials, acme], debug: true });
    await t.client.post('/auth/signin/acme', { csrfToken: await t.csrfToken() });
    await t.client.post('/auth/callback/credentials', { csrfToken: await t.csrfToken(), email: 'a@b.test', password: 'x' });
    const { context, page } = await open(t, '/auth/_inspect');
    try {
      expect(await page.locator('main > .scroll tbody tr:visible').count()).toBe(1);
      expect(await page.locator('details.quiet tbody tr:visible').count()).toBe(0);
      await page.locator('details.quiet summary').click();
      expect(await page.locator('details.quiet tbody tr:visible').count()).toBe(1);
    } finally {
      await context.close();
    }
  });
});
