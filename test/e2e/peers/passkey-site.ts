// A small site for passkey tests in Chromium: the WebAuthn test world (PostgresAdapter on PGlite) behind an h3 app
// on loopback, whose home page prints the session JSON, and one Chromium. Registers its own hooks.
import { createServer, type Server } from 'node:http';
import { H3 } from 'h3';
import { toNodeHandler } from 'h3/node';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { AuthConfig } from '../../../src/index.js';
import { authOn, createWorld, type World, type WorldAuth } from '../../flows/webauthn/webauthn-world.js';
import { launchChromium } from './browser.js';
import { closeHttpServer, listenLoopback } from './net.js';

export interface PasskeySite {
  readonly world: World;
  readonly t: WorldAuth;
  readonly origin: string;
  readonly browser: Browser;
}

/** Starts the site and Chromium before the file's tests (`config` is laid over the world's), stops both after. */
export function usePasskeySiteInChromium(config: Partial<AuthConfig> = {}): PasskeySite {
  let started: PasskeySite | undefined;
  let world: World | undefined;
  let server: Server | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    world = await createWorld();
    const t = authOn(world, config);
    const app = new H3();
    app.all('/auth/**', (event) => t.handle(event.req as Request));
    app.get('/', async (event) => {
      const res = await t.handle(new Request(new URL('/auth/session', event.url), { headers: { cookie: event.req.headers.get('cookie') ?? '' } }));
      return new Response(`<!doctype html><title>home</title><pre id="session">${(await res.text()).replace(/</g, '&lt;')}</pre>`, { headers: { 'content-type': 'text/html' } });
    });
    server = createServer(toNodeHandler(app));
    const origin = `http://localhost:${await listenLoopback(server)}`;
    browser = await launchChromium();
    started = { world, t, origin, browser };
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    if (server) await closeHttpServer(server);
    await world?.close();
  });
  const ready = () => {
    if (!started) throw new Error('The passkey site is not started: use it inside a test or hook.');
    return started;
  };
  return {
    get world() { return ready().world; },
    get t() { return ready().t; },
    get origin() { return ready().origin; },
    get browser() { return ready().browser; },
  };
}
