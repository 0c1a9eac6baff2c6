// The verified-token cache (exact session token → claims, per configuration) must never keep a session alive that
// the gate would refuse: expiry is checked on every hit, "sign out everywhere" still ends a cached token at once, a
// token that differs by one character is not the cached one, and a token one configuration verified means nothing
// to another. Each attack first makes sure the token IS cached, so a pass is not a cache miss in disguise.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionsValidAfterStore } from '../../src/core/options.js';
import { createAuthInstance } from '../../src/http/auth.js';
import { Credentials } from '../../src/providers/credentials.js';
import { verifiedTokenCount } from '../../src/session/jwt-strategy.js';
import type { AuthConfig } from '../../src/index.js';
import type { InternalConfig } from '../../src/core/config.js';
import { createClient, type TestClient } from '../support/client.js';
import { ORIGIN, TEST_SECRET, recordingLogger } from '../support/auth-app.js';

const COOKIE = 'authchart.session-token';
const provider = Credentials({ credentials: { email: {} }, authorize: (c) => ({ id: String(c.email), email: String(c.email) }) });

/** "Sessions valid after" times in memory: what `session.validAfter` keeps (Redis in production). */
function memoryValidAfter(): SessionsValidAfterStore {
  const times = new Map<string, Date>();
  return { get: async (userId) => times.get(userId) ?? null, set: async (userId, at) => void times.set(userId, at) };
}

interface App {
  config: InternalConfig;
  client(): TestClient;
}

async function app(extra: Partial<AuthConfig> = {}): Promise<App> {
  const full = { secret: TEST_SECRET, trustHost: true, logger: recordingLogger(), providers: [provider], session: { strategy: 'jwt' as const, updateAge: 3600, validAfter: memoryValidAfter() }, ...extra };
  const { config, app: h3 } = await createAuthInstance(full, { defaultBasePath: '/auth' }).resolve(undefined);
  return { config, client: () => createClient({ fetch: (r) => Promise.resolve(h3.fetch(r)), baseUrl: ORIGIN }) };
}

async function signIn(client: TestClient, email: string): Promise<void> {
  const { csrfToken } = (await (await client.get('/auth/csrf')).json()) as { csrfToken: string };
  expect((await client.post('/auth/callback/credentials', { csrfToken, email })).status).toBe(302);
}

const sessionEmail = async (client: TestClient) => ((await (await client.get('/auth/session')).json()) as { user?: { email?: string } } | null)?.user?.email ?? null;
const later = (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1000);

describe('the verified-token cache', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 25, 12, 0, 0) }));
  afterEach(() => vi.useRealTimers());

  it('serves a repeat check of the same token from the cache', async () => {
    const a = await app();
    const browser = a.client();
    await signIn(browser, 'ada@example.test');
    expect(verifiedTokenCount(a.config)).toBe(0);
    expect(await sessionEmail(browser)).toBe('ada@example.test');
    expect(verifiedTokenCount(a.config)).toBe(1);
    expect(await sessionEmail(browser)).toBe('ada@example.test');
    expect(verifiedTokenCount(a.config)).toBe(1);
  });

  it('is bounded: the oldest token goes first, and 0 turns it off', async () => {
    const a = await app({ jwt: { verifiedTokenCache: 2 } });
    for (const who of ['a', 'b', 'c']) {
      const browser = a.client();
      await signIn(browser, `${who}@example.test`);
      expect(await sessionEmail(browser)).toBe(`${who}@example.test`);
    }
    expect(verifiedTokenCount(a.config)).toBe(2);
    const off = await app({ jwt: { verifiedTokenCache: 0 } });
    const browser = off.client();
    await signIn(browser, 'ada@example.test');
    expect(await sessionEmail(browser)).toBe('ada@example.test');
    expect(verifiedTokenCount(off.config)).toBe(0);
  });

  it('refuses a cached token once it has expired, and forgets it', async () => {
    const a = await app({ jwt: { maxAge: 60 } });
    const browser = a.client();
    await signIn(browser, 'ada@example.test');
    expect(await sessionEmail(browser)).toBe('ada@example.test');
    expect(verifiedTokenCount(a.config)).toBe(1);
    const token = browser.cookies.get(COOKIE)!;
    later(50);
    expect(await sessionEmail(browser)).toBe('ada@example.test');
    // Past `exp` and the clock tolerance: the same token string, now refused.
    later(30);
    // The browser would have dropped the cookie; an attacker replays it.
    const replay = a.client();
    replay.cookies.set(COOKIE, token, ORIGIN);
    expect(await sessionEmail(replay)).toBeNull();
    expect(verifiedTokenCount(a.config)).toBe(0);
  });

  it('refuses a cached token after "sign out everywhere" from another browser', async () => {
    const a = await app();
    const [laptop, phone] = [a.client(), a.client()];
    await signIn(laptop, 'ada@example.test');
    await signIn(phone, 'ada@example.test');
    expect(await sessionEmail(phone)).toBe('ada@example.test');
    const stolen = phone.cookies.get(COOKIE)!;
    expect(verifiedTokenCount(a.config)).toBeGreaterThanOrEqual(1);
    later(1);
    const { csrfToken } = (await (await laptop.get('/auth/csrf')).json()) as { csrfToken: string };
    expect((await laptop.post('/auth/sessions/revoke', { csrfToken, scope: 'others' })).status).toBe(200);
    // The phone's token is still in the cache, byte for byte: the gate refuses it anyway.
    const thief = a.client();
    thief.cookies.set(COOKIE, stolen, ORIGIN);
    expect(await sessionEmail(thief)).toBeNull();
    expect(await sessionEmail(phone)).toBeNull();
    expect(await sessionEmail(laptop)).toBe('ada@example.test');
  });

  it('does not take a token that differs from a cached one by one character', async () => {
    const a = await app();
    const browser = a.client();
    await signIn(browser, 'ada@example.test');
    expect(await sessionEmail(browser)).toBe('ada@example.test');
    const token = browser.cookies.get(COOKIE)!;
    const forger = a.client();
    // The last character of the tag: a flip there leaves every other part as cached.
    const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'Q' : 'A');
    forger.cookies.set(COOKIE, flipped, ORIGIN);
    expect(await sessionEmail(forger)).toBeNull();
    forger.cookies.set(COOKIE, `${token}.`, ORIGIN);
    expect(await sessionEmail(forger)).toBeNull();
  });

  it('a token one configuration verified is refused by another with another secret', async () => {
    const a = await app();
    const b = await app({ secret: `${TEST_SECRET}-other` });
    const browser = a.client();
    await signIn(browser, 'ada@example.test');
    expect(await sessionEmail(browser)).toBe('ada@example.test');
    const carried = b.client();
    carried.cookies.set(COOKIE, browser.cookies.get(COOKIE)!, ORIGIN);
    expect(await sessionEmail(carried)).toBeNull();
    expect(verifiedTokenCount(b.config)).toBe(0);
  });
});
