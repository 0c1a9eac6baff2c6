// Signed webhooks from the activity log, on a real PostgreSQL and real HTTP receivers on 127.0.0.1: every body is
// verified with the standardwebhooks library; the outbox row is written in the sign-in's transaction or not at all;
// failures back off exponentially and an endpoint failing for the whole window is disabled once, with an event.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import { deliverWebhooks, retryDelay } from '../../src/activity/webhook-delivery.js';
import { webhookSink } from '../../src/activity/webhook-sink.js';
import type { WebhooksConfig } from '../../src/activity/webhook-options.js';
import { wrapAdapter } from '../../src/core/adapter-wrap.js';
import { InvalidWebhookEndpoint, MissingAdapterMethods } from '../../src/core/errors.js';
import { activityRecord, newSecret, receiver, schemas } from './webhook-support.js';

const db = schemas();
afterAll(() => db.end());

async function freshAdapter(): Promise<{ adapter: PostgresAdapterInstance; pool: import('pg').Pool }> {
  const pool = db.pool(await db.create());
  const adapter = PostgresAdapter(pool);
  await adapter.migrate();
  return { adapter, pool };
}

const quiet = { error: () => {}, warn: () => {}, debug: () => {} };

describe('signatures', () => {
  let adapter: PostgresAdapterInstance;
  beforeAll(async () => ({ adapter } = await freshAdapter()));

  it('every webhook verifies with Webhook.verify; webhook-id is the record id; each endpoint gets only its kinds', async () => {
    const secretA = newSecret();
    const secretB = newSecret();
    const all = await receiver(secretA);
    const failures = await receiver(secretB);
    try {
      const config: WebhooksConfig = {
        adapter,
        logger: quiet,
        webhooks: { endpoints: [{ id: 'all', url: all.url, secret: secretA }, { id: 'failures', url: failures.url, secret: secretB, kinds: ['signIn.failed'] }] },
      };
      const records = [
        activityRecord(),
        activityRecord({ kind: 'signIn.failed', userId: null, reason: 'CredentialsSignin' }),
        activityRecord({ kind: 'factor.added', method: 'totp', detail: { factor: 'totp', count: 2, primary: true, note: null } }),
      ];
      await webhookSink(config).write(records);
      const report = await deliverWebhooks(config);
      expect(report).toEqual({ delivered: 4, failed: 0, disabled: [] });

      expect(all.received.map((r) => r.verified)).toEqual([true, true, true]);
      expect(failures.received.map((r) => r.verified)).toEqual([true]);
      expect(all.received.map((r) => r.id).sort()).toEqual(records.map((r) => r.id).sort());
      expect(failures.received[0].id).toBe(records[1].id);
      for (const r of all.received) {
        const body = JSON.parse(r.body) as { type: string; timestamp: string; data: { id: string; kind: string } };
        const record = records.find((x) => x.id === r.id)!;
        expect(body).toEqual({ type: record.kind, timestamp: record.at.toISOString(), data: JSON.parse(JSON.stringify(record)) });
      }
      // Delivered once: nothing is due any more.
      expect(await deliverWebhooks(config)).toEqual({ delivered: 0, failed: 0, disabled: [] });
      expect(all.received).toHaveLength(3);

      // What a receiver must refuse, checked with the same library on a request the deliverer really sent.
      const sent = all.received[0];
      const headers = { 'webhook-id': sent.id, 'webhook-timestamp': sent.timestamp, 'webhook-signature': sent.signature };
      const webhook = new Webhook(secretA);
      expect(() => webhook.verify(sent.body, headers)).not.toThrow();
      expect(() => webhook.verify(sent.body.replace('"userId":"user-1"', '"userId":"user-2"'), headers)).toThrow(/No matching signature/);
      expect(() => webhook.verify(`${sent.body} `, headers)).toThrow(/No matching signature/);
      expect(() => new Webhook(secretB).verify(sent.body, headers)).toThrow(/No matching signature/);
      expect(() => webhook.verify(sent.body, { ...headers, 'webhook-id': records[2].id })).toThrow(/No matching signature/);
      const old = new Date(Date.now() - 10 * 60 * 1000);
      const oldHeaders = { 'webhook-id': sent.id, 'webhook-timestamp': String(Math.floor(old.getTime() / 1000)), 'webhook-signature': webhook.sign(sent.id, old, sent.body) };
      expect(() => webhook.verify(sent.body, oldHeaders)).toThrow(/too old/);
      // Signed when sent: the timestamp is now, not the record's time.
      expect(Math.abs(Number(sent.timestamp) - Date.now() / 1000)).toBeLessThan(30);
    } finally {
      await all.close();
      await failures.close();
    }
  });

  it('refuses at start: a non-http(s) URL, credentials in the URL, a bad secret, a repeated id, an adapter without the outbox', () => {
    const secret = newSecret();
    const make = (endpoint: Record<string, unknown>, extra: Record<string, unknown>[] = []) => () =>
      webhookSink({ adapter, webhooks: { endpoints: [{ id: 'x', url: 'https://hooks.example/in', secret, ...endpoint }, ...extra] as never } });
    for (const url of ['file:///etc/passwd', 'ftp://hooks.example/', 'data:text/plain,hi', 'gopher://127.0.0.1:6379/_FLUSHALL', 'javascript:alert(1)', '/relative']) {
      expect(make({ url }), url).toThrow(InvalidWebhookEndpoint);
    }
    expect(make({ url: 'https://user:pass@hooks.example/in' })).toThrow(/user name or password/);
    for (const bad of ['', 'secret', 'whsec_', 'whsec_c2hvcnQ=', `whsec_${'!'.repeat(40)}`, `sk_${newSecret()}`]) expect(make({ secret: bad }), bad).toThrow(InvalidWebhookEndpoint);
    expect(make({}, [{ id: 'x', url: 'https://other.example/', secret }])).toThrow(/used twice/);
    expect(make({ id: 'a b' })).toThrow(InvalidWebhookEndpoint);
    expect(make({ timeout: 1 })).not.toThrow();
    expect(() => webhookSink({ adapter: { getUser: async () => null }, webhooks: { endpoints: [{ id: 'x', url: 'https://hooks.example/in', secret }] } })).toThrow(MissingAdapterMethods);
    // The secret never appears in the error.
    try {
      make({ url: 'file:///x' })();
    } catch (error) {
      expect(JSON.stringify({ m: (error as Error).message, c: (error as { cause?: unknown }).cause })).not.toContain(secret.slice(6, 20));
    }
  });
});

