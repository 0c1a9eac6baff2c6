// Passkeys in a real browser: Debian's Chromium with a CDP virtual authenticator drives the built-in sign-in
// page and its script against authchart served on 127.0.0.1 (opened as http://localhost, since WebAuthn refuses
// an IP address as relying party id), with PostgresAdapter on PGlite storing users, accounts and authenticators.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { H3 } from 'h3';
import { toNodeHandler } from 'h3/node';
import type { Browser, Page, Request as BrowserRequest } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Passkey } from '../../src/providers/webauthn.js';
import { authOn, createWorld, passkeyOwner, uniqueEmail, type World, type WorldAuth } from '../flows/webauthn/webauthn-world.js';
import { launchChromium, newPageWithVirtualAuthenticator, type AuthenticatorPage } from './peers/browser.js';
import { closeHttpServer, listenLoopback } from './peers/net.js';

/** The Passkey provider's flow cookie (one per provider: `authchart.flow.<provider id>`). */
const FLOW_COOKIE = 'authchart.flow.passkey';

let world: World;
let t: WorldAuth;
let server: Server;
let origin: string;
let browser: Browser;
const tabs: AuthenticatorPage[] = [];

beforeAll(async () => {
  world = await createWorld();
  t = authOn(world, { providers: [Passkey()] });
  const app = new H3();
  app.all('/auth/**', (event) => t.handle(event.req as Request));
  // The app's home page shows the session, as the browser sees it.
  app.get('/', async (event) => {
    const res = await t.handle(new Request(new URL('/auth/session', event.url), { headers: { cookie: event.req.headers.get('cookie') ?? '' } }));
    const session = await res.text();
    return new Response(`<!doctype html><title>home</title><pre id="session">${session.replace(/</g, '&lt;')}</pre>`, { headers: { 'content-type': 'text/html' } });
  });
  server = createServer(toNodeHandler(app));
  origin = `http://localhost:${await listenLoopback(server)}`;
  browser = await launchChromium();
}, 60_000);

// What Chromium reported as refused by a page's Content-Security-Policy: the pages' script and style run by nonce,
// and nothing a passkey ceremony does (autofill included) may trip the policy.
const cspViolations: string[] = [];

afterEach(async () => {
  vi.useRealTimers();
  while (tabs.length) await tabs.pop()!.close();
  expect(cspViolations.splice(0)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  if (server) await closeHttpServer(server);
  await world?.close();
});

/**
 * A fresh context with a virtual authenticator. That authenticator answers an autofill (conditional) request
 * at once, where a person would first pick the passkey; tests of the buttons switch autofill off in the page.
 */
async function tab({ autofill = false } = {}): Promise<AuthenticatorPage> {
  const opened = await newPageWithVirtualAuthenticator(browser);
  tabs.push(opened);
  opened.page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) cspViolations.push(msg.text());
  });
  if (!autofill) {
    await opened.context.addInitScript(() => {
      PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
    });
  }
  return opened;
}

/** The session as the page sees it; its user carries the id (see `authOn`): passkey users own no address. */
async function session(page: Page): Promise<{ user?: { id?: string; email?: string } } | null> {
  await page.goto(`${origin}/`);
  return JSON.parse(await page.locator('#session').innerText());
}

