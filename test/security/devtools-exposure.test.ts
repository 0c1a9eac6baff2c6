// Attacks on the development tools: another browser reading someone's failed sign-in (e-mail address, profile,
// evidence) from the inspector's list, by flow id, or through the error page's trace; the tools answering in
// production; and secrets (OAuth state, tokens, codes, challenges) written into a trace where a page or a log shows it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuthConfig } from '../../src/core/options.js';
import { redactText, redactValue, type FlowRecord } from '../../src/flows/runtime/record.js';
import { Credentials } from '../../src/providers/credentials.js';
import { offlineOAuth } from '../support/offline-oauth.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';

const TRACE_COOKIE = 'authchart.flow-trace';
const BROWSER_COOKIE = 'authchart.flow-browser';

// A directory that is down: the failure's evidence carries the address the user typed.
const credentials = Credentials({
  credentials: { email: {}, password: {} },
  authorize: async (c) => {
    throw new Error(`directory down while looking up ${String(c.email)}`);
  },
});

afterEach(() => {
  vi.unstubAllEnvs();
});

function app(debug: AuthConfig['debug']): TestAuth {
  return testAuth({ providers: [credentials, offlineOAuth], debug });
}

/** Browser A signs in and fails; returns the failed flow's id, as A's trace cookie names it. */
async function aliceFails(t: TestAuth): Promise<string> {
  const csrfToken = await t.csrfToken();
  const res = await t.client.post('/auth/callback/credentials', { csrfToken, email: 'alice@example.test', password: 'pw' });
  expect(res.location?.href).toMatch(/\/auth\/error\?error=Configuration$/);
  const id = t.client.cookies.get(TRACE_COOKIE);
  expect(id).toMatch(/^[0-9a-f]{16}$/);
  return id!;
}

async function inspectorList(client: TestClient): Promise<string> {
  const res = await client.get('/auth/_inspect');
  expect(res.status).toBe(200);
  return res.text();
}

async function errorPage(client: TestClient): Promise<string> {
  return (await client.get('/auth/error?error=Configuration')).text();
}

describe('in development, a browser sees only the flows it ran', () => {
  it("A sees its failed flow: in the list, by id, and as the error page's trace", async () => {
    const t = app(true);
    const id = await aliceFails(t);
    expect(await inspectorList(t.client)).toContain(id);
    const flow = await t.client.get(`/auth/_inspect/${id}`);
    expect(flow.status).toBe(200);
    expect(await flow.text()).toContain('alice@example.test');
    const page = await errorPage(t.client);
    expect(page).toContain('Debug trace');
    expect(page).toContain('alice@example.test');
    // The browser id that binds them: 128 random bits in a cookie no script can read.
    expect(t.client.cookies.get(BROWSER_COOKIE)).toMatch(/^[0-9a-f]{32}$/);
    const fresh = t.newClient();
    const csrfToken = await t.csrfToken(fresh);
    const res = await fresh.post('/auth/callback/credentials', { csrfToken, email: 'x@example.test', password: 'pw' });
    const line = res.setCookie.find((l) => l.startsWith(`${BROWSER_COOKIE}=`));
    expect(line).toMatch(/; HttpOnly/i);
    expect(line).not.toMatch(/max-age/i);
  });

  it("B (another client, no cookies) cannot see A's flow in the list, by id, or on the error page", async () => {
    const t = app(true);
    const id = await aliceFails(t);
    const bob = t.newClient();
    const list = await inspectorList(bob);
    expect(list).not.toContain(id);
    expect(list).not.toContain('alice@example.test');
    expect(list).toContain('No flows yet from this browser');
    const byId = await bob.get(`/auth/_inspect/${id}`);
    expect(byId.status).toBe(404);
    const missing = await byId.text();
    expect(missing).not.toContain('alice@example.test');
    expect(missing).toContain('No such flow');
    const page = await errorPage(bob);
    expect(page).not.toContain('Debug trace');
    expect(page).not.toContain('alice@example.test');
  });

  it("B holding A's flow id in its own trace cookie (a leaked error-page link or log line) still sees nothing", async () => {
    const t = app(true);
    const id = await aliceFails(t);
    const bob = t.newClient();
    const host = new URL(t.client.baseUrl).host;
    bob.cookies.set(TRACE_COOKIE, id, host, { path: '/' });
    expect(await errorPage(bob)).not.toContain('alice@example.test');
    // A browser id of its own (B ran a flow too) does not open A's either; a made-up one neither.
    const csrfToken = await t.csrfToken(bob);
    await bob.post('/auth/callback/credentials', { csrfToken, email: 'bob@example.test', password: 'pw' });
    bob.cookies.set(TRACE_COOKIE, id, host, { path: '/' });
    expect(await errorPage(bob)).not.toContain('alice@example.test');
    expect(await inspectorList(bob)).not.toContain(id);
    bob.cookies.set(BROWSER_COOKIE, 'f'.repeat(32), host, { path: '/' });
    expect(await inspectorList(bob)).not.toContain(id);
    expect((await bob.get(`/auth/_inspect/${id}`)).status).toBe(404);
  });

  it('a paused OAuth sign-in and its failed callback stay one flow of the browser that ran both', async () => {
    const t = app(true);
    await t.client.post('/auth/signin/acme', { csrfToken: await t.csrfToken() });
    await t.client.get('/auth/callback/acme?code=c&state=forged');
    const ids = [...new Set(t.logger.debugs.filter((d) => d.message.startsWith('flow oauth')).map((d) => (d.metadata as FlowRecord).id))];
    expect(ids).toHaveLength(1);
    const page = await (await t.client.get(`/auth/_inspect/${ids[0]}`)).text();
    expect(page).toContain('in 2 requests');
    expect((await t.newClient().get(`/auth/_inspect/${ids[0]}`)).status).toBe(404);
  });
});