describe('the outbox row is written in the transaction', () => {
  it('a rolled-back sign-in leaves no outbox row; a committed one leaves one per endpoint (through the wrapped transaction adapter)', async () => {
    const { adapter, pool } = await freshAdapter();
    const config: WebhooksConfig = { adapter, logger: quiet, webhooks: { endpoints: [{ id: 'a', url: 'https://a.example/in', secret: newSecret() }, { id: 'b', url: 'https://b.example/in', secret: newSecret() }] } };
    const sink = webhookSink(config);
    const wrapped = wrapAdapter(adapter, quiet as never);
    const rolledBack = activityRecord({ userId: 'u-rollback' });
    await expect(
      wrapped.withTransaction!(async (tx) => {
        await tx.createUser({ id: 'u-rollback', email: 'r@example.com', emailVerified: null });
        await tx.createSession({ sessionToken: 's-rollback', userId: 'u-rollback', expires: new Date(Date.now() + 60_000) });
        await sink.write([rolledBack], tx);
        throw new Error('the sign-in fails after the record was written');
      }),
    ).rejects.toThrow(/sign-in fails/);
    expect((await pool.query(`SELECT count(*)::int AS n FROM webhook_outbox`)).rows[0].n).toBe(0);
    expect(await adapter.getUser('u-rollback')).toBeNull();

    const committed = activityRecord({ userId: 'u-ok' });
    await wrapped.withTransaction!(async (tx) => {
      await tx.createUser({ id: 'u-ok', email: 'ok@example.com', emailVerified: null });
      await sink.write([committed], tx);
    });
    const rows = (await pool.query(`SELECT record_id, endpoint_id, status, attempts FROM webhook_outbox ORDER BY endpoint_id`)).rows;
    expect(rows).toEqual([
      { record_id: committed.id, endpoint_id: 'a', status: 'pending', attempts: 0 },
      { record_id: committed.id, endpoint_id: 'b', status: 'pending', attempts: 0 },
    ]);
    // Written twice (a retried write), queued once.
    await sink.write([committed]);
    expect((await pool.query(`SELECT count(*)::int AS n FROM webhook_outbox`)).rows[0].n).toBe(2);
    // A "transaction" without the outbox is refused rather than written outside it.
    await expect(sink.write([activityRecord()], { createUser: () => null })).rejects.toThrow(MissingAdapterMethods);
  });
});

