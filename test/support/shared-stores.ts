// The shared stores several app instances meet in: a real PostgreSQL (DATABASE_URL, a fresh migrated schema per
// call, dropped after the file) and a real Redis (REDIS_URL or 127.0.0.1:6379, keys under a prefix of this run).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import { migrate } from '../../src/adapters/postgres/index.js';

// Both always set: vitest.config.ts gives the local defaults (test/setup/defaults.ts) when no variable names them.
export const DATABASE_URL = process.env.DATABASE_URL!;
export const REDIS_URL = process.env.REDIS_URL!;

/** A unique prefix for this run's keys or schemas. */
export const runId = (): string => `${process.pid}_${randomBytes(4).toString('hex')}`;

/**
 * Registers cleanup and returns makers: `schema()` a migrated schema name, `pool(schema)` a pg Pool on it,
 * `redis()` an ioredis client that fails fast when the server is gone, `redisPrefix` this run's key prefix.
 */
export function useSharedStores() {
  const pools: pg.Pool[] = [];
  const schemas: string[] = [];
  const clients: Redis[] = [];
  const redisPrefix = `authchart:test:${runId()}:`;
  let admin: pg.Pool | undefined;
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    for (const client of clients) client.disconnect();
    if (admin) {
      for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
    if (clients.length) {
      const cleaner = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await cleaner.connect();
        const keys = await cleaner.keys(`${redisPrefix}*`);
        if (keys.length) await cleaner.del(...keys);
      } finally {
        cleaner.disconnect();
      }
    }
  });
  return {
    redisPrefix,
    async schema(): Promise<string> {
      admin ??= new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
      const schema = `authchart_test_${runId()}`;
      await admin.query(`CREATE SCHEMA ${schema}`);
      schemas.push(schema);
      await migrate(this.pool(schema));
      return schema;
    },
    pool(schema: string, config: pg.PoolConfig = {}): pg.Pool {
      const pool = new pg.Pool({ connectionString: DATABASE_URL, options: `-c search_path=${schema}`, max: 4, ...config });
      pools.push(pool);
      return pool;
    },
    async redis(url = REDIS_URL): Promise<Redis> {
      const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true, retryStrategy: () => null });
      clients.push(client);
      client.on('error', () => {});
      await client.connect().catch(() => {});
      return client;
    },
  };
}
