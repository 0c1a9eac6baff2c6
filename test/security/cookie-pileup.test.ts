// Flow cookies piling up: one flow cookie per provider, 15 minutes each, so a browser that starts sign-in at 30
// providers would send a Cookie header over Node's 16 KB limit and get 431 on every request until they expire.
// A browser keeps at most MAX_STARTED_FLOWS started sign-ins; the oldest (or one that does not open) is cleared
// first; the WebAuthn options a sign-in page asks for on every view never clear an OAuth flow.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { AuthConfig } from '../../src/core/options.js';
import { MAX_STARTED_FLOWS } from '../../src/flows/runtime/cookie.js';
import { ServerAuth } from '../../src/http/integrations/node.js';
import { Passkey } from '../../src/providers/webauthn.js';
import { recordingLogger, TEST_SECRET, testAuth, type TestAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { createClient, type ClientResponse, type TestClient } from '../support/client.js';
import { OFFLINE_PROFILE, offlineOAuthAt } from '../support/offline-oauth.js';

const PROVIDERS = 30;
const ids = Array.from({ length: PROVIDERS }, (_, i) => `acme-${i}`);
const FLOW_PREFIX = 'authchart.flow.';

let server: Server | undefined;
const pg = useMigratedPGlite();

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});
afterEach(() => {
  vi.useRealTimers();
});

function config(extra: Partial<AuthConfig> = {}): AuthConfig {
  return { secret: TEST_SECRET, trustHost: true, logger: recordingLogger(), providers: ids.map(offlineOAuthAt), ...extra };
}

const flowCookies = (client: TestClient) => client.cookies.all(client.baseUrl).filter((c) => c.name.startsWith(FLOW_PREFIX)).map((c) => c.name.slice(FLOW_PREFIX.length));

async function csrfToken(client: TestClient): Promise<string> {
  return ((await (await client.get('/auth/csrf')).json()) as { csrfToken: string }).csrfToken;
}

/** Starts sign-in at `id`; returns the state the provider would echo back. */
async function start(client: TestClient, token: string, id: string): Promise<string> {
  const res = await client.post(`/auth/signin/${id}`, { csrfToken: token, callbackUrl: '/dashboard' });
  expect(res.status, `sign-in start at ${id}`).toBe(302);
  return res.location!.searchParams.get('state')!;
}

/** The provider's redirect back with a code and the state. */
const callback = (client: TestClient, id: string, state: string): Promise<ClientResponse> => client.get(`/auth/callback/${id}?code=c-${id}&state=${state}`);

describe('sign-in started at 30 OAuth providers, over a real Node server (16 KB header limit)', () => {
  it('keeps the Cookie header small, answers every later request, and the latest sign-in completes', async () => {
    server = createServer(ServerAuth(config()));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const client = createClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    const token = await csrfToken(client);
    const states = new Map<string, string>();
    let largest = 0;
    for (const id of ids) {
      states.set(id, await start(client, token, id));
      largest = Math.max(largest, client.cookies.header(client.baseUrl).length);
      expect(flowCookies(client).length).toBeLessThanOrEqual(MAX_STARTED_FLOWS);
    }
    expect(largest).toBeLessThan(8 * 1024);
    expect(flowCookies(client).sort()).toEqual(ids.slice(-MAX_STARTED_FLOWS).sort());

    // A request after all that is answered (not 431), and the latest sign-in completes.
    expect((await client.get('/auth/session')).status).toBe(200);
    const done = await callback(client, 'acme-29', states.get('acme-29')!);
    expect(done.status).toBe(302);
    expect(done.location?.pathname).toBe('/dashboard');
    expect(((await (await client.get('/auth/session')).json()) as { user?: { email?: string } }).user?.email).toBe(OFFLINE_PROFILE.email);

    // A sign-in whose flow was cleared fails as a missing flow cookie would: an error page, no session change.
    const cleared = await callback(client, 'acme-0', states.get('acme-0')!);
    expect(cleared.location?.searchParams.get('error')).toBe('Configuration');
  }, 60_000);
});

describe('which flow cookies are cleared', () => {
  it('clears the oldest by the expiry sealed inside, not the provider order', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2031-01-01T10:00:00Z'));
    const t = testAuth(config());
    const token = await t.csrfToken();
    for (const id of ['acme-7', 'acme-3', 'acme-5']) {
      await start(t.client, token, id);
      vi.setSystemTime(Date.now() + 10_000);
    }
    const res = await t.client.post('/auth/signin/acme-1', { csrfToken: token });
    expect(res.setCookie.filter((l) => /^authchart\.flow\.[^=]+=;/.test(l)).map((l) => l.split('=')[0])).toEqual(['authchart.flow.acme-7']);
    expect(flowCookies(t.client).sort()).toEqual(['acme-1', 'acme-3', 'acme-5']);
  });

  it('clears a flow cookie that does not open before any real one, however young its forger says it is', async () => {
    const t = testAuth(config());
    const token = await t.csrfToken();
    await start(t.client, token, 'acme-1');
    await start(t.client, token, 'acme-2');
    // Planted: a value that is no flow this server sealed (tampered, or sealed with another secret).
    t.client.cookies.set(`${FLOW_PREFIX}acme-9`, 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIiwiZXhwIjo5OTk5OTk5OTk5fQ..x.y.z', t.client.baseUrl);
    await start(t.client, token, 'acme-3');
    expect(flowCookies(t.client).sort()).toEqual(['acme-1', 'acme-2', 'acme-3']);
  });

  it('leaves cookies of names no configured provider has alone (another app on the same host)', async () => {
    const t = testAuth(config());
    const token = await t.csrfToken();
    t.client.cookies.set(`${FLOW_PREFIX}elsewhere`, 'not-ours', t.client.baseUrl);
    for (const id of ['acme-1', 'acme-2', 'acme-3', 'acme-4']) await start(t.client, token, id);
    expect(flowCookies(t.client).sort()).toEqual(['acme-2', 'acme-3', 'acme-4', 'elsewhere']);
  });
});

describe('the WebAuthn options every sign-in page view asks for', () => {
  function withPasskey(): TestAuth {
    return testAuth(config({ adapter: pg.adapter, experimental: { enableWebAuthn: true }, providers: [...ids.slice(0, 5).map(offlineOAuthAt), Passkey()] }));
  }
  const pageView = (client: TestClient) => client.get('/auth/webauthn-options/passkey');

  it('never clears an OAuth sign-in waiting in another tab, and an OAuth start never clears it', async () => {
    const t = withPasskey();
    const token = await t.csrfToken();
    const states = new Map<string, string>();
    for (const id of ['acme-0', 'acme-1', 'acme-2']) states.set(id, await start(t.client, token, id));
    for (let view = 0; view < 5; view++) expect((await pageView(t.client)).status).toBe(200);
    expect(flowCookies(t.client).sort()).toEqual(['acme-0', 'acme-1', 'acme-2', 'passkey']);

    // A fourth OAuth start clears the oldest OAuth flow, not the page's passkey options.
    await start(t.client, token, 'acme-3');
    expect(flowCookies(t.client)).toContain('passkey');
    expect(flowCookies(t.client).filter((n) => n !== 'passkey')).toHaveLength(MAX_STARTED_FLOWS);

    // The waiting OAuth sign-ins that were kept still complete after more page views.
    await pageView(t.client);
    const done = await callback(t.client, 'acme-2', states.get('acme-2')!);
    expect(done.location?.pathname).toBe('/dashboard');
  });
});
