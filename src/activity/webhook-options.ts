// The `webhooks` configuration: the endpoints the activity records go to, how long delivery waits and retries, and
// its check at start. Resolved once per configuration object, so the sink and the deliverer of one app share it.
import type { Adapter } from '../core/adapter.js';
import { wrapAdapter, type WrappedAdapter } from '../core/adapter-wrap.js';
import { InvalidWebhookEndpoint, MissingAdapter, MissingAdapterMethods } from '../core/errors.js';
import { createLogger, type Logger } from '../core/logger.js';
import type { EventsOptions, LoggerInstance } from '../core/options.js';
import { webhookAdapterMethods, type WebhookAdapterMethods } from '../core/webhook-outbox.js';
import type { ActivityKind } from './types.js';

/** One receiver of webhooks. */
export interface WebhookEndpoint {
  /** Stable and unique (`crm`, `siem`): deliveries and the endpoint's health are kept under it. */
  id: string;
  /** `https://…` (or `http://` on a private network). Redirects are not followed. */
  url: string;
  /** A Standard Webhooks secret, `whsec_` then base64 of 24 to 64 random bytes; the receiver verifies with it. */
  secret: string;
  /** Only these kinds go to this endpoint; absent, every kind. */
  kinds?: readonly ActivityKind[];
}

/** The `webhooks` option. */
export interface WebhooksOptions {
  endpoints: readonly WebhookEndpoint[];
  /** One attempt's deadline, in ms, the answer's headers included (default 10 s). */
  timeout?: number;
  /** Retries wait `baseDelay · 2^(attempt − 1)`, at most `maxDelay`, with jitter (defaults 5 s and 1 h). */
  retry?: { baseDelay?: number; maxDelay?: number };
  /** An endpoint failing without a success for this long (ms) is disabled (default a day). */
  disableAfter?: number;
  /** How often a running deliverer looks for due deliveries besides the kick after a write (default 5 s). */
  pollInterval?: number;
  /** Deliveries claimed and sent at once by one deliverer (default 20). */
  batchSize?: number;
  /** How long a claim holds a delivery before another deliverer may take it (default the larger of 60 s and 3 timeouts). */
  lease?: number;
  /** The clock, in ms since the epoch (tests); defaults to `Date.now`. */
  now?: () => number;
  /** Jitter's source in [0, 1) (tests); defaults to `Math.random`. */
  random?: () => number;
}

/** What the webhook functions read: the app's adapter, `webhooks`, and optionally its events and logger (an AuthConfig with `webhooks` fits). */
export interface WebhooksConfig {
  adapter?: Adapter;
  webhooks: WebhooksOptions;
  events?: Pick<EventsOptions, 'webhookEndpointDisabled'>;
  logger?: Partial<LoggerInstance>;
  debug?: boolean;
}

/** An endpoint after its check. */
export interface ResolvedEndpoint {
  id: string;
  url: URL;
  secret: string;
  kinds: ReadonlySet<string> | null;
}

type OutboxAdapter = { [K in keyof WebhookAdapterMethods]-?: NonNullable<WrappedAdapter[K]> };

/** The configuration as the sink and the deliverer use it. */
export interface ResolvedWebhooks {
  endpoints: readonly ResolvedEndpoint[];
  byId: ReadonlyMap<string, ResolvedEndpoint>;
  adapter: OutboxAdapter;
  logger: Logger;
  events: Pick<EventsOptions, 'webhookEndpointDisabled'>;
  timeout: number;
  baseDelay: number;
  maxDelay: number;
  disableAfter: number;
  pollInterval: number;
  batchSize: number;
  lease: number;
  now: () => number;
  random: () => number;
  /** Deliverers running in this process for this configuration: a write kicks them. */
  kicks: Set<() => void>;
}

const ID = /^[A-Za-z0-9._:-]{1,100}$/;
const SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

function invalid(message: string, endpoint?: string): InvalidWebhookEndpoint {
  return new InvalidWebhookEndpoint(message, endpoint === undefined ? {} : { endpoint });
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw invalid(`webhooks.${name} must be a positive number of milliseconds (got ${String(value)}).`);
  return value;
}

