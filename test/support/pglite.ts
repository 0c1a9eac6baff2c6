// One embedded PostgreSQL (PGlite) per test file, migrated once and closed after the file: the set-up most
// database-backed tests share. Call it at the top level of a test file.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';

export interface MigratedPGlite {
  readonly db: PGlite;
  readonly adapter: PostgresAdapterInstance;
}

/** Registers `beforeAll`/`afterAll` hooks for a migrated PGlite and returns its (lazily filled) handles. */
export function useMigratedPGlite(): MigratedPGlite {
  let db: PGlite | undefined;
  let adapter: PostgresAdapterInstance | undefined;
  beforeAll(async () => {
    db = await PGlite.create();
    adapter = PostgresAdapter(db);
    await adapter.migrate();
  }, 30_000);
  afterAll(async () => {
    if (db && !db.closed) await db.close();
  });
  return {
    get db() {
      if (!db) throw new Error('PGlite is not ready: use it inside a test or hook.');
      return db;
    },
    get adapter() {
      if (!adapter) throw new Error('PGlite is not ready: use it inside a test or hook.');
      return adapter;
    },
  };
}
