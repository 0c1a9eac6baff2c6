// At least once across crashes and instances, on a real PostgreSQL: an instance killed after its sign-in committed
// and its deliverer claimed the webhook (before sending) leaves it to the next deliverer once the lease ends, and two
// instances on two pools deliver 1,000 records with no duplicate and no loss.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { deliverWebhooks, startWebhookDelivery } from '../../src/activity/webhook-delivery.js';
import { webhookSink } from '../../src/activity/webhook-sink.js';
import type { WebhooksConfig } from '../../src/activity/webhook-options.js';
import { activityRecord, newSecret, receiver, schemas } from './webhook-support.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const db = schemas();
afterAll(() => db.end());
const quiet = { error: () => {}, warn: () => {}, debug: () => {} };

describe('a crash between the outbox write and the send', () => {
  it('the killed instance\'s claimed webhook is delivered once by another after the lease', async () => {
    const schema = await db.create();
    const pool = db.pool(schema);
    const adapter = PostgresAdapter(pool);
    await adapter.migrate();
    const secret = newSecret();
    const hooks = await receiver(secret);
    const ids = { RECORD_ID: `act_${randomUUID()}`, USER_ID: `u-${randomUUID()}`, SESSION_TOKEN: randomUUID() };
    try {
      const child = await new Promise<{ signal: string | null; stdout: string }>((resolve) => {
        execFile(
          process.execPath,
          ['--import', 'tsx', 'test/activity/fixtures/crashing-instance.ts'],
          { cwd: ROOT, env: { ...process.env, SCHEMA: schema, RECEIVER_URL: hooks.url, SECRET: secret, ...ids }, timeout: 60_000 },
          (error, stdout) => resolve({ signal: (error as { signal?: string } | null)?.signal ?? null, stdout }),
        );
      });
      expect(child.stdout).toContain('committed');
      expect(child.stdout).toContain(`claimed ${ids.RECORD_ID}`);
      expect(child.signal).toBe('SIGKILL');
      // The sign-in committed with its webhook; the dead instance's claim holds it, nothing was sent.
      expect(await adapter.getSessionAndUser(ids.SESSION_TOKEN)).toMatchObject({ user: { id: ids.USER_ID } });
      const row = (await pool.query(`SELECT status, attempts, claim, next_attempt_at FROM webhook_outbox WHERE record_id = $1`, [ids.RECORD_ID])).rows[0];
      expect(row).toMatchObject({ status: 'pending', attempts: 1 });
      expect(row.claim).not.toBeNull();
      expect(hooks.received).toHaveLength(0);

      // After the restart: within the lease, another deliverer leaves it alone...
      const restarted = (now: number): WebhooksConfig => ({ adapter, logger: quiet, webhooks: { endpoints: [{ id: 'app', url: hooks.url, secret }], now: () => now } });
      expect(await deliverWebhooks(restarted(Date.now()))).toEqual({ delivered: 0, failed: 0, disabled: [] });
      // ...and once it has ended, delivers it, once.
      const afterLease = row.next_attempt_at.getTime() + 1;
      expect(await deliverWebhooks(restarted(afterLease))).toEqual({ delivered: 1, failed: 0, disabled: [] });
      expect(await deliverWebhooks(restarted(afterLease + 3_600_000))).toEqual({ delivered: 0, failed: 0, disabled: [] });
      expect(hooks.received.map((r) => [r.id, r.verified])).toEqual([[ids.RECORD_ID, true]]);
    } finally {
      await hooks.close();
    }
  }, 90_000);
});

describe('two instances', () => {
  it('deliver 1,000 records with no duplicate and no loss', async () => {
    const schema = await db.create();
    const [poolA, poolB] = [db.pool(schema, 3), db.pool(schema, 3)];
    const adapterA = PostgresAdapter(poolA);
    await adapterA.migrate();
    const adapterB = PostgresAdapter(poolB);
    const secret = newSecret();
    const hooks = await receiver(secret);
    const endpoints = [{ id: 'app', url: hooks.url, secret }];
    // Each instance has its own configuration object, as two processes would.
    const configA: WebhooksConfig = { adapter: adapterA, logger: quiet, webhooks: { endpoints, pollInterval: 50 } };
    const configB: WebhooksConfig = { adapter: adapterB, logger: quiet, webhooks: { endpoints, pollInterval: 50 } };
    const records = Array.from({ length: 1000 }, (_, i) => activityRecord({ userId: `user-${i}` }));
    try {
      // Both start first, so they compete for every batch while the records are written from both sides.
      const a = startWebhookDelivery(configA);
      const b = startWebhookDelivery(configB);
      const sinkA = webhookSink(configA);
      const sinkB = webhookSink(configB);
      for (let i = 0; i < records.length; i += 50) await (i % 100 === 0 ? sinkA : sinkB).write(records.slice(i, i + 50));
      const deadline = Date.now() + 60_000;
      while (hooks.received.length < records.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await Promise.all([a.stop(), b.stop()]);
      // A last look finds nothing left: no loss, and no late duplicate.
      expect(await deliverWebhooks(configA)).toEqual({ delivered: 0, failed: 0, disabled: [] });

      expect(hooks.received).toHaveLength(1000);
      expect(new Set(hooks.received.map((r) => r.id)).size).toBe(1000);
      expect(new Set(hooks.received.map((r) => r.id))).toEqual(new Set(records.map((r) => r.id)));
      expect(hooks.received.every((r) => r.verified)).toBe(true);
      const counts = (await poolA.query(`SELECT status, count(*)::int AS n, max(attempts) AS attempts FROM webhook_outbox GROUP BY status`)).rows;
      expect(counts).toEqual([{ status: 'delivered', n: 1000, attempts: 1 }]);
    } finally {
      await hooks.close();
    }
  }, 120_000);

  it('both instances took part (the claims interleave) when they deliver at once', async () => {
    const schema = await db.create();
    const [poolA, poolB] = [db.pool(schema, 3), db.pool(schema, 3)];
    const adapterA = PostgresAdapter(poolA);
    await adapterA.migrate();
    const secret = newSecret();
    const hooks = await receiver(secret);
    const endpoints = [{ id: 'app', url: hooks.url, secret }];
    const configA: WebhooksConfig = { adapter: adapterA, logger: quiet, webhooks: { endpoints, batchSize: 10 } };
    const configB: WebhooksConfig = { adapter: PostgresAdapter(poolB), logger: quiet, webhooks: { endpoints, batchSize: 10 } };
    try {
      await webhookSink(configA).write(Array.from({ length: 400 }, () => activityRecord()));
      const [ra, rb] = await Promise.all([deliverWebhooks(configA), deliverWebhooks(configB)]);
      expect(ra.delivered + rb.delivered).toBe(400);
      expect(ra.delivered).toBeGreaterThan(0);
      expect(rb.delivered).toBeGreaterThan(0);
      expect(new Set(hooks.received.map((r) => r.id)).size).toBe(400);
      expect(hooks.received).toHaveLength(400);
    } finally {
      await hooks.close();
    }
  }, 60_000);
});
