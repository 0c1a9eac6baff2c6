// An outage is never the client's failure. Ten right-password sign-ins while PostgreSQL refuses connections or stalls
// past `storeTimeout` count against no limit: a sign-in right after the database is back goes through (it was
// `429 RateLimited, Retry-After: 900` for fifteen minutes).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter, pgTimeouts } from '../../src/adapters/postgres/index.js';
import { testAuth } from '../support/auth-app.js';
import { passwordProvider, signIn, writes } from '../session/database-harness.js';
import { faultProxy, type FaultMode, type FaultProxy } from './fault-proxy.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DEADLINE = 300;
const address = () => `lockout-${randomBytes(4).toString('hex')}@outage.test`;
// After a slow spell, the answers already on their way are let through before the next step.
const settled = (mode: FaultMode) => new Promise((r) => setTimeout(r, typeof mode === 'object' ? 2 * mode.latency : 0));

describe('an outage counts against no limit', () => {
  const url = new URL(DATABASE_URL);
  const schema = `authchart_lockout_${process.pid}_${randomBytes(4).toString('hex')}`;
  let admin: pg.Pool;
  let proxy: FaultProxy;
  let pool: pg.Pool;

  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    await admin.query(`CREATE SCHEMA ${schema}`);
    proxy = await faultProxy({ host: url.hostname, port: Number(url.port || 5432) });
    const through = new URL(DATABASE_URL);
    through.port = String(proxy.port);
    pool = new pg.Pool({ connectionString: through.href, options: `-c search_path=${schema}`, max: 4, ...pgTimeouts(DEADLINE) });
    pool.on('error', () => {});
    await PostgresAdapter(pool).migrate();
  });
  afterAll(async () => {
    await proxy?.close();
    await pool?.end().catch(() => {});
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  const modes: FaultMode[] = ['refuse', 'blackhole', { latency: 2 * DEADLINE }];
  for (const mode of modes) {
    const name = typeof mode === 'object' ? `latency +${mode.latency} ms` : mode;
    it(`${name}: ten right-password sign-ins answered 503, then one right after the outage signs in (no lock-out)`, async () => {
      proxy.mode = 'pass';
      const t = testAuth({ adapter: PostgresAdapter(pool), providers: [passwordProvider()], session: { strategy: 'database' }, storeTimeout: DEADLINE, throttle: { enabled: true } });
      const email = address();
      proxy.mode = mode;
      for (let i = 0; i < 10; i++) {
        const res = await signIn(t, email);
        expect(res.location?.searchParams.get('error')).toBe('ServiceUnavailable');
      }
      proxy.mode = 'pass';
      await settled(mode);
      const res = await signIn(t, email);
      expect(res.status, res.headers.get('retry-after') ?? '').toBe(302);
      expect(res.location?.pathname).toBe('/home');
      expect(writes(res)).toHaveLength(1);
    });
  }
});
