// The demo as the browser tests run it: in process on free loopback ports, users in memory (no DATABASE_URL), its
// development IdP on a port of its own, reached as http://localhost so that WebAuthn has a domain.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from './browser.js';
import { startDemo, type RunningDemo } from '../../../examples/demo/app.js';
import { DEMO_EMAIL, DEMO_PASSWORD } from '../../../examples/demo/config.js';
import { freePort } from './net.js';

/** Starts the demo offline; close it with `demo.close()`. */
export async function startOfflineDemo(): Promise<{ demo: RunningDemo; origin: string }> {
  const [port, idpPort] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = { ...process.env, DEMO_DATABASE: 'memory', DEMO_IDP_PORT: String(idpPort) };
  delete env.DATABASE_URL;
  const demo = await startDemo({ port, hostname: '127.0.0.1', env });
  return { demo, origin: `http://localhost:${port}` };
}

/** Signs the page in as the demo's credentials user, from the built-in sign-in page. */
export async function signInAsDemoUser(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/auth/signin`);
  await page.fill('form[data-credentials] input[name=email]', DEMO_EMAIL);
  await page.fill('form[data-credentials] input[name=password]', DEMO_PASSWORD);
  await Promise.all([page.waitForNavigation(), page.click('form[data-credentials] button[type=submit]')]);
}

/**
 * On the demo IdP's login page: signs in as `login` (any password) and answers the consent step whenever oidc-provider
 * asks, until the browser is back on `origin`.
 */
export async function loginAtDemoIdp(page: Page, origin: string, login = 'alice'): Promise<void> {
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', 'any');
  await page.click('button[type=submit]');
  while (new URL(page.url()).origin !== origin) {
    await page.waitForLoadState();
    if (new URL(page.url()).origin === origin) break;
    await page.click('button[type=submit]');
  }
}

/** The offline demo and a Chromium, started before a file's tests and closed after them. */
export interface DemoInChromium {
  readonly browser: Browser;
  readonly demo: RunningDemo;
  /** `http://localhost:<port>` of the demo. */
  readonly origin: string;
}

/**
 * Registers `beforeAll`/`afterAll` hooks that start the offline demo and Chromium for a browser test file, and
 * returns their (lazily filled) handles. Call it at the top of the file's `describe`.
 */
export function useDemoInChromium(): DemoInChromium {
  let started: { browser: Browser; demo: RunningDemo; origin: string } | undefined;
  let demo: RunningDemo | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    const run = await startOfflineDemo();
    demo = run.demo;
    browser = await launchChromium();
    started = { browser, demo, origin: run.origin };
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  });
  const ready = () => {
    if (!started) throw new Error('The demo is not started: use it inside a test or hook.');
    return started;
  };
  return {
    get browser() {
      return ready().browser;
    },
    get demo() {
      return ready().demo;
    },
    get origin() {
      return ready().origin;
    },
  };
}
