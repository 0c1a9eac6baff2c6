// The prune job at scale: each of its statements must find the expired rows through an index, never by reading the
// whole table (a sequential scan of five million sessions took a second even when nothing had expired). Checked
// with EXPLAIN on a table seeded with many live rows, as the planner sees it after ANALYZE.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useSharedStores } from '../support/shared-stores.js';

const stores = useSharedStores();
const ROWS = 50_000;

/** The plan of `sql` as text, every node on its own line. */
async function plan(pool: import('pg').Pool, sql: string, params: unknown[]): Promise<string> {
  const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

describe('prune statements on large tables', () => {
  it('find expired sessions, link tokens and "valid after" rows by index, with nothing expired among many live rows', async () => {
    const pool = stores.pool(await stores.schema(), { max: 2 });
    const future = "now() + interval '30 days'";
    await pool.query(`INSERT INTO users (id, email) SELECT 'u' || i, 'u' || i || '@example.com' FROM generate_series(1, ${ROWS}) AS i`);
    await pool.query(`INSERT INTO sessions (session_token, user_id, expires) SELECT 's' || i, 'u' || i, ${future} FROM generate_series(1, ${ROWS}) AS i`);
    await pool.query(`INSERT INTO verification_token (identifier, token, expires) SELECT 'u' || i || '@example.com', 't' || i, ${future} FROM generate_series(1, ${ROWS}) AS i`);
    await pool.query(`INSERT INTO sessions_valid_after (user_id, valid_after, keep_until) SELECT 'u' || i, now(), ${future} FROM generate_series(1, ${ROWS}) AS i`);
    // docs/adapters.md's statements for a large database in use: the same indexes, built without blocking writes.
    const doc = readFileSync(new URL('../../docs/adapters.md', import.meta.url), 'utf8');
    const statements = /```sql\n([\s\S]*?)```/.exec(doc)![1].split(';').map((x) => x.trim()).filter(Boolean);
    expect(statements).toHaveLength(3);
    for (const name of ['sessions_expires_idx', 'verification_token_expires_idx', 'sessions_valid_after_keep_until_idx']) await pool.query(`DROP INDEX ${name}`);
    for (const sql of statements) await pool.query(sql);
    await pool.query('ANALYZE');
    const now = new Date();
    for (const [table, column] of [['sessions', 'expires'], ['verification_token', 'expires'], ['sessions_valid_after', 'keep_until']] as const) {
      const text = await plan(pool, `DELETE FROM ${table} WHERE ${column} <= $1`, [now]);
      expect(text, `${table}: ${text}`).not.toMatch(/Seq Scan/);
      expect(text, `${table}: ${text}`).toMatch(/Index (Only )?Scan|Bitmap Index Scan/);
    }
  }, 60_000);
});
