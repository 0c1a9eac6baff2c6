// The Nitro receiver of docs/activity-and-webhooks.md (examples/nitro-v3/routes/webhooks/authchart.post.ts, the same
// code as the page's block), served on 127.0.0.1 and fed by the real deliverer from a real PostgreSQL outbox: it
// accepts each webhook once, answers a redelivery as a duplicate, and refuses a changed body or another secret.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { H3, toNodeHandler } from 'h3';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { deliverWebhooks } from '../../src/activity/webhook-delivery.js';
import { webhookSink } from '../../src/activity/webhook-sink.js';
import { signatureHeaders } from '../../src/activity/webhook-send.js';
import type { WebhooksConfig } from '../../src/activity/webhook-options.js';
import { closeHttpServer, listenLoopback } from '../e2e/peers/net.js';
import { activityRecord, newSecret, schemas } from './webhook-support.js';

const FILE = new URL('../../examples/nitro-v3/routes/webhooks/authchart.post.ts', import.meta.url);
const db = schemas();
afterAll(() => db.end());

describe('the Nitro receiver of the docs', () => {
  it('is the code the page shows', () => {
    const page = readFileSync(new URL('../../docs/activity-and-webhooks.md', import.meta.url), 'utf8');
    const block = /<!-- file: routes\/webhooks\/authchart\.post\.ts -->\n```ts\n([\s\S]*?)```/.exec(page)?.[1];
    const file = readFileSync(FILE, 'utf8').replace(/^(\/\/.*\n)+/, '');
    expect(block).toBe(file);
  });

  it('verifies and handles what the deliverer sends, once; refuses a changed body, another secret, an oversized body', async () => {
    const secret = newSecret();
    process.env.AUTHCHART_WEBHOOK_SECRET = secret;
    const { default: route } = (await import(FILE.href)) as { default: Parameters<H3['post']>[1] };
    const app = new H3().post('/webhooks/authchart', route);
    const server = createServer(toNodeHandler(app));
    const url = `http://127.0.0.1:${await listenLoopback(server)}/webhooks/authchart`;
    const answers: { status: number; body: unknown }[] = [];
    try {
      const pool = db.pool(await db.create());
      const adapter = PostgresAdapter(pool);
      await adapter.migrate();
      const config: WebhooksConfig = { adapter, logger: { error: () => {}, warn: () => {}, debug: () => {} }, webhooks: { endpoints: [{ id: 'nitro', url, secret }] } };
      const record = activityRecord({ kind: 'signIn.failed', userId: null, reason: 'CredentialsSignin' });
      await webhookSink(config).write([record, activityRecord()]);
      expect(await deliverWebhooks(config)).toEqual({ delivered: 2, failed: 0, disabled: [] });

      // Redelivered (as after a crash before the mark): accepted again, reported as a duplicate.
      const send = async (body: string, id: string, key = secret) => {
        const headers = await signatureHeaders({ id: 'x', url: new URL(url), secret: key, kinds: null }, id, new Date(), body);
        const response = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
        answers.push({ status: response.status, body: await response.json().catch(() => null) });
        return answers.at(-1)!;
      };
      const body = JSON.stringify({ type: record.kind, timestamp: record.at.toISOString(), data: record });
      expect(await send(body, record.id)).toEqual({ status: 200, body: { received: true, duplicate: true } });
      const fresh = activityRecord();
      const freshBody = JSON.stringify({ type: fresh.kind, timestamp: fresh.at.toISOString(), data: fresh });
      expect(await send(freshBody, fresh.id)).toEqual({ status: 200, body: { received: true, duplicate: false } });

      const tampered = activityRecord();
      const signed = await signatureHeaders({ id: 'x', url: new URL(url), secret, kinds: null }, tampered.id, new Date(), JSON.stringify({ type: tampered.kind, data: tampered }));
      const changed = await fetch(url, { method: 'POST', body: JSON.stringify({ type: tampered.kind, data: { ...tampered, userId: 'someone-else' } }), headers: signed });
      expect(changed.status).toBe(401);
      expect((await send(freshBody, activityRecord().id, newSecret())).status).toBe(401);
      const unsigned = await fetch(url, { method: 'POST', body: freshBody });
      expect(unsigned.status).toBe(401);
      const huge = await fetch(url, { method: 'POST', body: 'x'.repeat(100 * 1024) });
      expect(huge.status).toBe(413);
    } finally {
      delete process.env.AUTHCHART_WEBHOOK_SECRET;
      await closeHttpServer(server);
    }
  });
});