/** Clicks a passkey button on the built-in sign-in page and waits until the browser has left the page. */
async function passkeyButton(page: Page, action: 'register' | 'authenticate', email?: string): Promise<URL> {
  await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`);
  if (email) await page.fill('[data-webauthn] input[name="email"]', email);
  await Promise.all([
    page.waitForURL((url) => !url.pathname.startsWith('/auth/signin') || url.searchParams.has('error'), { timeout: 15_000 }),
    page.click(`[data-webauthn] button[data-action="${action}"]`),
  ]);
  return new URL(page.url());
}

async function signOut(page: Page): Promise<void> {
  await page.goto(`${origin}/auth/signout`);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/auth/signout')), page.click('button[type="submit"]')]);
  expect(await session(page)).toBeNull();
}

async function counterOf(credentialIdBase64: string): Promise<number | undefined> {
  return (await world.adapter.getAuthenticator(credentialIdBase64))?.counter;
}

/** The callback POST the page sends next, held back so a test can look at it or change it. */
function interceptCallback(page: Page, change: (request: BrowserRequest, headers: Record<string, string>) => Promise<Record<string, string> | void>) {
  return page.route('**/auth/callback/passkey', async (route) => {
    const request = route.request();
    const headers = await request.allHeaders();
    const changed = await change(request, headers);
    await route.continue(changed ? { headers: changed } : undefined);
  });
}

describe('passkeys in Chromium', { timeout: 60_000 }, () => {
  it('registers a passkey on the built-in page, signs out, signs in with it; the counter is stored and increases', async () => {
    const { page, credentials } = await tab();
    const email = uniqueEmail('browser');

    const landed = await passkeyButton(page, 'register', email);
    expect(landed.href).toBe(`${origin}/`);
    const [credential] = await credentials();
    expect(credential).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
    // The typed address labels the passkey; the new user does not own it (an address is proven, never typed).
    expect(credential).toMatchObject({ userName: email });
    const user = await passkeyOwner(world, credential.credentialId);
    expect(user.email).toBeNull();
    expect(await session(page)).toMatchObject({ user: { id: user.id } });
    expect(await world.adapter.getAccount(credential.credentialId, 'passkey')).toMatchObject({ userId: user.id, type: 'webauthn' });
    const registered = await counterOf(credential.credentialId);
    expect(registered).toBeTypeOf('number');

    await signOut(page);
    let previous = registered!;
    for (let i = 0; i < 2; i++) {
      expect(await passkeyButton(page, 'authenticate')).toMatchObject({ href: `${origin}/` });
      expect(await session(page)).toMatchObject({ user: { id: user.id } });
      const counter = (await counterOf(credential.credentialId))!;
      expect(counter).toBeGreaterThan(previous);
      expect(counter).toBe((await credentials())[0].signCount);
      previous = counter;
      await signOut(page);
    }
  });

  it('rejects an assertion replayed with its challenge cookie (InvalidCheck), after the genuine sign-in', async () => {
    const { page } = await tab();
    await passkeyButton(page, 'register', uniqueEmail('replay'));
    await signOut(page);

    let captured: { body: string; headers: Record<string, string> } | undefined;
    await interceptCallback(page, async (request, headers) => {
      captured = { body: request.postData() ?? '', headers };
    });
    expect((await passkeyButton(page, 'authenticate')).href).toBe(`${origin}/`);
    expect(captured?.headers.cookie).toContain(`${FLOW_COOKIE}=`);

    const errorsBefore = t.logger.errors.length;
    const replay = await fetch(`${origin}/auth/callback/passkey`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: captured!.headers.cookie, 'content-type': captured!.headers['content-type'] },
      body: captured!.body,
    });
    expect(replay.status).toBe(302);
    expect(replay.headers.get('location')).toBe(`${origin}/auth/error?error=Configuration`);
    expect(replay.headers.getSetCookie().filter((l) => l.startsWith('authchart.session-token=') && !/Max-Age=0/.test(l))).toEqual([]);
    expect(t.logger.errorTypes().slice(errorsBefore)).toEqual(['InvalidCheck']);
  });

  it.each([
    ['tampered', 0],
    ['expired', 6 * 60_000],
  ])('ends in InvalidCheck when the challenge cookie is %s', async (_name, delay) => {
    const { page } = await tab();
    await passkeyButton(page, 'register', uniqueEmail('cookie'));
    await signOut(page);

    if (delay) vi.useFakeTimers({ toFake: ['Date'] });
    await interceptCallback(page, async (_request, headers) => {
      if (delay) {
        // The server shares this process's clock: the answer arrives after the ceremony timeout.
        vi.setSystemTime(Date.now() + delay);
        return;
      }
      // The browser attaches cookies after interception: the change goes into its cookie store.
      const value = new RegExp(`${FLOW_COOKIE.replaceAll('.', '\\.')}=([^;]+)`).exec(headers.cookie)![1];
      const tampered = `${value.slice(0, -6)}${value.endsWith('AAAAAA') ? 'BBBBBB' : 'AAAAAA'}`;
      await page.context().addCookies([{ name: FLOW_COOKIE, value: tampered, url: origin }]);
    });
    const errorsBefore = t.logger.errors.length;
    const landed = await passkeyButton(page, 'authenticate');
    expect(landed.pathname).toBe('/auth/error');
    expect(landed.searchParams.get('error')).toBe('Configuration');
    expect(t.logger.errorTypes().slice(errorsBefore)).toEqual(['InvalidCheck']);
    expect(await session(page)).toBeNull();
  });

  it('refuses a passkey the adapter does not know (WebAuthnVerificationError)', async () => {
    const { page, cdp, authenticatorId } = await tab();
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await cdp.send('WebAuthn.addCredential', {
      authenticatorId,
      credential: {
        credentialId: randomBytes(16).toString('base64'),
        isResidentCredential: true,
        rpId: 'localhost',
        privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
        userHandle: randomBytes(16).toString('base64'),
        signCount: 0,
      },
    });
    const errorsBefore = t.logger.errors.length;
    const landed = await passkeyButton(page, 'authenticate');
    expect(landed.pathname).toBe('/auth/error');
    expect(landed.searchParams.get('error')).toBe('WebAuthnVerificationError');
    expect(t.logger.errorTypes().slice(errorsBefore)).toEqual(['WebAuthnVerificationError']);
    expect(await session(page)).toBeNull();
  });

  it('registers a second passkey (another device) for the signed-in user, and either signs in', async () => {
    const first = await tab();
    const { page, cdp } = first;
    const email = uniqueEmail('two');
    await passkeyButton(page, 'register', email);
    const [one] = await first.credentials();
    const user = await passkeyOwner(world, one.credentialId);

    // The second device: the first goes away, a new authenticator takes its place in the same browser.
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: first.authenticatorId });
    const { authenticatorId: secondId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    expect((await passkeyButton(page, 'register', email)).href).toBe(`${origin}/`);
    expect(await session(page)).toMatchObject({ user: { id: user.id } });
    const { credentials: [two] } = (await cdp.send('WebAuthn.getCredentials', { authenticatorId: secondId })) as { credentials: { credentialId: string }[] };

    const stored = await world.adapter.listAuthenticatorsByUserId(user.id);
    expect(stored.map((a) => a.credentialID).sort()).toEqual([one.credentialId, two.credentialId].sort());

    await signOut(page);
    expect((await passkeyButton(page, 'authenticate')).href).toBe(`${origin}/`);
    expect(await session(page)).toMatchObject({ user: { id: user.id } });
    await signOut(page);

    // Back to the first device.
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: secondId });
    const { authenticatorId: againId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    await cdp.send('WebAuthn.addCredential', { authenticatorId: againId, credential: one });
    expect((await passkeyButton(page, 'authenticate')).href).toBe(`${origin}/`);
    expect(await session(page)).toMatchObject({ user: { id: user.id } });
  });

  it('signs in through autofill (conditional mediation), without a click', async () => {
    const { page } = await tab({ autofill: true });
    const email = uniqueEmail('autofill');
    await page.goto(`${origin}/auth/signin`);
    expect(await page.getAttribute('[data-webauthn] input[name="email"]', 'autocomplete')).toBe('email webauthn');
    expect(await page.evaluate(() => PublicKeyCredential.isConditionalMediationAvailable())).toBe(true);
    const optionsRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/auth/webauthn-options/')) optionsRequests.push(new URL(request.url()).searchParams.get('action') ?? '');
    });
    // No passkey yet: the autofill request waits, and the register button takes over from it.
    expect((await passkeyButton(page, 'register', email)).href).toBe(`${origin}/`);
    expect(optionsRequests).toEqual(['authenticate', 'register']);
    const { id } = (await session(page))!.user!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await signOut(page);

    // With a passkey on the device, opening the sign-in page is enough for this authenticator.
    await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`);
    await page.waitForURL(`${origin}/`, { timeout: 15_000 });
    expect(optionsRequests).toEqual(['authenticate', 'register', 'authenticate']);
    expect(await session(page)).toMatchObject({ user: { id } });
  });
});
