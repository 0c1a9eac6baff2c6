// The deliverer: claims due outbox rows under a lease, sends each, and marks it delivered or due again after an
// exponential back-off with jitter. At least once: a row is marked only after its answer, so a crash between the
// send and the mark sends it again (receivers deduplicate by `webhook-id`). Never throws out: every failure is a
// logged line and a retry. An endpoint failing for the whole window is disabled, with an event and a warning.
import { randomUUID } from 'node:crypto';
import { AuthError } from '../core/errors.js';
import { dispatchEvent } from '../core/events.js';
import type { WebhookDelivery } from '../core/webhook-outbox.js';
import { resolveWebhooks, type ResolvedWebhooks, type WebhooksConfig } from './webhook-options.js';
import { sendWebhook } from './webhook-send.js';

/** What one delivery run did. */
export interface WebhookDeliveryReport {
  delivered: number;
  failed: number;
  /** Endpoints this run disabled. */
  disabled: string[];
}

/** The wait before attempt `attempts + 1`: `base · 2^(attempts − 1)` capped at `max`, then between half and all of it. */
export function retryDelay(attempts: number, base: number, max: number, random: () => number): number {
  const full = Math.min(max, base * 2 ** Math.min(Math.max(attempts - 1, 0), 40));
  return Math.round(full / 2 + (full / 2) * random());
}

async function settle(w: ResolvedWebhooks, delivery: WebhookDelivery, report: WebhookDeliveryReport): Promise<void> {
  const endpoint = w.byId.get(delivery.endpointId);
  if (!endpoint) return; // claimed by id list, so only if the list changed mid-run; the lease brings it back
  const result = await sendWebhook(endpoint, delivery, new Date(w.now()), w.timeout);
  const now = w.now();
  if (result.ok) {
    if (await w.adapter.markWebhookDelivered(delivery, new Date(now))) report.delivered++;
    return;
  }
  report.failed++;
  const outcome = await w.adapter.markWebhookFailed(delivery, {
    error: result.error,
    retryAt: new Date(now + retryDelay(delivery.attempts, w.baseDelay, w.maxDelay, w.random)),
    now: new Date(now),
    disableIfFailingSince: new Date(now - w.disableAfter),
  });
  if (outcome?.disabled) {
    report.disabled.push(endpoint.id);
    const hours = Math.round((now - outcome.failingSince.getTime()) / 36e5);
    w.logger.warn(
      'webhook-endpoint-disabled',
      `Webhook endpoint "${endpoint.id}" (${endpoint.url.origin}) has failed for ${hours} h (last: ${result.error}) and is disabled; its deliveries wait until adapter.enableWebhookEndpoint("${endpoint.id}").`,
    );
    await dispatchEvent(w.events, w.logger, 'webhookEndpointDisabled', {
      endpointId: endpoint.id,
      origin: endpoint.url.origin,
      failingSince: outcome.failingSince,
      disabledAt: new Date(now),
      lastError: result.error,
    });
  }
}

/** One claim and its sends; answers how many were claimed. A failed mark is logged: the lease makes it due again. */
async function deliverBatch(w: ResolvedWebhooks, report: WebhookDeliveryReport): Promise<number> {
  const now = w.now();
  const batch = await w.adapter.claimWebhookDeliveries({
    now: new Date(now),
    leaseUntil: new Date(now + w.lease),
    limit: w.batchSize,
    claim: randomUUID(),
    endpointIds: w.endpoints.map((e) => e.id),
  });
  await Promise.all(
    batch.map((d) =>
      settle(w, d, report).catch((error: unknown) => w.logger.error(error instanceof AuthError ? error : new AuthError(error instanceof Error ? error : String(error), { delivery: d.id }))),
    ),
  );
  return batch.length;
}

/** Runs batches until none is full: everything due now is attempted once. Rejects only when a claim fails. */
async function deliverDue(w: ResolvedWebhooks, keepGoing: () => boolean = () => true): Promise<WebhookDeliveryReport> {
  const report: WebhookDeliveryReport = { delivered: 0, failed: 0, disabled: [] };
  while ((await deliverBatch(w, report)) === w.batchSize && keepGoing());
  return report;
}

/**
 * Delivers every webhook due now, once, and answers what happened: the one-shot for a cron job or a serverless
 * schedule. Safe beside running deliverers and other instances (each delivery is claimed by one).
 *
 * @throws a configuration error (InvalidWebhookEndpoint, MissingAdapterMethods); an unreachable database rejects
 * with the adapter's error.
 * @example
 * // a scheduled task, every minute
 * await deliverWebhooks(config);
 */
export function deliverWebhooks(config: WebhooksConfig): Promise<WebhookDeliveryReport> {
  return deliverDue(resolveWebhooks(config));
}

/** A running deliverer. */
export interface WebhookDeliverer {
  /** Look for due deliveries now (a write to the sink in this process does it). */
  kick(): void;
  /** Stops polling and waits for the run in progress; a claim it holds but did not mark is retried after its lease. */
  stop(): Promise<void>;
}

/**
 * Starts delivering in this process: every `pollInterval`, and shortly after each write of this configuration's
 * sink (after its transaction has committed, in the common case; else the next poll finds it). The timer does not
 * keep the process alive. Errors are logged, never thrown: a database outage delays webhooks, nothing else.
 *
 * @example
 * const deliverer = startWebhookDelivery(config);
 * process.on('SIGTERM', () => void deliverer.stop());
 */
export function startWebhookDelivery(config: WebhooksConfig): WebhookDeliverer {
  const w = resolveWebhooks(config);
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const timers = new Set<ReturnType<typeof setTimeout>>();

  const run = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await deliverDue(w, () => !stopped);
        } catch (error) {
          w.logger.error(error instanceof AuthError ? error : new AuthError(error instanceof Error ? error : String(error)));
        }
      } while (again && !stopped);
    })().finally(() => {
      running = null;
    });
    return running;
  };
  const later = (ms: number) => {
    if (stopped) return;
    const t = setTimeout(() => {
      timers.delete(t);
      void run();
    }, ms);
    (t as { unref?: () => void }).unref?.();
    timers.add(t);
  };
  // A write's transaction commits after the sink returns: look shortly after, and once more a little later.
  const kick = () => {
    later(20);
    later(500);
  };
  const poll = setInterval(() => void run(), w.pollInterval);
  (poll as { unref?: () => void }).unref?.();
  w.kicks.add(kick);
  void run();
  return {
    kick,
    async stop() {
      stopped = true;
      clearInterval(poll);
      for (const t of timers) clearTimeout(t);
      timers.clear();
      w.kicks.delete(kick);
      await running;
    },
  };
}
