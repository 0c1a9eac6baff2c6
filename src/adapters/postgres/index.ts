// Public entry `authchart/adapters/postgres`: the PostgreSQL adapter for a `pg` server or embedded PGlite.

export { PostgresAdapter, type PostgresAdapterInstance, type PostgresAdapterOptions } from './adapter.js';
export { migrate, migrations, schemaVersion, versionTable, type Migration } from './schema.js';
export { toQueryable, transactionTimeouts, type Database, type PGliteLike, type PgClientLike, type PgPoolLike, type Queryable, type Row, type TransactionOptions } from './client.js';
export { pgTimeouts, type PgTimeouts } from './timeouts.js';
export { PostgresThrottleStore, throttleTable } from './throttle-store.js';
export { prune } from './prune.js';
// What the adapter's methods answer, exported so that their callers' declarations can name them.
export type { PruneOptions, PruneResult, SessionRecord } from '../../core/adapter.js';
