// The in-process deliverer: a write through the sink, committed in a transaction, is delivered shortly after by the
// kick (the poll is set to a minute, so only the kick can do it); stop() ends it; a database that cannot be reached
// is a logged error, never a throw. And the outbox on embedded PGlite: the same SQL enqueues, claims, fails and
// disables there.
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { deliverWebhooks, startWebhookDelivery } from '../../src/activity/webhook-delivery.js';
import { webhookSink } from '../../src/activity/webhook-sink.js';
import type { WebhooksConfig } from '../../src/activity/webhook-options.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { activityRecord, newSecret, receiver, schemas } from './webhook-support.js';

const db = schemas();
afterAll(() => db.end());
const pglite = useMigratedPGlite();
const quiet = { error: () => {}, warn: () => {}, debug: () => {} };

describe('startWebhookDelivery', () => {
  it('delivers right after a committed write (the kick), not at the next poll', async () => {
    const adapter = PostgresAdapter(db.pool(await db.create()));
    await adapter.migrate();
    const secret = newSecret();
    const hooks = await receiver(secret);
    const config: WebhooksConfig = { adapter, logger: quiet, webhooks: { endpoints: [{ id: 'app', url: hooks.url, secret }], pollInterval: 60_000 } };
    const deliverer = startWebhookDelivery(config);
    try {
      await new Promise((r) => setTimeout(r, 200)); // the first look at start has found nothing
      const record = activityRecord();
      const written = Date.now();
      await adapter.withTransaction(async (tx) => webhookSink(config).write([record], tx));
      while (hooks.received.length === 0 && Date.now() - written < 5000) await new Promise((r) => setTimeout(r, 10));
      expect(hooks.received.map((r) => [r.id, r.verified])).toEqual([[record.id, true]]);
      expect(Date.now() - written).toBeLessThan(2000);
    } finally {
      await deliverer.stop();
      await hooks.close();
    }
    // Stopped: a later write is not delivered by it.
    await webhookSink(config).write([activityRecord()]);
    await new Promise((r) => setTimeout(r, 700));
    expect(hooks.received).toHaveLength(1);
  });

  it('a database that cannot be reached is logged, not thrown; deliverWebhooks rejects with the adapter error', async () => {
    const pg = await import('pg');
    const pool = new pg.default.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 500 });
    const errors: Error[] = [];
    const config: WebhooksConfig = { adapter: PostgresAdapter(pool), logger: { ...quiet, error: (e) => void errors.push(e) }, webhooks: { endpoints: [{ id: 'app', url: 'https://hooks.example/in', secret: newSecret() }], pollInterval: 100 } };
    const deliverer = startWebhookDelivery(config);
    await new Promise((r) => setTimeout(r, 800));
    await deliverer.stop();
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0].name).toMatch(/AdapterError|ServiceUnavailable/);
    await expect(deliverWebhooks(config)).rejects.toThrow();
    await pool.end();
  });
});

describe('one webhooks option in two configurations', () => {
  it('each writes through its own adapter, and a write kicks the deliverer started from the other copy', async () => {
    const secret = newSecret();
    const hooks = await receiver(secret);
    const options = { endpoints: [{ id: 'app', url: hooks.url, secret }], pollInterval: 60_000 };
    const pool = db.pool(await db.create());
    const server = PostgresAdapter(pool);
    await server.migrate();
    const onServer: WebhooksConfig = { adapter: server, logger: quiet, webhooks: options };
    const onPGlite: WebhooksConfig = { adapter: pglite.adapter, logger: quiet, webhooks: options };
    const deliverer = startWebhookDelivery({ ...onServer });
    try {
      await webhookSink(onPGlite).write([activityRecord({ id: 'act_pglite-copy' })]);
      const record = activityRecord();
      await webhookSink(onServer).write([record]);
      expect((await pglite.db.query<{ id: string }>(`SELECT record_id AS id FROM webhook_outbox WHERE record_id = 'act_pglite-copy'`)).rows).toHaveLength(1);
      expect((await pool.query(`SELECT record_id FROM webhook_outbox`)).rows).toEqual([{ record_id: record.id }]);
      const started = Date.now();
      while (hooks.received.length === 0 && Date.now() - started < 5000) await new Promise((r) => setTimeout(r, 10));
      expect(hooks.received.map((r) => r.id)).toEqual([record.id]);
    } finally {
      await deliverer.stop();
      await hooks.close();
    }
  });
});

describe('the outbox on PGlite', () => {
  it('enqueues in a transaction, claims, backs off and disables', async () => {
    const secret = newSecret();
    const hooks = await receiver(secret, () => 500);
    let now = Date.UTC(2026, 5, 1);
    const events: unknown[] = [];
    const config: WebhooksConfig = {
      adapter: pglite.adapter,
      logger: quiet,
      events: { webhookEndpointDisabled: (m) => void events.push(m.endpointId) },
      webhooks: { endpoints: [{ id: 'lite', url: hooks.url, secret }], now: () => now, disableAfter: 60_000 },
    };
    try {
      await expect(pglite.adapter.withTransaction(async (tx) => {
        await webhookSink(config).write([activityRecord()], tx);
        throw new Error('rolled back');
      })).rejects.toThrow('rolled back');
      await pglite.adapter.withTransaction(async (tx) => webhookSink(config).write([activityRecord()], tx));
      expect((await pglite.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_outbox WHERE endpoint_id = 'lite'`)).rows[0].n).toBe(1);
      expect(await deliverWebhooks(config)).toEqual({ delivered: 0, failed: 1, disabled: [] });
      now += 61_000;
      expect(await deliverWebhooks(config)).toEqual({ delivered: 0, failed: 1, disabled: ['lite'] });
      expect(events).toEqual(['lite']);
      expect(hooks.received).toHaveLength(2);
    } finally {
      await hooks.close();
    }
  });
});
