// The limits a `pg` Pool should carry so that PostgreSQL stops work authchart no longer waits for: the settings that
// match a `storeTimeout`. authchart's own transactions carry them per transaction anyway (client.ts); these cover
// every other statement on the pool, and the wait for a connection.
import { DEFAULT_STORE_TIMEOUT } from '../../core/store-deadline.js';

/** `pg` Pool (and Client) options of {@link pgTimeouts}: spread them into `new pg.Pool({ ... })`. */
export interface PgTimeouts {
  /** A connection that cannot be made within the deadline fails (pg waits forever by default). */
  connectionTimeoutMillis: number;
  /** PostgreSQL cancels a statement that runs past the deadline (SQLSTATE 57014). */
  statement_timeout: number;
  /** A statement waiting for a lock gives up at the deadline instead of queueing behind a stuck transaction. */
  lock_timeout: number;
  /** PostgreSQL ends a session left idle inside a transaction for longer than the deadline, releasing its locks. */
  idle_in_transaction_session_timeout: number;
}

/**
 * The `pg` Pool timeouts that match a `storeTimeout` (default 5000 ms): past the deadline authchart has answered
 * ServiceUnavailable already, so the server may stop. They apply to every query on the pool: an app that shares the
 * pool and runs longer statements of its own should give authchart a pool of its own.
 *
 * @example
 * import pg from 'pg';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, ...pgTimeouts(5000) });
 * const config = { adapter: PostgresAdapter(pool), storeTimeout: 5000, providers: [] };
 */
export function pgTimeouts(storeTimeout: number = DEFAULT_STORE_TIMEOUT): PgTimeouts {
  if (!Number.isFinite(storeTimeout) || storeTimeout <= 0) throw new TypeError('pgTimeouts: storeTimeout must be a positive number of ms.');
  const ms = Math.ceil(storeTimeout);
  return { connectionTimeoutMillis: ms, statement_timeout: ms, lock_timeout: ms, idle_in_transaction_session_timeout: ms };
}
