// A password sign-in of a user with an authenticator app goes on to the second-factor stage, as a credentials
// sign-in does: the right password alone sets no session; the code then does, with both factors in the session.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { argon2id, hashNewPassword, Password } from '../../../src/providers/password/index.js';
import { testAuth } from '../../support/auth-app.js';
import { activeTotp, codeNow, setsSession, stageCookieOf } from '../../support/factors.js';
import { useMigratedPGlite } from '../../support/pglite.js';

const pg = useMigratedPGlite();
const PASSWORD = 'correct horse battery staple';
const hasher = argon2id({ memoryCost: 1024, timeCost: 1 });

describe('password sign-in and the second-factor stage', () => {
  it('pauses for the code after the right password, then signs in with pwd and otp', async () => {
    const email = `${randomUUID()}@example.com`;
    const { id } = await pg.adapter.createUser({ id: randomUUID(), email, emailVerified: null });
    await pg.adapter.setPasswordHash(id, await hashNewPassword(PASSWORD, { hasher }));
    const key = await activeTotp(pg.adapter, id);
    const t = testAuth({ providers: [Password({ hasher })], adapter: pg.adapter, session: { strategy: 'database' }, secondFactor: {} });

    const csrfToken = await t.csrfToken();
    const first = await t.client.post('/auth/callback/password', { csrfToken, email, password: PASSWORD, callbackUrl: '/dashboard' });
    // The stage's page, asking for the code; no session yet.
    expect(first.status).toBe(200);
    expect(await first.text()).toContain('Two-step verification');
    expect(setsSession(first)).toBe(false);
    expect(stageCookieOf(first)).toBeDefined();

    const second = await t.client.post('/auth/second-factor', { csrfToken, code: codeNow(key) });
    expect(second.status).toBe(302);
    expect(second.headers.get('location')).toBe('http://localhost:3000/dashboard');
    expect(setsSession(second)).toBe(true);
    const { rows } = await pg.db.query<{ amr: string }>('SELECT amr FROM sessions WHERE user_id = $1', [id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.amr).toContain('pwd');
    expect(rows[0]!.amr).toContain('otp');
  });
});
