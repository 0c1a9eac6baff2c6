// The bound on what an anonymous client can add to the log: records of the kinds a client causes at will (a failed
// sign-in, a failed factor check, a rate limit hit, a recovery request) count per client address and kind in a
// one-minute window; past `anonymousPerMinute` they are dropped (and counted, and warned about once a window). The
// table of counters is bounded too: when full, a new address's records are dropped until the window turns.
import type { ActivityKind, ActivityRecord } from './types.js';

/** The kinds a client can cause without being anyone: bounded per address. */
export const THROTTLED_KINDS: ReadonlySet<ActivityKind> = new Set<ActivityKind>(['signIn.failed', 'secondFactor.failed', 'rateLimit.hit', 'recovery.requested']);

/** Most addresses counted in one window. */
export const MAX_COUNTED = 10_000;

export interface FloodGate {
  /** The records that may be written now (the others are dropped); `warn`: the first drop of this window. */
  admit(records: readonly ActivityRecord[], now?: number): { records: ActivityRecord[]; warn: boolean };
  /** Records dropped since the gate was made. */
  readonly dropped: number;
}

/** A gate letting through `perMinute` records of each throttled kind per client address per minute. */
export function floodGate(perMinute: number): FloodGate {
  let window = -1;
  let counts = new Map<string, number>();
  let dropped = 0;
  let warned = false;
  return {
    admit(records, now = Date.now()) {
      const current = Math.floor(now / 60_000);
      if (current !== window) {
        window = current;
        counts = new Map();
        warned = false;
      }
      const before = dropped;
      const admitted = records.filter((r) => {
        if (!THROTTLED_KINDS.has(r.kind)) return true;
        const key = `${r.kind} ${r.ip ?? '-'}`;
        const seen = counts.get(key);
        if (seen === undefined && counts.size >= MAX_COUNTED) {
          dropped++;
          return false;
        }
        const next = (seen ?? 0) + 1;
        counts.set(key, next);
        if (next > perMinute) {
          dropped++;
          return false;
        }
        return true;
      });
      const warn = dropped > before && !warned;
      if (warn) warned = true;
      return { records: admitted, warn };
    },
    get dropped() {
      return dropped;
    },
  };
}
