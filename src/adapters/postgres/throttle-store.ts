// Throttle counters in the adapter's PostgreSQL database (pg server or PGlite), shared by every instance that uses
// it: rate-limiter-flexible's PostgreSQL limiter, whose one INSERT … ON CONFLICT DO UPDATE per hit is atomic.
import RateLimiterPostgres from 'rate-limiter-flexible/lib/RateLimiterPostgres.js';
import type { ThrottleStore } from '../../core/throttle/options.js';
import { toQueryable, type Database } from './client.js';

/** The table `migrate()` creates for the counters (schema version 2). */
export const throttleTable = 'authchart_throttle';

/**
 * A throttle store in the same database as the adapter: run `migrate()` first (it creates `authchart_throttle`).
 * Expired rows are deleted by `prune()` (see the adapter), not by a timer.
 *
 * @example
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * AuthInit({ adapter: PostgresAdapter(pool), throttle: { store: PostgresThrottleStore(pool) }, providers })
 */
export function PostgresThrottleStore(db: Database): ThrottleStore {
  const q = toQueryable(db);
  // The limiter speaks pg's `query({ text, values })`; the queryable runs it on a pool, a client or PGlite alike.
  const client = { query: (statement: { text: string; values?: unknown[] }) => q.query(statement.text, statement.values ?? []) };
  return {
    kind: 'postgres',
    counter: (name, rule) =>
      new RateLimiterPostgres({
        storeClient: client,
        storeType: 'client',
        tableName: throttleTable,
        tableCreated: true,
        clearExpiredByTimeout: false,
        keyPrefix: name,
        points: rule.points,
        duration: rule.duration,
        blockDuration: rule.blockDuration ?? 0,
      }),
  };
}
