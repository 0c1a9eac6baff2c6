// Attacks on the built-in pages themselves: framing them (clickjacking the sign-in or confirmation button),
// running injected script in them, a magic-link page that names an address no token backs ("Sign in as
// victim@…?" for a link anyone can write), and a cross-site `text/plain` POST whose body looks like JSON.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { H3 } from 'h3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthConfig } from '../../src/core/options.js';
import { skipCSRFCheck } from '../../src/core/options.js';
import { AuthInit } from '../../src/http/integrations/fetch.js';
import { createAuthHandler } from '../../src/http/integrations/h3.js';
import { ServerAuth } from '../../src/http/integrations/node.js';
import { Email } from '../../src/providers/email.js';
import { Passkey } from '../../src/providers/webauthn.js';
import { readForms } from '../e2e/peers/html-form.js';
import { ADA, adaProvider, PASSWORD, sessionWrites } from '../http/helpers.js';
import { tags, text } from '../http/pages/dom.js';
import { ORIGIN, recordingLogger, TEST_SECRET, testAuth, type TestAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { createClient, type ClientResponse, type TestClient } from '../support/client.js';
import { offlineOAuth } from '../support/offline-oauth.js';

const pg = useMigratedPGlite();
const outbox: { identifier: string; url: string }[] = [];


const email = Email({ sendVerificationRequest: async ({ identifier, url }) => void outbox.push({ identifier, url }) });

/** Every kind of sign-in the page can show, so its one script and every section are rendered. */
function everything(config: Partial<AuthConfig> = {}): TestAuth {
  return testAuth({ providers: [offlineOAuth, email, adaProvider(), Passkey()], adapter: pg.adapter, experimental: { enableWebAuthn: true }, ...config });
}

async function mailedLink(t: TestAuth, address: string): Promise<string> {
  const csrfToken = await t.csrfToken();
  const res = await t.client.post('/auth/signin/email', { csrfToken, email: address, callbackUrl: `${ORIGIN}/dashboard` });
  expect(res.location?.pathname).toBe('/auth/verify-request');
  const mail = outbox.findLast((m) => m.identifier === address);
  if (!mail) throw new Error(`no link was sent to ${address}`);
  return mail.url;
}

/** The policy's directives by name. */
function directives(res: Response): Map<string, string[]> {
  const policy = res.headers.get('content-security-policy') ?? '';
  return new Map(policy.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([name, ...values]) => [name.toLowerCase(), values]));
}

/** Asserts the headers every built-in page must carry, and that each script and style runs only by its nonce. */
async function expectHardened(res: ClientResponse, kind: 'page' | 'devtools' = 'page'): Promise<string> {
  expect(res.headers.get('content-type')).toContain('text/html');
  const csp = directives(res);
  expect(csp.get('frame-ancestors'), 'frame-ancestors').toEqual(["'none'"]);
  expect(csp.get('default-src')).toEqual(["'none'"]);
  expect(csp.get('base-uri')).toEqual(["'none'"]);
  const scripts = csp.get('script-src') ?? [];
  expect(scripts).toHaveLength(1);
  expect(scripts).not.toContain("'unsafe-inline'");
  expect(scripts).not.toContain("'unsafe-eval'");
  const nonce = /^'nonce-([A-Za-z0-9+/=]{22,})'$/.exec(scripts[0])?.[1];
  expect(nonce, 'script-src names a nonce').toBeDefined();
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('referrer-policy')).toBe(kind === 'page' ? 'same-origin' : 'no-referrer');

  const page = await res.text();
  // Each <script> and (on the pages' own policy) each <style> carries exactly the nonce the policy names.
  for (const script of tags(page, 'script')) expect(script.attrs.nonce, script.source).toBe(nonce);
  if (kind === 'page') {
    expect(csp.get('style-src')).toEqual([`'nonce-${nonce}'`]);
    const styles = tags(page, 'style');
    expect(styles.length).toBeGreaterThan(0);
    for (const style of styles) expect(style.attrs.nonce, style.source).toBe(nonce);
  }
  // Nothing inline that a nonce cannot cover: no event handler attributes, no javascript: URLs.
  for (const tag of tags(page)) {
    for (const [name, value] of Object.entries(tag.attrs)) {
      expect(name.startsWith('on'), `${name} on <${tag.name}>`).toBe(false);
      expect(/^\s*javascript:/i.test(value), `${name} on <${tag.name}>`).toBe(false);
    }
  }
  return page;
}

