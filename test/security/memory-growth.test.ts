// Memory an anonymous client can grow: nothing keyed by what a request says may accumulate. Thousands of distinct
// Host headers on an OAuth sign-in must leave one normalised provider, not one per host (each was ~1.8 KB, forever).
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as normalize from '../../src/providers/oauth-normalize.js';
import { testAuth } from '../support/auth-app.js';
import { offlineOAuth } from '../support/offline-oauth.js';

// Every normalisation the OAuth flow keeps is counted here: a per-host cache would call it once per new host.
vi.mock('../../src/providers/oauth-normalize.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/providers/oauth-normalize.js')>();
  return { ...actual, normalizeOAuthProvider: vi.fn(actual.normalizeOAuthProvider) };
});

const HOSTS = 2_000;

afterEach(() => {
  vi.mocked(normalize.normalizeOAuthProvider).mockClear();
});

describe('the OAuth provider cache under many Host headers', () => {
  it.each([
    ['Host', 'host', (host: string) => ({ host })],
    ['X-Forwarded-Host', 'xfh', (host: string) => ({ 'x-forwarded-host': host })],
  ])('normalises the provider once for %s values from thousands of hosts, and each gets its own redirect_uri', async (_name, tag, headersFor) => {
    // trustHost: true believes any host, the worst case for a per-host cache.
    const t = testAuth({ providers: [offlineOAuth], trustHost: true });
    const csrfToken = await t.csrfToken();
    for (let i = 0; i < HOSTS; i++) {
      const host = `h${i}.${tag}.example.test`;
      const res = await t.client.post('/auth/signin/acme', { csrfToken }, { headers: headersFor(host) });
      expect(res.status).toBe(302);
      // Checked on a sample: the callback URL is this request's, never a cached neighbour's.
      if (i % 500 === 0 || i === HOSTS - 1) expect(res.location?.searchParams.get('redirect_uri')).toBe(`http://${host}/auth/callback/acme`);
    }
    expect(vi.mocked(normalize.normalizeOAuthProvider).mock.calls.length).toBeLessThanOrEqual(1);
  }, 60_000);
});
