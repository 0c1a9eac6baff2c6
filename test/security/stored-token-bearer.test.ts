// Stored is never bearer (issue 25, hole 1). With `migrateFrom: 'authjs'` and database sessions, an Auth.js cookie is
// looked up as Auth.js stored it: unhashed. The value authchart stores for its own sessions (the SHA-256 of the
// token, which GET /auth/sessions shows as each session's `id`) must never pass as such a cookie: it would sign in
// as its user with no second factor, and moving it would delete the owner's row. Every Auth.js cookie name is tried,
// and the stored value as authchart's own cookie too.
import { describe, expect, it } from 'vitest';
import { Credentials } from '../../src/providers/credentials.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pglite = useMigratedPGlite();
const ORIGIN_HOST = 'localhost:3000';
const AUTHJS_NAMES = ['authjs.session-token', '__Secure-authjs.session-token', 'next-auth.session-token', '__Secure-next-auth.session-token'];

function app(): TestAuth {
  const provider = Credentials({ credentials: { email: {} }, authorize: async (c) => ({ id: String(c.email), email: String(c.email) }) });
  return testAuth({ migrateFrom: 'authjs', adapter: pglite.adapter, session: { strategy: 'database' }, providers: [provider] });
}

async function signIn(t: TestAuth, browser: TestClient, email: string): Promise<void> {
  const res = await browser.post('/auth/callback/credentials', { csrfToken: await t.csrfToken(browser), email });
  expect(res.status).toBe(302);
}

async function sessionOf(browser: TestClient): Promise<{ user?: { email?: string } } | null> {
  return (await (await browser.get('/auth/session')).json()) as { user?: { email?: string } } | null;
}

describe('a value read from the sessions table', () => {
  it.each(AUTHJS_NAMES)('is refused as the Auth.js cookie %s: no session, no authchart cookie, the owner stays signed in', async (name) => {
    const t = app();
    const owner = t.newClient();
    const email = `owner-${name.length}-${Date.now()}@example.test`;
    await signIn(t, owner, email);
    const list = (await (await owner.get('/auth/sessions')).json()) as { sessions: { id: string; current: boolean }[] };
    const stored = list.sessions.find((s) => s.current)!.id;
    expect(stored).toBeTruthy();

    const attacker = t.newClient();
    attacker.cookies.set(name, stored, ORIGIN_HOST);
    const res = await attacker.get('/auth/session');
    expect(await res.json()).toBeNull();
    expect(res.setCookie.some((l) => l.startsWith('authchart.session-token=') && !/Max-Age=0/i.test(l))).toBe(false);
    // Nor does any route that acts for a signed-in user take it.
    expect((await attacker.get('/auth/sessions')).status).toBe(401);

    // The owner's row was not moved or deleted by the attempt.
    expect(await sessionOf(owner)).toMatchObject({ user: { email } });
    const rows = await pglite.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE session_token = $1', [stored]);
    expect(rows.rows[0].n).toBe(1);
  });

  it('is refused as authchart\u2019s own cookie', async () => {
    const t = app();
    const owner = t.newClient();
    await signIn(t, owner, `own-${Date.now()}@example.test`);
    const { sessions } = (await (await owner.get('/auth/sessions')).json()) as { sessions: { id: string }[] };
    const attacker = t.newClient();
    attacker.cookies.set('authchart.session-token', sessions[0].id, ORIGIN_HOST);
    expect(await sessionOf(attacker)).toBeNull();
  });
});