/** Checks one endpoint; the error names it by id (never its secret). */
function resolveEndpoint(endpoint: WebhookEndpoint, seen: Set<string>): ResolvedEndpoint {
  const { id } = endpoint;
  if (typeof id !== 'string' || !ID.test(id)) throw invalid(`A webhook endpoint id must be 1 to 100 letters, digits or . _ : - (got ${JSON.stringify(id)}).`);
  if (seen.has(id)) throw invalid(`Webhook endpoint id "${id}" is used twice.`, id);
  seen.add(id);
  let url: URL;
  try {
    url = new URL(endpoint.url);
  } catch {
    throw invalid(`Webhook endpoint "${id}": url is not an absolute URL.`, id);
  }
  // Only the operator writes this list, but a file:, data: or ftp: URL is never a webhook receiver.
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(`Webhook endpoint "${id}": url must be http: or https: (got ${url.protocol}).`, id);
  if (url.username || url.password) throw invalid(`Webhook endpoint "${id}": url must not hold a user name or password; the signature authenticates the sender.`, id);
  const m = typeof endpoint.secret === 'string' ? SECRET.exec(endpoint.secret) : null;
  const bytes = m ? Buffer.from(m[1], 'base64') : Buffer.alloc(0);
  if (!m || bytes.length < 24 || bytes.length > 64 || bytes.toString('base64').replace(/=+$/, '') !== m[1].replace(/=+$/, '')) {
    throw invalid(`Webhook endpoint "${id}": secret must be "whsec_" followed by the base64 of 24 to 64 random bytes.`, id);
  }
  if (endpoint.kinds !== undefined && (!Array.isArray(endpoint.kinds) || endpoint.kinds.some((k) => typeof k !== 'string' || k === ''))) {
    throw invalid(`Webhook endpoint "${id}": kinds must be a list of activity kinds.`, id);
  }
  return { id, url, secret: endpoint.secret, kinds: endpoint.kinds ? new Set(endpoint.kinds) : null };
}

// Per options object: its resolution (for the adapter it was resolved with), and the kicks of the deliverers running
// for it, shared by every configuration that holds the same options (a sink and a deliverer built from copies).
const resolved = new WeakMap<WebhooksOptions, { source: Adapter; webhooks: ResolvedWebhooks }>();
const kicksOf = new WeakMap<WebhooksOptions, Set<() => void>>();

/**
 * Checks the `webhooks` option and the adapter once per options object, at start: a bad endpoint or an adapter
 * without the outbox is a configuration error, not a failure in someone's sign-in.
 *
 * @throws InvalidWebhookEndpoint, MissingAdapter, MissingAdapterMethods
 * @example
 * resolveWebhooks({ adapter, webhooks: { endpoints: [{ id: 'crm', url: 'https://crm.example/hooks', secret }] } })
 */
export function resolveWebhooks(config: WebhooksConfig): ResolvedWebhooks {
  const options = config.webhooks;
  if (options == null || typeof options !== 'object' || !Array.isArray(options.endpoints)) throw invalid('webhooks.endpoints must be a list of endpoints.');
  const known = resolved.get(options);
  if (known && known.source === config.adapter) return known.webhooks;
  const seen = new Set<string>();
  const endpoints = options.endpoints.map((e) => resolveEndpoint(e, seen));
  if (!config.adapter) throw new MissingAdapter('Webhooks keep their outbox through the adapter: configure one (PostgresAdapter has the outbox).', { needs: ['webhooks'] });
  const missing = webhookAdapterMethods.filter((m) => typeof config.adapter![m] !== 'function');
  if (missing.length > 0) {
    throw new MissingAdapterMethods(`The adapter is missing methods required by webhooks: ${missing.join(', ')}. PostgresAdapter has them; run \`npx authchart migrate\` for its webhook_outbox table.`, { needs: ['webhooks'], missing });
  }
  const logger = createLogger(config.logger, config.debug ?? false);
  const timeout = positive('timeout', options.timeout, 10_000);
  const result: ResolvedWebhooks = {
    endpoints,
    byId: new Map(endpoints.map((e) => [e.id, e])),
    adapter: wrapAdapter(config.adapter, logger) as unknown as OutboxAdapter,
    logger,
    events: config.events ?? {},
    timeout,
    baseDelay: positive('retry.baseDelay', options.retry?.baseDelay, 5_000),
    maxDelay: positive('retry.maxDelay', options.retry?.maxDelay, 60 * 60 * 1000),
    disableAfter: positive('disableAfter', options.disableAfter, 24 * 60 * 60 * 1000),
    pollInterval: positive('pollInterval', options.pollInterval, 5_000),
    batchSize: Math.floor(positive('batchSize', options.batchSize, 20)),
    lease: positive('lease', options.lease, Math.max(60_000, 3 * timeout)),
    now: options.now ?? Date.now,
    random: options.random ?? Math.random,
    kicks: kicksOf.get(options) ?? new Set(),
  };
  kicksOf.set(options, result.kicks);
  resolved.set(options, { source: config.adapter, webhooks: result });
  return result;
}
