// The webhook outbox as stored data: one delivery per (activity record, endpoint), claimed by one deliverer at a
// time under a lease, and each endpoint's health. The adapter methods that keep them are an authchart extension of
// the Auth.js contract (PostgresAdapter has them, schema version 16).
import type { Awaitable } from './types.js';

/** One delivery to enqueue: the record's id (the `webhook-id`), the endpoint and the JSON body to send. */
export interface WebhookEnqueue {
  recordId: string;
  endpointId: string;
  /** The Standard Webhooks body: `{ type, timestamp, data }`. */
  payload: unknown;
  /** When it was enqueued, and the first time it is due. */
  at: Date;
}

/** A delivery as a claim returns it. `claim` proves the lease: marking it needs the same value. */
export interface WebhookDelivery {
  id: string;
  recordId: string;
  endpointId: string;
  payload: unknown;
  /** Attempts so far, this one included. */
  attempts: number;
  claim: string;
  createdAt: Date;
}

/** An endpoint's health: since when it has failed without a success in between, and when it was disabled. */
export interface WebhookEndpointHealth {
  endpointId: string;
  failingSince: Date | null;
  disabledAt: Date | null;
  lastError: string | null;
}

/** What marking a failure answers: whether this failure disabled the endpoint. */
export interface WebhookFailureOutcome {
  failingSince: Date;
  /** True only for the failure that disabled it (once per disabling, even with several deliverers). */
  disabled: boolean;
}

/**
 * Adapter methods of the webhook outbox. `enqueueWebhooks` is called on the transaction's adapter where the
 * outcome has one, so no webhook exists for a rolled-back sign-in. The claim must hand each due delivery to one
 * caller at a time (PostgresAdapter: `FOR UPDATE SKIP LOCKED`); a claim not marked before `leaseUntil` is due again,
 * so a deliverer that crashed loses nothing.
 */
export interface WebhookAdapterMethods {
  /** Idempotent: a (record, endpoint) pair already queued stays as it is. */
  enqueueWebhooks(deliveries: readonly WebhookEnqueue[]): Awaitable<void>;
  /**
   * Up to `limit` pending deliveries due at `now` whose endpoint is not disabled (and is one of `endpointIds` when
   * given: an endpoint removed from the configuration is not claimed), oldest first, leased until `leaseUntil`.
   */
  claimWebhookDeliveries(params: { now: Date; leaseUntil: Date; limit: number; claim: string; endpointIds?: readonly string[] }): Awaitable<WebhookDelivery[]>;
  /** Marks it delivered and the endpoint healthy; false when the claim was lost (the lease expired and another took it). */
  markWebhookDelivered(delivery: Pick<WebhookDelivery, 'id' | 'claim'>, now: Date): Awaitable<boolean>;
  /**
   * Records a failed attempt: due again at `retryAt`; the endpoint failing since its first failure without a success
   * in between, and disabled once that is at or before `disableIfFailingSince`. Null when the claim was lost.
   */
  markWebhookFailed(
    delivery: Pick<WebhookDelivery, 'id' | 'claim'>,
    failure: { error: string; retryAt: Date; now: Date; disableIfFailingSince: Date },
  ): Awaitable<WebhookFailureOutcome | null>;
  /** Every endpoint with a recorded health (failing, disabled, or healthy again). */
  listWebhookEndpointHealth(): Awaitable<WebhookEndpointHealth[]>;
  /** Enables a disabled endpoint again (its pending deliveries resume); false when it was not disabled. */
  enableWebhookEndpoint(endpointId: string): Awaitable<boolean>;
}

/** Names of {@link WebhookAdapterMethods}, for the start-up check and the adapter boundary. */
export const webhookAdapterMethods = [
  'enqueueWebhooks',
  'claimWebhookDeliveries',
  'markWebhookDelivered',
  'markWebhookFailed',
  'listWebhookEndpointHealth',
  'enableWebhookEndpoint',
] as const satisfies readonly (keyof WebhookAdapterMethods)[];
