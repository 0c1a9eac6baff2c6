// The server stops what nobody waits for: a transaction authchart runs on PostgreSQL carries its deadline as
// statement_timeout, lock_timeout and idle_in_transaction_session_timeout (SET LOCAL), so a statement that sleeps past
// it is cancelled by the server itself, and a transaction its client stopped driving is ended, instead of running on
// (and holding locks) after the caller was answered. pg_stat_activity is the witness: no backend of ours is left busy.
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter, pgTimeouts, toQueryable } from '../../src/adapters/postgres/index.js';
import { wrapAdapter } from '../../src/core/adapter-wrap.js';
import { ServiceUnavailable } from '../../src/core/errors.js';
import { useSharedStores } from '../support/shared-stores.js';

const DEADLINE = 300;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stores = useSharedStores();
// Our backends, told from the other engineers' by application_name.
const app = `authchart-timeouts-${randomBytes(4).toString('hex')}`;
const db = {} as { pool: Pool; witness: Pool };

beforeAll(async () => {
  const schema = await stores.schema();
  db.witness = stores.pool(schema, { max: 1 });
  db.pool = stores.pool(schema, { application_name: app });
  await db.witness.query(`
    CREATE FUNCTION slow_user() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(5); RETURN NULL; END $$;
    CREATE TRIGGER slow_user AFTER INSERT ON users FOR EACH ROW WHEN (NEW.email LIKE 'sleepy-%') EXECUTE FUNCTION slow_user();`);
}, 60_000);

/** Backends of this test that are running a statement or sitting in an open transaction. */
async function busyBackends(): Promise<string[]> {
  const { rows } = await db.witness.query<{ state: string }>(
    `SELECT state FROM pg_stat_activity WHERE application_name = $1 AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)')`,
    [app],
  );
  return rows.map((r) => r.state);
}

describe('PostgreSQL timeouts from the deadline', () => {
  it('a statement sleeping past the deadline is cancelled by the server (57014), and no backend is left running it', async () => {
    const q = toQueryable(db.pool);
    const started = Date.now();
    const error = await q.transaction((tx) => tx.query('SELECT pg_sleep(5)'), { timeout: DEADLINE }).catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('57014');
    expect(Date.now() - started).toBeLessThan(DEADLINE + 1000);
    expect(await busyBackends()).toEqual([]);
  });

  it('through the adapter as authchart calls it: 503 at the deadline, the slow INSERT cancelled, no row, no busy backend', async () => {
    const adapter = wrapAdapter(PostgresAdapter(db.pool), { debug: () => {} }, { timeout: DEADLINE });
    const email = `sleepy-${randomBytes(4).toString('hex')}@example.test`;
    const started = Date.now();
    const answer = adapter.withTransaction!((tx) => tx.createUser({ id: '', email, emailVerified: null }));
    await expect(answer).rejects.toBeInstanceOf(ServiceUnavailable);
    expect(Date.now() - started).toBeLessThan(DEADLINE + 200);
    // The server's own timeout ends the statement moments after the deadline, not after the trigger's 5 s.
    await sleep(300);
    expect(await busyBackends()).toEqual([]);
    expect((await db.witness.query('SELECT id FROM users WHERE email = $1', [email])).rows).toEqual([]);
  });

  it('a pool made with pgTimeouts(storeTimeout) (as the demo makes its own): any statement past it is cancelled by the server', async () => {
    const pool = stores.pool('public', { application_name: app, ...pgTimeouts(DEADLINE) });
    expect((await pool.query('SHOW statement_timeout')).rows[0]).toEqual({ statement_timeout: `${DEADLINE}ms` });
    const error = await pool.query('SELECT pg_sleep(5)').catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('57014');
    expect(await busyBackends()).toEqual([]);
  });

  it('a transaction whose client stops driving it is ended by the server, its locks released', async () => {
    const q = toQueryable(db.pool);
    const email = `stalled-${randomBytes(4).toString('hex')}@example.test`;
    let seen: string[] = [];
    const run = q
      .transaction(
        async (tx) => {
          await tx.query(`INSERT INTO users (id, email) VALUES (gen_random_uuid(), $1)`, [email]);
          // The caller is slow (a callback, a lost event loop turn): the transaction sits idle, holding its row.
          await sleep(DEADLINE + 300);
          seen = await busyBackends();
          await tx.query('SELECT 1');
        },
        { timeout: DEADLINE },
      )
      .catch((e: unknown) => e);
    const error = await run;
    expect(error).toBeInstanceOf(Error);
    expect(seen, 'ended by idle_in_transaction_session_timeout while its client slept').toEqual([]);
    expect((await db.witness.query('SELECT id FROM users WHERE email = $1', [email])).rows).toEqual([]);
  });
});
