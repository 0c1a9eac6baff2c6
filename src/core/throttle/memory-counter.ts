// The memory store's counter: fixed windows in a Map, counted the way rate-limiter-flexible's memory limiter counts
// (the Redis and PostgreSQL stores count the same way), without loading that CommonJS package on a first sign-in.
// test/core/throttle/memory-counter.test.ts runs both side by side on random hit sequences.
import type { CounterRefusal, ThrottleCounter, ThrottleRule } from './options.js';

interface Window {
  /** Points counted in this window (a refund may take it below zero). */
  value: number;
  /** Date.now() at which the window ends and the key starts afresh. */
  expiresAt: number;
}

/** What a hit answers: the points counted so far and the milliseconds until the window ends. */
export interface CounterState extends CounterRefusal {
  consumedPoints: number;
  remainingPoints: number;
}

/**
 * Counters for one rule. A hit adds to the key's open window or opens one of `duration` seconds; the hit that first
 * goes over `points` starts a lock of `blockDuration` seconds when there is one. Hits over the limit reject with the
 * counter's state (not an Error), as the other stores do. Ended windows are swept on a later write.
 *
 * @example
 * const counter = memoryCounter({ points: 5, duration: 60 })
 * await counter.consume('key') // { consumedPoints: 1, remainingPoints: 4, msBeforeNext: 60000 }
 */
export function memoryCounter(rule: ThrottleRule): ThrottleCounter {
  const windows = new Map<string, Window>();
  const durationMs = rule.duration * 1000;
  const blockMs = (rule.blockDuration ?? 0) * 1000;
  let nextSweep = 0;

  function open(key: string, value: number, ms: number, now: number): Window {
    const window = { value, expiresAt: now + ms };
    windows.set(key, window);
    return window;
  }

  /** Adds `points` (negative for a refund) to the key's open window, or opens one; the window after the change. */
  function add(key: string, points: number, now: number): Window {
    if (now >= nextSweep) {
      for (const [k, w] of windows) if (w.expiresAt <= now) windows.delete(k);
      nextSweep = now + durationMs;
    }
    const window = windows.get(key);
    if (window && window.expiresAt > now) {
      window.value += points;
      return window;
    }
    return open(key, points, durationMs, now);
  }

  const state = (window: Window, now: number): CounterState => ({
    consumedPoints: window.value,
    remainingPoints: Math.max(rule.points - window.value, 0),
    msBeforeNext: window.expiresAt - now,
  });

  return {
    consume(key, points = 1) {
      const now = Date.now();
      let window = add(key, points, now);
      if (window.value <= rule.points) return Promise.resolve(state(window, now));
      // Only the hit that crosses the limit starts the lock: later ones do not push it further.
      if (blockMs > 0 && window.value <= rule.points + points) window = open(key, window.value, blockMs, now);
      return Promise.reject(state(window, now));
    },
    reward(key, points = 1) {
      const now = Date.now();
      return Promise.resolve(state(add(key, -points, now), now));
    },
    delete(key) {
      const window = windows.get(key);
      windows.delete(key);
      return Promise.resolve(window !== undefined && window.expiresAt > Date.now());
    },
  };
}
