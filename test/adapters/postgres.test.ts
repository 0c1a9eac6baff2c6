// The adapter contract and the database checks on a real PostgreSQL server, when DATABASE_URL names one
// (.ci/run sets it). Each run works in its own PostgreSQL schema, dropped at the end, so runs never collide.

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AdapterError } from '../../src/core/errors.js';
import { PostgresAdapter, migrate, migrations, schemaVersion } from '../../src/adapters/postgres/index.js';
import { wrapAdapter } from '../../src/core/adapter-wrap.js';
import { runAdapterContract } from './contract.js';
import { runDatabaseChecks } from './database-contract.js';

const url = process.env.DATABASE_URL;

describe('PostgreSQL server (DATABASE_URL)', () => {
  let admin: pg.Pool;
  const schemas: string[] = [];
  const pools: pg.Pool[] = [];

  /** A pool whose connections see only a new, empty schema of this run. */
  async function poolInNewSchema(config: pg.PoolConfig = {}): Promise<pg.Pool> {
    const schema = `authchart_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE SCHEMA ${schema}`);
    schemas.push(schema);
    const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 6, ...config });
    pools.push(pool);
    return pool;
  }

  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: url, max: 2 });
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  runAdapterContract(
    'PostgresAdapter on a pg Pool',
    async () => {
      const adapter = PostgresAdapter(await poolInNewSchema());
      await adapter.migrate();
      return { adapter, cleanup: async () => {} };
    },
    { withTransaction: true },
  );

  runDatabaseChecks('pg Pool', async () => ({ db: await poolInNewSchema(), cleanup: async () => {} }));

  describe('server-only behaviour', () => {
    it('concurrent migrate() from several connections: one applies, the others find it done', async () => {
      const pool = await poolInNewSchema();
      const results = await Promise.all(Array.from({ length: 4 }, () => migrate(pool)));
      expect(results.filter((r) => r.length > 0)).toEqual([migrations.map((m) => m.version)]);
      expect(await schemaVersion(pool)).toBe(migrations.at(-1)!.version);
    });

    it('works on a single connected pg Client too', async () => {
      const pool = await poolInNewSchema();
      const client = await pool.connect();
      try {
        const adapter = PostgresAdapter(client);
        await adapter.migrate();
        const user = await adapter.createUser({ id: 'c1', email: 'client@example.test', emailVerified: null });
        await expect(
          adapter.withTransaction(async (tx) => {
            await tx.deleteUser(user.id);
            throw new Error('undo');
          }),
        ).rejects.toThrow('undo');
        expect(await adapter.getUser('c1')).toEqual(user);

        // A call made while a transaction is open on the one connection must not become part of it.
        const outside = { id: 'c3', email: 'outside@example.test', emailVerified: null };
        let concurrent: Promise<unknown> | undefined;
        const rolledBack = adapter.withTransaction(async (tx) => {
          await tx.createUser({ id: 'c2', email: 'inside@example.test', emailVerified: null });
          concurrent = adapter.createUser(outside); // another request, on the adapter, mid-transaction
          await new Promise((resolve) => setTimeout(resolve, 50));
          throw new Error('undo');
        });
        await expect(rolledBack).rejects.toThrow('undo');
        expect(await concurrent).toEqual({ ...outside, name: null, image: null });
        expect(await adapter.getUser('c3')).not.toBeNull();
        expect(await adapter.getUser('c2')).toBeNull();
      } finally {
        client.release();
      }
    });

    it('a server-side drop of an idle pooled connection is not an uncaught exception', async () => {
      const pool = await poolInNewSchema({ max: 1 });
      const adapter = wrapAdapter(PostgresAdapter(pool, { autoMigrate: true }), { debug: () => {} });
      expect(await adapter.getUser('nobody')).toBeNull();
      const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      expect(pool.listenerCount('error')).toBe(1); // the adapter's own; the test adds none
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      // The pool drops the dead client after emitting 'error'; unheard, that event would crash the process.
      await vi.waitFor(() => expect(pool.totalCount).toBe(0), { timeout: 5000 });
      expect(await adapter.getUser('nobody')).toBeNull(); // the pool reconnects
    });

    it('a query that fails on the server is an AdapterError with the PostgreSQL error inside', async () => {
      const pool = await poolInNewSchema();
      const adapter = wrapAdapter(PostgresAdapter(pool), { debug: () => {} }); // never migrated: no tables
      const error = (await adapter.getUser('u').catch((e: unknown) => e)) as AdapterError;
      expect(error).toBeInstanceOf(AdapterError);
      expect((error.cause?.err as { code?: string }).code).toBe('42P01'); // undefined_table
    });
  });
});
