// A leaked sessions table must yield no usable cookie: tokens are stored as their SHA-256, and the migration that
// introduced this hashes the rows already there, so the cookies of those sessions keep working.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, migrations, PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { Credentials } from '../../src/providers/credentials.js';
import { testAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pglite = useMigratedPGlite();
const SESSION_COOKIE = 'authchart.session-token';
const provider = Credentials({ credentials: { email: {} }, authorize: (c) => ({ id: String(c.email), email: String(c.email) }) });
const readSession = async (t: ReturnType<typeof testAuth>, cookie: string) =>
  (await t.handle(new Request('http://localhost:3000/auth/session', { headers: { cookie: `${SESSION_COOKIE}=${cookie}` } }))).json();

describe('the sessions table', () => {
  it('holds no cookie: a stolen row does not sign anyone in, the cookie does', async () => {
    const t = testAuth({ adapter: pglite.adapter, session: { strategy: 'database' }, providers: [provider] });
    const res = await t.client.post('/auth/callback/credentials', { csrfToken: await t.csrfToken(), email: 'leak@example.test' });
    expect(res.status).toBe(302);
    const cookie = t.client.cookies.get(SESSION_COOKIE)!;
    const { rows } = await pglite.db.query<{ session_token: string }>(`SELECT session_token FROM sessions WHERE user_id = 'leak@example.test'`);
    expect(rows).toHaveLength(1);
    const stolen = rows[0].session_token;
    expect(stolen).not.toBe(cookie);
    expect(stolen).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await readSession(t, stolen)).toBeNull();
    expect(await readSession(t, cookie)).toMatchObject({ user: { email: 'leak@example.test' } });
  });
});

describe('the migration to hashed tokens', () => {
  const dbs: PGlite[] = [];
  afterAll(async () => {
    for (const db of dbs) await db.close();
  });

  it('hashes the rows already there, so their cookies keep working and the table holds none of them', async () => {
    const db = await PGlite.create();
    dbs.push(db);
    const hashing = migrations.findIndex((m) => m.statements.some((s) => s.includes('sha256(')));
    expect(hashing).toBeGreaterThan(0);
    await migrate(db, migrations.slice(0, hashing));
    await db.query(`INSERT INTO users (id, email) VALUES ('old', 'old@example.test')`);
    const oldCookie = 'c2b0a3b0-7d4e-4c52-9a55-0d0d6b9b7a11';
    await db.query(`INSERT INTO sessions (session_token, user_id, expires) VALUES ($1, 'old', $2)`, [oldCookie, new Date(Date.now() + 86_400_000)]);
    await migrate(db);
    const { rows } = await db.query<{ session_token: string }>(`SELECT session_token FROM sessions`);
    expect(rows.map((r) => r.session_token)).not.toContain(oldCookie);
    const t = testAuth({ adapter: PostgresAdapter(db), session: { strategy: 'database' }, providers: [provider] });
    expect(await readSession(t, oldCookie)).toMatchObject({ user: { email: 'old@example.test' } });
  }, 60_000);
});
