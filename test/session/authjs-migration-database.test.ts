// Moving from Auth.js with database sessions: the rows were written by Auth.js's own `@auth/pg-adapter` (as it does
// after a sign-in), the browser holds Auth.js's session cookie with the session token; authchart, on the same
// adapter and tables with `migrateFrom: 'authjs'`, keeps that user signed in and moves the cookie to its own name.
// Runs on the real server (DATABASE_URL), in a schema of its own.
import { randomBytes, randomUUID } from 'node:crypto';
import AuthjsPgAdapter from '@auth/pg-adapter';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/core/types.js';
import { Credentials } from '../../src/providers/credentials.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';
import { authjsSchema } from '../support/authjs-pg-schema.js';

const url = process.env.DATABASE_URL;

describe('Auth.js database sessions through the move (DATABASE_URL)', () => {
  const schema = `authchart_migrate_${process.pid}_${randomBytes(4).toString('hex')}`;
  let admin: pg.Pool;
  let pool: pg.Pool;

  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: url, max: 1 });
    await admin.query(`CREATE SCHEMA ${schema}`);
    pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 4 });
    for (const statement of authjsSchema) await pool.query(statement);
  });
  afterAll(async () => {
    await pool?.end();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  function app(migrate: boolean): TestAuth {
    return testAuth({
      ...(migrate ? { migrateFrom: 'authjs' as const } : {}),
      adapter: AuthjsPgAdapter(pool),
      session: { strategy: 'database' },
      providers: [Credentials({ credentials: {}, authorize: async () => null })],
      callbacks: { session: (({ session, user }: { session: Session; user: { id: string } }) => ({ ...session, user: { ...session.user, id: String(user.id) } })) as never },
    });
  }

  /** What Auth.js left behind: a user and a session row written by its adapter, and the token for its cookie. */
  async function authjsSession(): Promise<{ userId: string; sessionToken: string }> {
    const adapter = AuthjsPgAdapter(pool);
    const user = await adapter.createUser!({ id: randomUUID(), name: 'Grace', email: `grace-${randomUUID()}@example.test`, emailVerified: null });
    const sessionToken = randomUUID();
    await adapter.createSession!({ sessionToken, userId: user.id, expires: new Date(Date.now() + 7 * 86_400_000) });
    return { userId: String(user.id), sessionToken };
  }

  it('keeps the user signed in as an authchart session (cookie and row), and retires Auth.js\u2019s cookie and row', async () => {
    const { userId, sessionToken } = await authjsSession();
    const t = app(true);
    const res = await t.client.get('/auth/session', { headers: { cookie: `authjs.session-token=${sessionToken}` } });
    expect(((await res.json()) as { user: { id: string } }).user.id).toBe(userId);
    const issued = res.setCookie.find((l) => l.startsWith('authchart.session-token='));
    expect(issued).toMatch(/^authchart\.session-token=[^;]+;/);
    expect(issued).not.toMatch(/Max-Age=0/i);
    expect(res.setCookie.find((l) => l.startsWith('authjs.session-token='))).toMatch(/Max-Age=0/i);
    // The Auth.js row is gone: its token, replayed, is no session.
    const { rows } = await pool.query('SELECT 1 FROM sessions WHERE "sessionToken" = $1', [sessionToken]);
    expect(rows).toHaveLength(0);
    expect(await (await app(true).client.get('/auth/session', { headers: { cookie: `authjs.session-token=${sessionToken}` } })).json()).toBeNull();
    // Next visit: only authchart's cookie, same session.
    const again = await t.client.get('/auth/session');
    expect(((await again.json()) as { user: { id: string } }).user.id).toBe(userId);
    expect(t.logger.errors).toEqual([]);
  });

  it('reads nothing from Auth.js\u2019s cookie without migrateFrom', async () => {
    const { sessionToken } = await authjsSession();
    const res = await app(false).client.get('/auth/session', { headers: { cookie: `authjs.session-token=${sessionToken}` } });
    expect(await res.json()).toBeNull();
    expect(res.setCookie).toEqual([]);
  });

  it('an Auth.js cookie naming no session row is cleared, never a session', async () => {
    const res = await app(true).client.get('/auth/session', { headers: { cookie: `authjs.session-token=${randomUUID()}` } });
    expect(await res.json()).toBeNull();
    expect(res.setCookie.find((l) => l.startsWith('authjs.session-token='))).toMatch(/Max-Age=0/i);
  });
});