describe('back-off and disabling', () => {
  it('retries after growing, jittered delays and disables an endpoint failing for the whole window, once, with an event', async () => {
    const { adapter, pool } = await freshAdapter();
    let status = 500;
    const hooks = await receiver(newSecret(), () => status);
    let now = Date.UTC(2026, 0, 1, 12);
    const disabledEvents: unknown[] = [];
    const warnings: string[] = [];
    const config: WebhooksConfig = {
      adapter,
      logger: { ...quiet, warn: (code, message) => void warnings.push(`${code}: ${message}`) },
      events: { webhookEndpointDisabled: (m) => void disabledEvents.push(m) },
      webhooks: { endpoints: [{ id: 'flaky', url: `${hooks.url}?token=in-the-url`, secret: newSecret() }], now: () => now, random: () => 0.5, retry: { baseDelay: 1000, maxDelay: 60_000 } },
    };
    const record = activityRecord();
    try {
      await webhookSink(config).write([record]);
      const due = async () => (await pool.query(`SELECT attempts, next_attempt_at, last_error, claim FROM webhook_outbox`)).rows[0];
      const start = now;

      expect(await deliverWebhooks(config)).toEqual({ delivered: 0, failed: 1, disabled: [] });
      // Attempt 1 failed: due again after 1 s · 2^0, jittered to 0.75 of it.
      let row = await due();
      expect(row).toMatchObject({ attempts: 1, last_error: 'HTTP 500', claim: null });
      expect(row.next_attempt_at.getTime()).toBe(now + 750);
      now += 749;
      expect(await deliverWebhooks(config)).toEqual({ delivered: 0, failed: 0, disabled: [] });
      expect(hooks.received).toHaveLength(1);
      // Each further attempt waits twice as long.
      const waits: number[] = [];
      for (let attempt = 2; attempt <= 9; attempt++) {
        now = (await due()).next_attempt_at.getTime();
        expect((await deliverWebhooks(config)).failed).toBe(1);
        waits.push((await due()).next_attempt_at.getTime() - now);
      }
      expect(waits).toEqual([1500, 3000, 6000, 12_000, 24_000, 45_000, 45_000, 45_000]);
      expect(hooks.received).toHaveLength(9);
      expect(disabledEvents).toEqual([]);

      // Still failing a day after the first failure: disabled by this failure, once.
      now = start + 24 * 60 * 60 * 1000;
      expect(await deliverWebhooks(config)).toEqual({ delivered: 0, failed: 1, disabled: ['flaky'] });
      expect(disabledEvents).toEqual([{ endpointId: 'flaky', origin: new URL(hooks.url).origin, failingSince: new Date(start), disabledAt: new Date(now), lastError: 'HTTP 500' }]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^webhook-endpoint-disabled: Webhook endpoint "flaky" \(http:\/\/127\.0\.0\.1:\d+\) has failed for 24 h/);
      expect(warnings[0]).not.toContain('in-the-url');

      // Disabled: nothing more is sent, new records wait.
      status = 204;
      await webhookSink(config).write([activityRecord()]);
      now += 365 * 24 * 60 * 60 * 1000;
      const sent = hooks.received.length;
      expect(await deliverWebhooks(config)).toEqual({ delivered: 0, failed: 0, disabled: [] });
      expect(hooks.received).toHaveLength(sent);
      expect(await adapter.listWebhookEndpointHealth()).toEqual([{ endpointId: 'flaky', failingSince: new Date(start), disabledAt: new Date(start + 24 * 60 * 60 * 1000), lastError: 'HTTP 500' }]);

      // Enabled again by the operator: both go out, and the endpoint is healthy.
      expect(await adapter.enableWebhookEndpoint('flaky')).toBe(true);
      expect(await adapter.enableWebhookEndpoint('flaky')).toBe(false);
      expect(await deliverWebhooks(config)).toEqual({ delivered: 2, failed: 0, disabled: [] });
      expect(disabledEvents).toHaveLength(1);
      expect((await adapter.listWebhookEndpointHealth())[0]).toMatchObject({ failingSince: null, disabledAt: null });
    } finally {
      await hooks.close();
    }
  });

  it('a success in between restarts the window: failing for a day counts from the last success', async () => {
    const { adapter } = await freshAdapter();
    let status = 503;
    const hooks = await receiver(newSecret(), () => status);
    let now = Date.UTC(2026, 0, 1);
    const config: WebhooksConfig = { adapter, logger: quiet, webhooks: { endpoints: [{ id: 'e', url: hooks.url, secret: newSecret() }], now: () => now, disableAfter: 60 * 60 * 1000 } };
    try {
      await webhookSink(config).write([activityRecord()]);
      expect((await deliverWebhooks(config)).failed).toBe(1);
      now += 30 * 60 * 1000;
      status = 200;
      await webhookSink(config).write([activityRecord()]);
      expect((await deliverWebhooks(config)).delivered).toBe(2);
      status = 503;
      now += 40 * 60 * 1000; // 70 minutes after the first failure, 40 after the success
      await webhookSink(config).write([activityRecord()]);
      expect(await deliverWebhooks(config)).toEqual({ delivered: 0, failed: 1, disabled: [] });
      now += 61 * 60 * 1000;
      expect(await deliverWebhooks(config)).toEqual({ delivered: 0, failed: 1, disabled: ['e'] });
    } finally {
      await hooks.close();
    }
  });

  it('retryDelay: doubles from the base, caps at the maximum, jitter keeps it between half and all', () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(n, 5000, 60_000, () => 0.999_999))).toEqual([5000, 10_000, 20_000, 40_000]);
    expect(retryDelay(5, 5000, 60_000, () => 0)).toBe(30_000);
    expect(retryDelay(500, 5000, 60_000, () => 0.999_999)).toBe(60_000);
    const samples = Array.from({ length: 200 }, () => retryDelay(3, 1000, 1e9, Math.random));
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(2000);
    expect(Math.max(...samples)).toBeLessThanOrEqual(4000);
    expect(new Set(samples).size).toBeGreaterThan(50);
  });

  it('a receiver that does not answer in time is a failure (timeout), and the deliverer does not hang', async () => {
    const { adapter, pool } = await freshAdapter();
    const hooks = await receiver(newSecret(), () => 'handled');
    const config: WebhooksConfig = { adapter, logger: quiet, webhooks: { endpoints: [{ id: 'slow', url: hooks.url, secret: newSecret() }], timeout: 300 } };
    try {
      await webhookSink(config).write([activityRecord()]);
      const started = Date.now();
      expect(await deliverWebhooks(config)).toEqual({ delivered: 0, failed: 1, disabled: [] });
      expect(Date.now() - started).toBeLessThan(5000);
      expect((await pool.query(`SELECT last_error FROM webhook_outbox`)).rows[0].last_error).toBe('timeout');
    } finally {
      await hooks.close();
    }
  });

  it('an endpoint that refuses connections is a failure with its code', async () => {
    const { adapter, pool } = await freshAdapter();
    const hooks = await receiver(newSecret());
    await hooks.close();
    const config: WebhooksConfig = { adapter, logger: quiet, webhooks: { endpoints: [{ id: 'down', url: hooks.url, secret: newSecret() }] } };
    await webhookSink(config).write([activityRecord()]);
    expect((await deliverWebhooks(config)).failed).toBe(1);
    expect((await pool.query(`SELECT last_error FROM webhook_outbox`)).rows[0].last_error).toBe('network error (ECONNREFUSED)');
  });
});

vi.setConfig({ testTimeout: 60_000 });
