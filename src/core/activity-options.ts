// The `activity` option: whether the security activity log is on, where its records go besides the adapter, how
// long they are kept, how many records an anonymous client can cause. The log is on exactly when the app sets
// `activity` (an adapter that could store records does not turn it on by itself: what is written, and kept for how
// long, is the app's decision). Records go to the adapter when it has `appendActivity`, and to every sink.
import { UnsupportedStrategy } from './errors.js';
import type { ActivitySink } from './activity.js';

const DAY = 24 * 60 * 60;

/** The `activity` option of the configuration. */
export interface ActivityOptions {
  /** Where records go besides the adapter (the webhook outbox, {@link activityStream}). A failing sink is logged, never fails the request. */
  sinks?: ActivitySink[];
  /** How long records are kept, in seconds (`{ days: 30 }` also works): the adapter's prune deletes older ones. Default 90 days. */
  retention?: number | { days: number };
  /**
   * How many records naming nobody (a failed sign-in before anyone was identified, a rate limit hit) one client
   * address may cause per minute, per kind, in this process. Beyond it they are counted and dropped, and a warning
   * says how many. Default 30. The log then grows by at most this much per client, whatever the client sends.
   */
  anonymousPerMinute?: number;
}

/** The `activity` option as the runtime reads it. */
export interface ResolvedActivity {
  sinks: readonly ActivitySink[];
  /** Seconds. */
  retention: number;
  anonymousPerMinute: number;
}

/** Checks and resolves the option; undefined (the log is off) when it is not set. */
export function resolveActivity(option: ActivityOptions | undefined): ResolvedActivity | undefined {
  if (option === undefined) return undefined;
  const sinks = option.sinks ?? [];
  if (!Array.isArray(sinks) || sinks.some((s) => !s || typeof s.write !== 'function' || typeof s.name !== 'string')) {
    throw new UnsupportedStrategy('activity.sinks must be a list of { name, write(records, tx?) }.', { option: 'activity.sinks' });
  }
  const raw = option.retention;
  const retention = raw === undefined ? 90 * DAY : typeof raw === 'number' ? raw : raw && typeof raw.days === 'number' ? raw.days * DAY : NaN;
  if (!(retention > 0) || !Number.isFinite(retention)) throw new UnsupportedStrategy('activity.retention must be a positive number of seconds or { days }.', { option: 'activity.retention', actual: raw });
  const perMinute = option.anonymousPerMinute ?? 30;
  if (!Number.isInteger(perMinute) || perMinute < 1) throw new UnsupportedStrategy('activity.anonymousPerMinute must be a positive whole number.', { option: 'activity.anonymousPerMinute', actual: perMinute });
  return { sinks: [...sinks], retention, anonymousPerMinute: perMinute };
}
