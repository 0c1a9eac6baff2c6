// Public entry `authchart/adapters/postgres`: the PostgreSQL adapter for a `pg` server or embedded PGlite.

export { PostgresAdapter, type PostgresAdapterInstance, type PostgresAdapterOptions } from './adapter.js';
export { migrate, migrations, schemaVersion, versionTable, type Migration } from './schema.js';
export { toQueryable, type Database, type PGliteLike, type PgClientLike, type PgPoolLike, type Queryable, type Row } from './client.js';
export { PostgresThrottleStore, throttleTable } from './throttle-store.js';
export { prune } from './prune.js';
