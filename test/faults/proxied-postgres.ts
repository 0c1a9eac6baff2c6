// The fault suite's PostgreSQL: a schema of its own on the real server, migrated, reached through a fault proxy by a
// pool with the deadline's timeouts. One per describe block; everything is dropped after it.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { PostgresAdapter, pgTimeouts } from '../../src/adapters/postgres/index.js';
import { faultProxy, type FaultMode, type FaultProxy } from './fault-proxy.js';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface ProxiedPostgres {
  proxy: FaultProxy;
  /** authchart's pool, through the proxy. */
  pool: pg.Pool;
  /** A pool straight to the server (not through the proxy), for checks and clean-up. */
  admin: pg.Pool;
  schema: string;
}

/**
 * Registers the hooks that make and drop the database of a describe block; the fields are set once beforeAll ran.
 *
 * @example
 * const db = useProxiedPostgres('helpers', 300)
 * it('...', () => { db.proxy.mode = 'blackhole' })
 */
export function useProxiedPostgres(tag: string, deadline: number, pool: pg.PoolConfig = { ...pgTimeouts(deadline) }): ProxiedPostgres {
  const db = { schema: `authchart_${tag}_${process.pid}_${randomBytes(4).toString('hex')}` } as ProxiedPostgres;
  beforeAll(async () => {
    const url = new URL(DATABASE_URL);
    db.admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    await db.admin.query(`CREATE SCHEMA ${db.schema}`);
    db.proxy = await faultProxy({ host: url.hostname, port: Number(url.port || 5432) });
    const through = new URL(DATABASE_URL);
    through.port = String(db.proxy.port);
    db.pool = new pg.Pool({ connectionString: through.href, options: `-c search_path=${db.schema}`, max: 4, ...pool });
    db.pool.on('error', () => {});
    await PostgresAdapter(db.pool).migrate();
  });
  afterAll(async () => {
    // The proxy first: its sockets closing ends the queries a blackhole left waiting, so the pool can end.
    await db.proxy?.close();
    await db.pool?.end().catch(() => {});
    await db.admin?.query(`DROP SCHEMA IF EXISTS ${db.schema} CASCADE`);
    await db.admin?.end();
  });
  return db;
}

/** The name a fault mode goes by in a test's title. */
export const modeName = (mode: FaultMode): string => (typeof mode === 'object' ? `latency +${mode.latency} ms` : mode);

/** After a slow spell, waits for the answers already on their way, so the next step meets a database at rest. */
export const settled = (mode: FaultMode): Promise<unknown> => new Promise((r) => setTimeout(r, typeof mode === 'object' ? 2 * mode.latency + 100 : 0));
