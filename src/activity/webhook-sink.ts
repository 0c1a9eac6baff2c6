// The webhook side of the activity log: an ActivitySink that writes one outbox row per (record, endpoint that
// wants its kind), through the transaction's adapter when there is one, so the record and its deliveries commit or
// roll back together. Sending is the deliverer's job (webhook-delivery.ts); a write only kicks it.
import { MissingAdapterMethods } from '../core/errors.js';
import type { WebhookEnqueue } from '../core/webhook-outbox.js';
import type { ActivityRecord, ActivitySink } from './types.js';
import { resolveWebhooks, type ResolvedEndpoint, type WebhooksConfig } from './webhook-options.js';

/** The Standard Webhooks body of a record: its kind as `type`, its time, the record itself as `data`. */
export function webhookPayload(record: ActivityRecord): { type: string; timestamp: string; data: ActivityRecord } {
  return { type: record.kind, timestamp: record.at.toISOString(), data: record };
}

/** The outbox rows of some records: one per record and endpoint whose `kinds` include the record's kind. */
export function outboxRows(records: readonly ActivityRecord[], endpoints: readonly ResolvedEndpoint[], at: Date): WebhookEnqueue[] {
  return records.flatMap((record) =>
    endpoints.filter((e) => e.kinds === null || e.kinds.has(record.kind)).map((e) => ({ recordId: record.id, endpointId: e.id, payload: webhookPayload(record), at })),
  );
}

type Enqueuer = { enqueueWebhooks(rows: readonly WebhookEnqueue[]): unknown };
const canEnqueue = (x: unknown): x is Enqueuer => typeof (x as Partial<Enqueuer> | null)?.enqueueWebhooks === 'function';

/**
 * The sink that queues webhooks. Checks the endpoints and the adapter now (a bad configuration fails at start).
 * `write(records, tx)` inserts through `tx` when given (it must be an adapter bound to the transaction), else
 * through the adapter; a failed insert rejects, so a transaction that includes it rolls back.
 *
 * @example
 * const config = { adapter, webhooks: { endpoints: [{ id: 'crm', url: 'https://crm.example/hooks', secret: process.env.CRM_WEBHOOK_SECRET! }] } };
 * const sink = webhookSink(config);
 * startWebhookDelivery(config); // sends what the sink queued
 */
export function webhookSink(config: WebhooksConfig): ActivitySink {
  const webhooks = resolveWebhooks(config);
  return {
    name: 'webhooks',
    transactional: true,
    async write(records, tx) {
      const rows = outboxRows(records, webhooks.endpoints, new Date(webhooks.now()));
      if (rows.length === 0) return;
      if (tx !== undefined && tx !== null && !canEnqueue(tx)) {
        // Writing outside the transaction would send webhooks for a sign-in that may yet roll back.
        throw new MissingAdapterMethods('The transaction\'s adapter has no enqueueWebhooks: the webhook outbox must be written in the same transaction.', { missing: ['enqueueWebhooks'] });
      }
      await (tx ?? webhooks.adapter).enqueueWebhooks(rows);
      for (const kick of webhooks.kicks) kick();
    },
  };
}
