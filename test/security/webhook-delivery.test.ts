// Attacks on webhook delivery. What a client controls reaches a webhook only as record fields (its user agent, the
// address it typed): they travel inside the signed JSON body and can add no header. What a receiver controls (a
// compromised or hostile endpoint) cannot send the deliverer elsewhere: a redirect to an internal address is not
// followed, and an endless answer does not hold the deliverer.
import { createServer } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { deliverWebhooks } from '../../src/activity/webhook-delivery.js';
import { webhookSink } from '../../src/activity/webhook-sink.js';
import type { WebhooksConfig } from '../../src/activity/webhook-options.js';
import { activityRecord, newSecret, receiver, schemas } from '../activity/webhook-support.js';
import { closeHttpServer, listenLoopback } from '../e2e/peers/net.js';

const db = schemas();
afterAll(() => db.end());
const quiet = { error: () => {}, warn: () => {}, debug: () => {} };

async function outbox() {
  const pool = db.pool(await db.create());
  const adapter = PostgresAdapter(pool);
  await adapter.migrate();
  return { adapter, pool };
}

describe('webhook delivery attacks', () => {
  it('a user agent with CRLF and fake webhook headers stays inside the signed body: no header is added, the signature holds', async () => {
    const { adapter } = await outbox();
    const secret = newSecret();
    const seen: Record<string, string | string[] | undefined>[] = [];
    const hooks = await receiver(secret, (r, req) => {
      seen.push(req.headers);
      return r.verified ? 204 : 401;
    });
    const hostile = 'evil\r\nwebhook-signature: v1,forged\r\nx-injected: 1\r\n\r\n{"type":"forged"}';
    try {
      const config: WebhooksConfig = { adapter, logger: quiet, webhooks: { endpoints: [{ id: 'app', url: hooks.url, secret }] } };
      await webhookSink(config).write([activityRecord({ userAgent: hostile, ip: '127.0.0.1\r\nx-injected: 2', reason: 'CredentialsSignin"},"type":"forged' })]);
      expect((await deliverWebhooks(config)).delivered).toBe(1);
      expect(hooks.received[0].verified).toBe(true);
      expect(seen[0]['x-injected']).toBeUndefined();
      expect(String(seen[0]['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
      const body = JSON.parse(hooks.received[0].body) as { type: string; data: { userAgent: string; reason: string } };
      expect(body.type).toBe('signIn.succeeded');
      expect(body.data.userAgent).toBe(hostile);
      expect(body.data.reason).toBe('CredentialsSignin"},"type":"forged');
    } finally {
      await hooks.close();
    }
  });

  it('a receiver redirecting to an internal address is not followed: the internal server gets nothing, the delivery fails', async () => {
    const { adapter, pool } = await outbox();
    let internalHits = 0;
    const internal = createServer((req, res) => {
      internalHits++;
      res.end('secret admin page');
    });
    const internalPort = await listenLoopback(internal);
    const secret = newSecret();
    const hooks = await receiver(secret, (_r, _req, res) => {
      res.statusCode = 307;
      res.setHeader('location', `http://127.0.0.1:${internalPort}/admin/delete-everything`);
      res.end();
      return 'handled';
    });
    try {
      const config: WebhooksConfig = { adapter, logger: quiet, webhooks: { endpoints: [{ id: 'app', url: hooks.url, secret }] } };
      await webhookSink(config).write([activityRecord()]);
      expect(await deliverWebhooks(config)).toEqual({ delivered: 0, failed: 1, disabled: [] });
      expect(internalHits).toBe(0);
      expect((await pool.query(`SELECT status, last_error FROM webhook_outbox`)).rows[0]).toEqual({ status: 'pending', last_error: 'HTTP 307 (redirect not followed)' });
    } finally {
      await hooks.close();
      await closeHttpServer(internal);
    }
  });

  it('a receiver answering 200 and then an endless body does not hold the deliverer or its memory', async () => {
    const { adapter } = await outbox();
    const secret = newSecret();
    let stopStreaming = false;
    let streamed = 0;
    let closed = false;
    const hooks = await receiver(secret, (_r, _req, res) => {
      res.on('close', () => (closed = true));
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const pump = () => {
        while (!stopStreaming && !res.destroyed && res.write(chunk)) streamed += chunk.length;
        if (!stopStreaming && !res.destroyed) res.once('drain', pump);
      };
      pump();
      return 'handled';
    });
    try {
      const config: WebhooksConfig = { adapter, logger: quiet, webhooks: { endpoints: [{ id: 'app', url: hooks.url, secret }], timeout: 2000 } };
      await webhookSink(config).write([activityRecord()]);
      const heapBefore = process.memoryUsage().heapUsed;
      const started = Date.now();
      expect(await deliverWebhooks(config)).toEqual({ delivered: 1, failed: 0, disabled: [] });
      expect(Date.now() - started).toBeLessThan(2000);
      await new Promise((r) => setTimeout(r, 300));
      // The body was cancelled: the connection is closed rather than left stalled, and nothing filled the memory.
      expect(closed).toBe(true);
      expect(streamed).toBeLessThan(16 * 1024 * 1024);
      expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(32 * 1024 * 1024);
    } finally {
      stopStreaming = true;
      await hooks.close();
    }
  });
});
