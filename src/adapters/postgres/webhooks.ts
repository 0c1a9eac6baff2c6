// The webhook outbox methods of the PostgreSQL adapter (schema version 16). A claim is one statement: the due rows
// are locked with FOR UPDATE SKIP LOCKED, so concurrent deliverers each take different rows, and leased by moving
// their due time past the lease. Marking a result checks the claim, so a deliverer whose lease ran out cannot
// overwrite what the one that took the row over did.
import type { WebhookAdapterMethods, WebhookDelivery, WebhookEndpointHealth } from '../../core/webhook-outbox.js';
import type { Queryable, Row } from './client.js';

type Query = (sql: string, params?: readonly unknown[]) => Promise<Row[]>;
type Methods = { [K in keyof WebhookAdapterMethods]: (...a: Parameters<WebhookAdapterMethods[K]>) => Promise<Awaited<ReturnType<WebhookAdapterMethods[K]>>> };

/** The longest last_error kept: enough to say what failed, never a receiver's whole answer. */
const MAX_ERROR = 500;

const toDelivery = (r: Row): WebhookDelivery => ({
  id: String(r.id),
  recordId: r.record_id as string,
  endpointId: r.endpoint_id as string,
  payload: r.payload,
  attempts: Number(r.attempts),
  claim: r.claim as string,
  createdAt: new Date(r.created_at as string | Date),
});

const date = (v: unknown): Date | null => (v == null ? null : new Date(v as string | Date));

const toHealth = (r: Row): WebhookEndpointHealth => ({
  endpointId: r.endpoint_id as string,
  failingSince: date(r.failing_since),
  disabledAt: date(r.disabled_at),
  lastError: (r.last_error as string | null) ?? null,
});

/** The outbox methods over one connection (or transaction); `transaction` runs a function in one transaction. */
export function webhookMethods(query: Query, transaction: <T>(fn: (q: Queryable) => Promise<T>) => Promise<T>): Methods {
  return {
    async enqueueWebhooks(deliveries) {
      if (deliveries.length === 0) return;
      // One statement for the whole batch: arrays unnested side by side.
      await query(
        `INSERT INTO webhook_outbox (record_id, endpoint_id, payload, next_attempt_at, created_at)
         SELECT r, e, p::jsonb, a, a FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) AS d(r, e, p, a)
         ON CONFLICT (record_id, endpoint_id) DO NOTHING`,
        [deliveries.map((d) => d.recordId), deliveries.map((d) => d.endpointId), deliveries.map((d) => JSON.stringify(d.payload)), deliveries.map((d) => d.at)],
      );
    },

    async claimWebhookDeliveries({ now, leaseUntil, limit, claim, endpointIds }) {
      const rows = await query(
        `UPDATE webhook_outbox o SET next_attempt_at = $2, claim = $4, attempts = o.attempts + 1
         FROM (
           SELECT id FROM webhook_outbox
           WHERE status = 'pending' AND next_attempt_at <= $1
             AND ($5::text[] IS NULL OR endpoint_id = ANY ($5::text[]))
             AND endpoint_id NOT IN (SELECT endpoint_id FROM webhook_endpoint_health WHERE disabled_at IS NOT NULL)
           ORDER BY next_attempt_at, id
           LIMIT $3
           FOR UPDATE SKIP LOCKED
         ) due
         WHERE o.id = due.id
         RETURNING o.*`,
        [now, leaseUntil, limit, claim, endpointIds ?? null],
      );
      return rows.map(toDelivery).sort((a, b) => Number(a.id) - Number(b.id));
    },

    async markWebhookDelivered({ id, claim }, now) {
      const rows = await query(
        `WITH done AS (
           UPDATE webhook_outbox SET status = 'delivered', delivered_at = $3, claim = NULL, last_error = NULL
           WHERE id = $1 AND claim = $2 AND status = 'pending' RETURNING endpoint_id
         ), healthy AS (
           UPDATE webhook_endpoint_health h SET failing_since = NULL FROM done WHERE h.endpoint_id = done.endpoint_id
         )
         SELECT 1 FROM done`,
        [id, claim, now],
      );
      return rows.length === 1;
    },

    markWebhookFailed({ id, claim }, { error, retryAt, now, disableIfFailingSince }) {
      const message = error.slice(0, MAX_ERROR);
      return transaction(async (q) => {
        const failed = await q.query(
          `UPDATE webhook_outbox SET next_attempt_at = $3, claim = NULL, last_error = $4
           WHERE id = $1 AND claim = $2 AND status = 'pending' RETURNING endpoint_id`,
          [id, claim, retryAt, message],
        );
        const endpointId = failed.rows[0]?.endpoint_id as string | undefined;
        if (endpointId === undefined) return null;
        // The health row is locked for the rest of the transaction: of two failures at once, one disables.
        await q.query(`INSERT INTO webhook_endpoint_health (endpoint_id) VALUES ($1) ON CONFLICT (endpoint_id) DO NOTHING`, [endpointId]);
        const current = (await q.query(`SELECT failing_since, disabled_at FROM webhook_endpoint_health WHERE endpoint_id = $1 FOR UPDATE`, [endpointId])).rows[0];
        const failingSince = date(current.failing_since) ?? now;
        const disable = current.disabled_at == null && failingSince.getTime() <= disableIfFailingSince.getTime();
        await q.query(
          `UPDATE webhook_endpoint_health SET failing_since = $2, last_error = $3, disabled_at = CASE WHEN $4::boolean THEN $5::timestamptz ELSE disabled_at END
           WHERE endpoint_id = $1`,
          [endpointId, failingSince, message, disable, now],
        );
        return { failingSince, disabled: disable };
      });
    },

    async listWebhookEndpointHealth() {
      return (await query(`SELECT * FROM webhook_endpoint_health ORDER BY endpoint_id`)).map(toHealth);
    },

    async enableWebhookEndpoint(endpointId) {
      // Failing since now: one more day of failures before it is disabled again, not one failure.
      const rows = await query(
        `UPDATE webhook_endpoint_health SET disabled_at = NULL, failing_since = NULL WHERE endpoint_id = $1 AND disabled_at IS NOT NULL RETURNING endpoint_id`,
        [endpointId],
      );
      return rows.length === 1;
    },
  };
}
