// Guessing codes at the second-factor stage with a stolen password: each pending sign-in dies after 5 wrong codes,
// and a fresh password sign-in makes a new one, so without a limit per user the guesses never end. The throttle
// counts every answer per user across all their pending sign-ins.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Credentials } from '../../src/providers/credentials.js';
import { testAuth } from '../support/auth-app.js';
import { activeTotp, codeNow, otherCode, setsSession } from '../support/factors.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pg = useMigratedPGlite();

async function victim(id: string) {
  const email = `${id}@example.com`;
  await pg.adapter.createUser({ id, email, emailVerified: null });
  const key = await activeTotp(pg.adapter, id);
  const limited: string[] = [];
  const t = testAuth({
    adapter: pg.adapter,
    session: { strategy: 'jwt' },
    secondFactor: {},
    throttle: { enabled: true },
    events: { rateLimited: (m) => void limited.push(m.limit) },
    providers: [Credentials({ credentials: { email: {}, password: {} }, authorize: (c) => (c.password === 'stolen' ? { id, email } : null) })],
  });
  const right = () => codeNow(key);
  const wrong = () => otherCode(right());
  /** A password sign-in that reaches the stage; returns the client and its CSRF token. */
  const password = async () => {
    const client = t.newClient();
    const csrfToken = await t.csrfToken(client);
    const res = await client.post('/auth/callback/credentials', { csrfToken, email, password: 'stolen' });
    expect(res.status).toBe(200);
    return { client, csrfToken };
  };
  return { t, right, wrong, password, limited };
}

afterEach(() => vi.useRealTimers());

describe('guessing second-factor codes across many pending sign-ins', () => {
  it('is refused with 429 after 10 wrong answers per user, even with the right code, whatever the pending sign-in', async () => {
    const v = await victim('sf-throttle-1');
    let answered = 0;
    for (let round = 0; round < 3 && answered < 10; round++) {
      const { client, csrfToken } = await v.password();
      for (let i = 0; i < 4 && answered < 10; i++, answered++) {
        const res = await client.post('/auth/second-factor', { csrfToken, code: v.wrong() });
        expect(res.status).toBeLessThan(400);
      }
    }
    const { client, csrfToken } = await v.password();
    const refused = await client.post('/auth/second-factor', { csrfToken, code: v.right() });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(setsSession(refused)).toBe(false);
    expect(v.limited).toEqual(['secondFactorAccount']);
  });

  it('a right code gives its point back: a user who passes the stage is never locked out by their own sign-ins', async () => {
    const v = await victim('sf-throttle-2');
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 23, 12, 0, 5) });
    for (let i = 0; i < 12; i++) {
      const { client, csrfToken } = await v.password();
      const res = await client.post('/auth/second-factor', { csrfToken, code: v.right() });
      expect(res.status).toBe(302);
      expect(setsSession(res)).toBe(true);
      // Each code is accepted once: the next sign-in uses the next 30-second step's code.
      vi.setSystemTime(Date.now() + 30_000);
    }
    expect(v.limited).toEqual([]);
  });
});