describe("with debug: { inspector: 'shared' }, every browser sees every flow", () => {
  it("B sees A's flow in the list, by id, and (holding its id) on the error page", async () => {
    const t = app({ inspector: 'shared' });
    const id = await aliceFails(t);
    const bob = t.newClient();
    const list = await inspectorList(bob);
    expect(list).toContain(id);
    expect(list).toContain("every browser's flows");
    expect((await bob.get(`/auth/_inspect/${id}`)).status).toBe(200);
    bob.cookies.set(TRACE_COOKIE, id, new URL(t.client.baseUrl).host, { path: '/' });
    expect(await errorPage(bob)).toContain('alice@example.test');
  });
});

describe('production never serves the inspector or a trace', () => {
  it.each([true, { inspector: 'shared' as const }])('not with debug: %j', async (debug) => {
    vi.stubEnv('NODE_ENV', 'production');
    const t = app(debug);
    const id = await aliceFails(t).catch(() => undefined);
    // No development cookie is even set in production.
    expect(t.client.cookies.get(BROWSER_COOKIE)).toBeUndefined();
    expect(t.client.cookies.get(TRACE_COOKIE)).toBeUndefined();
    for (const client of [t.client, t.newClient()]) {
      const host = new URL(client.baseUrl).host;
      client.cookies.set(TRACE_COOKIE, id ?? '0123456789abcdef', host, { path: '/' });
      for (const path of ['/auth/_inspect', `/auth/_inspect/${id ?? '0123456789abcdef'}`, '/auth/_inspect/mermaid.js']) {
        const res = await client.get(path);
        expect(res.status, path).toBe(400);
        expect(await res.json()).toEqual({ error: 'UnknownAction', message: 'Bad request.' });
      }
      const page = await errorPage(client);
      expect(page).not.toContain('Debug trace');
      expect(page).not.toContain('alice@example.test');
    }
  });
});

describe('secrets never reach a trace', () => {
  it("a forged OAuth callback's evidence names neither the real state nor the forged one, in the page or the log", async () => {
    const t = app(true);
    const start = await t.client.post('/auth/signin/acme', { csrfToken: await t.csrfToken() });
    const state = start.location!.searchParams.get('state')!;
    expect(state.length).toBeGreaterThanOrEqual(20);
    const forged = 'forgedStateValue0123456789abcdefXYZ';
    const code = 'authCode0123456789abcdefghijklmnop';
    await t.client.get(`/auth/callback/acme?code=${code}&state=${forged}`);
    const records = t.logger.debugs.filter((d) => d.message.startsWith('flow oauth')).map((d) => JSON.stringify(d.metadata));
    const id = (t.logger.debugs.at(-1)!.metadata as FlowRecord).id;
    const page = await (await t.client.get(`/auth/_inspect/${id}`)).text();
    const errorTrace = await errorPage(t.client);
    for (const shown of [...records, page, errorTrace]) {
      for (const secret of [state, forged, code]) expect(shown).not.toContain(secret);
    }
    // The evidence still says what failed, and whether the two values matched (they did not).
    const last = t.logger.debugs.at(-1)!.metadata as FlowRecord;
    expect(last.error?.type).toBe('InvalidCheck');
    expect(String(last.error?.expected)).toMatch(/^\[redacted #[0-9a-f]{8}\]$/);
    expect(last.error?.actual).not.toEqual(last.error?.expected);
  });

  it('redacts tokens, codes, session ids, challenges and secret fields, and keeps what explains a failure', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWduYXR1cmU';
    const hex = 'a'.repeat(10) + '0123456789abcdef0123456789abcdef';
    const uuid = '3f1c2b8e-9a7d-4e21-b5f0-6c2d8e9a1b47';
    const text = redactText(`id token ${jwt} token ${hex} session ${uuid} at https://op.test/cb?code=abc&state=xyz&iss=https%3A%2F%2Fop.test`);
    for (const secret of [jwt.split('.')[1], hex, uuid, 'code=abc', 'state=xyz']) expect(text).not.toContain(secret);
    expect(text).toContain('iss=https%3A%2F%2Fop.test');
    expect(text).toContain('https://op.test/cb?code=[redacted]');
    expect(redactText('"access_token":"short","scope":"read"')).toBe('"access_token":"[redacted]","scope":"read"');
    // One value, one fingerprint: expected vs. actual still shows equality.
    expect(redactText(hex)).toBe(redactText(hex));
    expect(redactText(hex)).not.toBe(redactText(hex.replace('a', 'b')));
    expect(
      redactValue({ access_token: 'at', refresh_token: 'rt', id_token: jwt, code_verifier: 'v', password: 'hunter2', csrfToken: 'c', response: { signature: 's', clientDataJSON: hex }, email: 'ada@example.test', scope: 'openid' }),
    ).toEqual({
      access_token: '[redacted]',
      refresh_token: '[redacted]',
      id_token: '[redacted]',
      code_verifier: '[redacted]',
      password: '[redacted]',
      csrfToken: '[redacted]',
      response: { signature: '[redacted]', clientDataJSON: redactText(hex) },
      email: 'ada@example.test',
      scope: 'openid',
    });
    // What explains a failure stays readable.
    for (const kept of ['WebAuthnVerificationError', 'failed.credentialsSignin', 'xstate.done.actor.authorize', 'before 2030-01-01T12:00:00.000Z', 'https://login.microsoftonline.com/common/v2.0', 'a user with an id', 'microsoft-entra-id']) {
      expect(redactText(kept)).toBe(kept);
    }
  });
});