describe('every built-in page is hardened', () => {
  it('sign-in: the passkey script and the page style run by the response nonce, which changes per response', async () => {
    const t = everything();
    const first = await t.client.get('/auth/signin');
    expect(first.status).toBe(200);
    const page = await expectHardened(first);
    const [script] = tags(page, 'script');
    expect(script.attrs.src).toBe('/auth/webauthn-script.js');
    // Every section is there: this is the fullest sign-in page.
    expect(page).toContain('data-webauthn');
    expect(page).toContain('Sign in with Acme');
    const second = await t.client.get('/auth/signin');
    await expectHardened(second);
    expect(directives(second).get('script-src')).not.toEqual(directives(first).get('script-src'));
  });

  it('sign-in with an error, sign-out, error (with a debug trace), verify-request', async () => {
    const t = everything({ debug: true });
    await expectHardened(await t.client.get('/auth/signin?error=CredentialsSignin'));
    await expectHardened(await t.client.get('/auth/signout'));
    const csrfToken = await t.csrfToken();
    const failed = await t.client.post('/auth/callback/credentials', { csrfToken, email: ADA.email, password: 'wrong' });
    expect(failed.location?.searchParams.get('error')).toBe('CredentialsSignin');
    await t.client.get('/auth/callback/acme?code=c&state=forged');
    const error = await t.client.get('/auth/error?error=Configuration');
    expect(error.status).toBe(500);
    expect(await expectHardened(error)).toContain('Debug trace');
    await expectHardened(await t.client.get('/auth/error?error=Verification'));
    await expectHardened(await t.client.get('/auth/verify-request?provider=email&type=email'));
  });

  it('the magic-link confirmation page', async () => {
    const t = everything();
    const link = await mailedLink(t, 'hardened@example.test');
    const res = await t.client.get(link);
    expect(res.status).toBe(200);
    expect(text(await expectHardened(res))).toContain('Sign in as hardened@example.test?');
  });

  it('the inspector (development only) keeps its own policy: nonce scripts, no forms, no referrer', async () => {
    const t = everything({ debug: true });
    const csrfToken = await t.csrfToken();
    await t.client.post('/auth/callback/credentials', { csrfToken, email: ADA.email, password: 'wrong' });
    const list = await t.client.get('/auth/_inspect');
    const page = await expectHardened(list, 'devtools');
    expect(directives(list).get('form-action')).toEqual(["'none'"]);
    const href = tags(page, 'a').map((a) => a.attrs.href).find((h) => /\/_inspect\/[0-9a-f]{16}$/.test(h))!;
    const flow = await t.client.get(href);
    const flowPage = await expectHardened(flow, 'devtools');
    expect(tags(flowPage, 'script').length).toBeGreaterThan(0);
  });

  it('the passkey script itself is served as JavaScript that is never sniffed', async () => {
    const t = everything();
    const res = await t.client.get('/auth/webauthn-script.js');
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('the magic-link confirmation page names only an address a stored token backs', () => {
  it('a forged link (any token, the victim\'s address) is refused on opening and never shows the address', async () => {
    const t = everything();
    await mailedLink(t, 'victim@example.test');
    const res = await t.newClient().get(`/auth/callback/email?token=${'a'.repeat(64)}&email=victim%40example.test&callbackUrl=%2F`);
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe(`${ORIGIN}/auth/error?error=Verification`);
    expect(await res.text()).not.toContain('victim');
    expect(sessionWrites(res)).toHaveLength(0);
    // The victim's own link still works: opening a forged one used nothing up.
    const { rows } = await pg.db.query<{ n: number }>('SELECT count(*)::int AS n FROM verification_token WHERE identifier = $1', ['victim@example.test']);
    expect(rows[0].n).toBe(1);
  });

  it('a real token presented with another address is refused on opening too', async () => {
    const t = everything();
    const link = new URL(await mailedLink(t, 'owner@example.test'));
    link.searchParams.set('email', 'victim@example.test');
    const res = await t.newClient().get(link.href);
    expect(res.location?.href).toBe(`${ORIGIN}/auth/error?error=Verification`);
  });

  it('opening a real link shows its address and consumes nothing; confirming signs in', async () => {
    const t = everything();
    const link = await mailedLink(t, 'real@example.test');
    for (const client of [t.newClient(), t.client]) {
      const res = await client.get(link);
      expect(text(await res.clone().text())).toContain('Sign in as real@example.test?');
    }
    const page = await t.client.get(link);
    const [form] = readForms(await page.text());
    const done = await t.client.post(new URL(form.action, page.requestUrl), form.fields);
    expect(done.location?.href).toBe(`${ORIGIN}/dashboard`);
    expect(sessionWrites(done)).toHaveLength(1);
  });

  it('with an adapter that cannot look a token up (an Auth.js adapter), the page names no address', async () => {
    const { getVerificationToken: _none, withTransaction: _tx, migrate: _m, ...authjsLike } = pg.adapter;
    const t = testAuth({ providers: [email], adapter: authjsLike });
    const forged = await t.client.get(`/auth/callback/email?token=${'b'.repeat(64)}&email=victim%40example.test`);
    expect(forged.status).toBe(200);
    const page = await forged.text();
    expect(page).not.toContain('victim');
    expect(text(page)).toContain('Continue signing in?');
    // Confirming the forged link still fails where the token is used.
    const [form] = readForms(page);
    const refused = await t.client.post(new URL(form.action, forged.requestUrl), form.fields);
    expect(refused.location?.href).toBe(`${ORIGIN}/auth/error?error=Verification`);
  });
});

// ---- text/plain bodies --------------------------------------------------------------------------------------

/**
 * Content types a cross-site page may send without a CORS preflight (a `<form enctype="text/plain">`, or
 * `fetch(…, { mode: 'no-cors' })`, whose Content-Type only has to have the essence text/plain).
 */
const PLAIN_TYPES = ['text/plain', 'text/plain; charset=utf-8', 'text/plain; application/json', 'text/plain;a=application/json', 'text/plain; application/x-www-form-urlencoded'];

/** What each integration under test answers with, reached through a cookie-carrying client. */
interface Target {
  name: string;
  client: () => TestClient;
  basePath: string;
}

function plainPost(client: TestClient, path: string, type: string, body: string): Promise<ClientResponse> {
  return client.request(new Request(new URL(path, client.baseUrl), { method: 'POST', headers: { 'content-type': type }, body }));
}

/** The fields encoded as the type's parameter pretends (a form for `…x-www-form-urlencoded`), else as JSON. */
function disguised(type: string, fields: Record<string, unknown>): string {
  return type.includes('x-www-form-urlencoded') ? new URLSearchParams(fields as Record<string, string>).toString() : JSON.stringify(fields);
}

async function csrfOf(client: TestClient, basePath: string): Promise<string> {
  return ((await (await client.get(`${basePath}/csrf`)).json()) as { csrfToken: string }).csrfToken;
}

/** An Express-like server whose body-parser (express.json/urlencoded/text-style) has consumed every POST body. */
function nodeServer(config: AuthConfig, parser: 'none' | 'json-any' | 'text'): Server {
  const auth = ServerAuth(config);
  return createServer(async (req: IncomingMessage & { originalUrl?: string; body?: unknown }, res: ServerResponse) => {
    if (parser !== 'none' && req.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const type = req.headers['content-type'] ?? '';
      // json-any: a parser configured to take JSON whatever the type says (`express.json({ type: '*/*' })`).
      if (parser === 'json-any') req.body = type.includes('x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(raw)) : JSON.parse(raw || '{}');
      else req.body = type.startsWith('text/') ? raw : type.includes('json') ? JSON.parse(raw) : Object.fromEntries(new URLSearchParams(raw));
    }
    await auth(req, res, () => {
      res.statusCode = 404;
      res.end();
    });
  });
}

describe('a text/plain body is never read as JSON (nor as a form)', () => {
  const config = (overrides: Partial<AuthConfig> = {}): AuthConfig => ({
    providers: [adaProvider(), offlineOAuth],
    secret: TEST_SECRET,
    trustHost: true,
    logger: recordingLogger(),
    callbacks: { jwt: ({ token, trigger, session }) => (trigger === 'update' ? { ...token, name: (session as { name?: string })?.name ?? token.name } : token) },
    ...overrides,
  });
  const servers: Server[] = [];
  const targets: Target[] = [];

  beforeAll(async () => {
    const h3 = new H3();
    h3.all('/auth/**', createAuthHandler(config()));
    targets.push({ name: 'h3 createAuthHandler', basePath: '/auth', client: () => createClient({ fetch: (r) => Promise.resolve(h3.fetch(r)), baseUrl: ORIGIN }) });
    const { handlers } = AuthInit(config());
    targets.push({ name: 'AuthInit handlers', basePath: '/api/auth', client: () => createClient({ fetch: (r) => (r.method === 'POST' ? handlers.POST(r) : handlers.GET(r)), baseUrl: ORIGIN }) });
    for (const parser of ['none', 'json-any', 'text'] as const) {
      const server = nodeServer(config(), parser);
      servers.push(server);
      const url = await new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
      targets.push({ name: `Node ServerAuth, body-parser ${parser}`, basePath: '/auth', client: () => createClient({ baseUrl: url }) });
    }
  });
  afterAll(async () => {
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  it.each(PLAIN_TYPES)('credentials callback with %s: CSRF fails even with the right token in the body, no session', async (type) => {
    for (const target of targets) {
      const client = target.client();
      const csrfToken = await csrfOf(client, target.basePath);
      const body = disguised(type, { csrfToken, email: ADA.email, password: PASSWORD });
      const res = await plainPost(client, `${target.basePath}/callback/credentials`, type, body);
      expect(res.status, target.name).toBe(302);
      expect(res.location?.searchParams.get('error'), target.name).toBe('MissingCSRF');
      expect(sessionWrites(res), target.name).toHaveLength(0);
      // The same fields as a real form sign in, so the refusal is the content type's alone.
      const form = await client.post(`${target.basePath}/callback/credentials`, { csrfToken, email: ADA.email, password: PASSWORD });
      expect(sessionWrites(form), target.name).toHaveLength(1);
    }
  });

  it.each(PLAIN_TYPES)('sign-in and session update with %s are refused as missing CSRF', async (type) => {
    for (const target of targets) {
      const client = target.client();
      const csrfToken = await csrfOf(client, target.basePath);
      await client.post(`${target.basePath}/callback/credentials`, { csrfToken, email: ADA.email, password: PASSWORD });
      const signin = await plainPost(client, `${target.basePath}/signin/acme`, type, disguised(type, { csrfToken }));
      expect(signin.location?.searchParams.get('error'), target.name).toBe('MissingCSRF');
      const update = await plainPost(client, `${target.basePath}/session`, type, JSON.stringify({ csrfToken, data: { name: 'Mallory' } }));
      expect(update.status, target.name).toBe(400);
      const session = (await (await client.get(`${target.basePath}/session`)).json()) as { user?: { name?: string } };
      expect(session.user?.name, target.name).toBe(ADA.name);
    }
  });

  it('with skipCSRFCheck, a text/plain body reaches the flow empty', async () => {
    const seen: unknown[] = [];
    // A form that names no account field (`identifier: false`) reaches `authorize` empty.
    const t = testAuth({ providers: [adaProvider({ identifier: false, authorize: async (c) => (seen.push({ ...c }), null) })], skipCSRFCheck });
    await plainPost(t.client, '/auth/callback/credentials', 'text/plain; application/json', JSON.stringify({ email: ADA.email, password: PASSWORD }));
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toHaveProperty('email', ADA.email);
    expect(seen[0]).not.toHaveProperty('password', PASSWORD);
    // One that names its account field does not reach it at all: no identifier is a 400 (issue 25).
    const named = testAuth({ providers: [adaProvider({ authorize: async (c) => (seen.push({ ...c }), null) })], skipCSRFCheck });
    const res = await plainPost(named.client, '/auth/callback/credentials', 'text/plain; application/json', JSON.stringify({ email: ADA.email, password: PASSWORD }));
    expect(res.status).toBe(400);
    expect(seen).toHaveLength(1);
  });

  it('JSON with its own content type is still read (application/json, any case, with parameters)', async () => {
    for (const type of ['application/json', 'Application/JSON; charset=utf-8']) {
      const t = testAuth({ providers: [adaProvider()] });
      const csrfToken = await t.csrfToken();
      const res = await plainPost(t.client, '/auth/callback/credentials', type, JSON.stringify({ csrfToken, email: ADA.email, password: PASSWORD }));
      expect(sessionWrites(res), type).toHaveLength(1);
    }
  });
});
