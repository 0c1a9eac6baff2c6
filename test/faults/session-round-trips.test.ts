// What one session check costs the database, per strategy and adapter (docs/store-faults.md states these figures):
// statements sent, and round trips on the wire through a proxy that adds a fixed latency to every packet.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { testAuth } from '../support/auth-app.js';
import { passwordProvider, pgliteDatabase, readSession, serverSchema, signIn, type TestDatabase } from '../session/database-harness.js';
import { faultProxy } from './fault-proxy.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const address = () => `trips-${Math.random().toString(36).slice(2)}@example.test`;

async function statementsOfOneCheck(d: TestDatabase, strategy: 'jwt' | 'database'): Promise<number> {
  const t = testAuth({ adapter: d.adapter, providers: [passwordProvider()], session: { strategy } });
  await signIn(t, address());
  d.queries.length = 0;
  const { res, body } = await readSession(t.client);
  expect(res.status).toBe(200);
  expect(body?.user?.email).toMatch(/^trips-/);
  return d.queries.length;
}

describe('statements of one session check', () => {
  const open: TestDatabase[] = [];
  afterAll(async () => {
    for (const d of open) await d.close();
  });
  const server = async () => {
    const d = await serverSchema(DATABASE_URL);
    open.push(d);
    return d;
  };
  const pglite = async () => {
    const d = await pgliteDatabase();
    open.push(d);
    return d;
  };

  it('JWT with PostgresAdapter: one (the "sessions valid after" revocation read)', async () => {
    expect(await statementsOfOneCheck(await server(), 'jwt')).toBe(1);
  });
  it('JWT without an adapter: none', async () => {
    const t = testAuth({ providers: [passwordProvider()] });
    await signIn(t, address());
    expect((await readSession(t.client)).body?.user?.email).toMatch(/^trips-/);
    expect(t.logger.debugs.filter((d) => d.message.startsWith('adapter_'))).toEqual([]);
  });
  it('database, PostgreSQL server: one', async () => {
    expect(await statementsOfOneCheck(await server(), 'database')).toBe(1);
  });
  it('database, PGlite: one (in process: no network round trip)', async () => {
    expect(await statementsOfOneCheck(await pglite(), 'database')).toBe(1);
  });
});

describe('round trips of one session check on the wire (database strategy, pg Pool)', () => {
  const LATENCY = 100;
  it(`a pooled connection: one round trip; a new connection adds its handshake (+${LATENCY} ms per packet)`, async () => {
    const url = new URL(DATABASE_URL);
    const d = await serverSchema(DATABASE_URL);
    const proxy = await faultProxy({ host: url.hostname, port: Number(url.port || 5432) });
    const through = new URL(DATABASE_URL);
    through.port = String(proxy.port);
    const pool = new pg.Pool({ connectionString: through.href, options: `-c search_path=${d.schema}`, max: 1, idleTimeoutMillis: 0 });
    try {
      const t = testAuth({ adapter: PostgresAdapter(pool), providers: [passwordProvider()], session: { strategy: 'database' }, storeTimeout: 60_000 });
      await signIn(t, address());
      proxy.mode = { latency: LATENCY };
      const trips = async () => {
        const started = performance.now();
        expect((await readSession(t.client)).res.status).toBe(200);
        // Each direction of a round trip waits LATENCY once.
        return Math.round((performance.now() - started) / (2 * LATENCY));
      };
      const warm = await trips();
      // A fresh connection: the pool's only one is dropped, so the next check connects first.
      await pool.query('SELECT pg_terminate_backend(pg_backend_pid())').catch(() => undefined);
      await new Promise((r) => setTimeout(r, 4 * LATENCY));
      const cold = await trips();
      console.log(`session check round trips: pooled connection ${warm}, new connection ${cold}`);
      expect(warm).toBe(1);
      expect(cold).toBeGreaterThan(warm);
    } finally {
      await proxy.close();
      await pool.end().catch(() => undefined);
      await d.close();
    }
  });
});
