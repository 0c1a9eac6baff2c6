// A stalled store keeps what a refused one keeps: an e-mail code typed while PostgreSQL refuses connections, swallows
// everything, or answers past `storeTimeout` is answered ServiceUnavailable, its flow cookie is kept, and the same code
// signs in once the database is back. (A stalled database used to take the code's entry from the flow store after the
// answer was sent: the code was dead.)
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter, pgTimeouts } from '../../src/adapters/postgres/index.js';
import { testAuth } from '../support/auth-app.js';
import { memoryOutbox, requestLink } from '../support/magic-link.js';
import { readSession } from '../session/database-harness.js';
import { faultProxy, type FaultMode, type FaultProxy } from './fault-proxy.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DEADLINE = 300;
const address = () => `code-${randomBytes(4).toString('hex')}@stalled.test`;
// After a slow spell, the answers already on their way are let through before the next step.
const settled = (mode: FaultMode) => new Promise((r) => setTimeout(r, typeof mode === 'object' ? 2 * mode.latency + 100 : 0));

describe('an e-mail code typed during an outage', () => {
  const url = new URL(DATABASE_URL);
  const schema = `authchart_stalled_${process.pid}_${randomBytes(4).toString('hex')}`;
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

  const modes: FaultMode[] = ['refuse', 'blackhole', { latency: 2 * DEADLINE }, { latency: DEADLINE / 2 }];
  for (const mode of modes) {
    const name = typeof mode === 'object' ? `latency +${mode.latency} ms` : mode;
    for (const strategy of ['database', 'jwt'] as const) {
      it(`${name}, ${strategy} sessions: 503, the flow cookie kept, and the same code signs in after`, async () => {
        proxy.mode = 'pass';
        const outbox = memoryOutbox({ confirm: false, code: { maxAttempts: 3, resendCooldown: 0 } });
        const t = testAuth({ adapter: PostgresAdapter(pool), providers: [outbox.provider], session: { strategy }, storeTimeout: DEADLINE });
        const email = address();
        await requestLink(t, email);
        const code = outbox.sent.findLast((m) => m.identifier === email)!.code!;
        const submit = async () => t.client.post('/auth/callback/email', { csrfToken: await t.csrfToken(), code });
        proxy.mode = mode;
        const res = await submit();
        proxy.mode = 'pass';
        await settled(mode);
        expect(res.location?.searchParams.get('error')).toBe('ServiceUnavailable');
        expect(res.setCookie.filter((c) => c.startsWith('authchart.flow') && /Max-Age=0/i.test(c)), 'the flow cookie is kept').toEqual([]);
        const again = await submit();
        expect(again.location?.searchParams.get('error') ?? null).toBeNull();
        expect(again.location?.pathname).toBe('/after');
        expect((await readSession(t.client)).body?.user?.email).toBe(email);
      });
    }
  }
});
