// authchart/client honours next-auth's `callbackUrl` in signIn and signOut (as next-auth v5's client does), against a
// real authchart instance: the client's fetch goes to the instance through a cookie-keeping test browser.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, signOut } from '../../src/client/core.js';
import { Credentials } from '../../src/providers/credentials.js';
import { ORIGIN, testAuth } from '../support/auth-app.js';

const t = testAuth({ providers: [Credentials({ credentials: { email: {}, password: {} }, authorize: (c) => (c.password === 'pw' ? { id: 'u1', email: String(c.email) } : null) })] });
const assigned: string[] = [];
const saved = { fetch: globalThis.fetch, window: (globalThis as { window?: unknown }).window };

beforeAll(() => {
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => t.client.request(new Request(new URL(String(input), ORIGIN), init))) as typeof fetch;
  (globalThis as { window?: unknown }).window = { location: { href: `${ORIGIN}/current`, assign: (url: string) => void assigned.push(url), reload: () => {} } };
});
afterAll(() => {
  globalThis.fetch = saved.fetch;
  (globalThis as { window?: unknown }).window = saved.window;
});

describe('callbackUrl', () => {
  it('signIn lands on the callbackUrl it names, not the current page', async () => {
    assigned.length = 0;
    await signIn('credentials', { email: 'ada@example.test', password: 'pw', callbackUrl: '/dashboard' });
    expect(assigned).toEqual([`${ORIGIN}/dashboard`]);
  });

  it('redirectTo wins over callbackUrl; neither: the current page', async () => {
    assigned.length = 0;
    await signIn('credentials', { email: 'ada@example.test', password: 'pw', callbackUrl: '/dashboard', redirectTo: '/settings' });
    await signIn('credentials', { email: 'ada@example.test', password: 'pw' });
    expect(assigned).toEqual([`${ORIGIN}/settings`, `${ORIGIN}/current`]);
  });

  it('signOut lands on its callbackUrl', async () => {
    assigned.length = 0;
    await signOut({ callbackUrl: '/goodbye' });
    expect(assigned).toEqual([`${ORIGIN}/goodbye`]);
  });
});
