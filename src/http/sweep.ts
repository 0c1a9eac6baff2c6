// The opportunistic sweep: now and then a sign-in request asks the adapter to delete expired rows (`prune`), so a
// deployment without a cleanup job still keeps its tables from growing forever. Never awaited by the request.
import type { InternalConfig } from '../core/config.js';

/** At most one sweep per configuration and process in this many milliseconds. */
export const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

const lastSweep = new WeakMap<InternalConfig, number>();

/**
 * Starts a sweep when the adapter can prune and {@link SWEEP_INTERVAL_MS} has passed since the last one (or since
 * the first sign-in request this process served); resolves when it
 * is over (failures are logged as a warning, never thrown). Undefined when no sweep was started.
 *
 * @example
 * void sweepIfDue(req.config)
 */
export function sweepIfDue(config: InternalConfig, now = Date.now()): Promise<void> | undefined {
  const prune = config.adapter?.prune;
  if (!prune) return undefined;
  const last = lastSweep.get(config);
  // The first sign-in request only starts the clock: a process that just started (a test, a deploy of many
  // instances at once) does not sweep straight away.
  if (last === undefined) lastSweep.set(config, now);
  if (last === undefined || now - last < SWEEP_INTERVAL_MS) return undefined;
  lastSweep.set(config, now);
  // The activity log's retention is the configuration's (`activity.retention`); without it, the adapter's own.
  const options = config.activity ? { activityBefore: new Date(now - config.activity.retention * 1000) } : undefined;
  return prune(options).then(
    (counts) => config.logger.debug('prune', counts),
    (error: unknown) => config.logger.warn('prune-failed', `Deleting expired rows failed: ${error instanceof Error ? error.message : String(error)}`),
  );
}
