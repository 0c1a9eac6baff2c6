// The memory store's own counter against rate-limiter-flexible's memory limiter, which it replaces: random sequences
// of hits, refunds, deletions and clock steps over a few keys, on rules with and without a lock window; every answer
// (pass or refusal, points counted, time left) must be the same.
import RateLimiterMemory from 'rate-limiter-flexible/lib/RateLimiterMemory.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryCounter } from '../../../src/core/throttle/memory-counter.js';
import type { ThrottleCounter, ThrottleRule } from '../../../src/core/throttle/options.js';

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A pass or a refusal, as the throttle reads it. */
async function answer(work: Promise<unknown>): Promise<{ passed: boolean; consumedPoints: number; msBeforeNext: number } | boolean> {
  try {
    const res = await work;
    if (typeof res === 'boolean') return res;
    const { consumedPoints, msBeforeNext } = res as { consumedPoints: number; msBeforeNext: number };
    return { passed: true, consumedPoints, msBeforeNext };
  } catch (e) {
    expect(e).not.toBeInstanceOf(Error);
    const { consumedPoints, msBeforeNext } = e as { consumedPoints: number; msBeforeNext: number };
    return { passed: false, consumedPoints, msBeforeNext };
  }
}

/** A seeded generator, so a failure replays. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const rules: ThrottleRule[] = [
  { points: 3, duration: 10 },
  { points: 2, duration: 60, blockDuration: 600 },
  { points: 5, duration: 30, blockDuration: 5 },
  { points: 1, duration: 1 },
];

describe.each(rules)('the memory counter on %o', (rule) => {
  it.each([1, 2, 3, 4, 5])('answers like rate-limiter-flexible on random sequence %i', async (seed) => {
    const ours: ThrottleCounter = memoryCounter(rule);
    const theirs = new RateLimiterMemory({ points: rule.points, duration: rule.duration, blockDuration: rule.blockDuration ?? 0 });
    const next = random(seed);
    const keys = ['a', 'b', 'c'];
    let refusals = 0;
    for (let step = 0; step < 400; step++) {
      const key = keys[Math.floor(next() * keys.length)];
      const roll = next();
      if (roll < 0.6) {
        const [a, b] = [await answer(ours.consume(key)), await answer(theirs.consume(key))];
        expect(a, `step ${step}: consume ${key}`).toEqual(b);
        if (typeof a === 'object' && !a.passed) refusals++;
      } else if (roll < 0.75) {
        expect(await answer(ours.reward(key, 1)), `step ${step}: reward ${key}`).toEqual(await answer(theirs.reward(key, 1)));
      } else if (roll < 0.8) {
        expect(await answer(ours.delete(key)), `step ${step}: delete ${key}`).toEqual(await answer(theirs.delete(key)));
      } else {
        // Steps of up to a bit more than the longest window, landing on window ends now and then.
        const ms = next() < 0.1 ? rule.duration * 1000 : Math.floor(next() * (rule.blockDuration ?? rule.duration) * 400);
        await vi.advanceTimersByTimeAsync(ms);
      }
    }
    // The sequence reached the limit: the comparison covered refusals, not only passes.
    expect(refusals).toBeGreaterThan(0);
  });
});

describe('the memory counter', () => {
  it('refuses the hit over the limit with the time left, and a lock window outlasts the counting window', async () => {
    const counter = memoryCounter({ points: 2, duration: 60, blockDuration: 3600 });
    await counter.consume('k');
    vi.advanceTimersByTime(10_000);
    await counter.consume('k');
    await expect(counter.consume('k')).rejects.toEqual({ consumedPoints: 3, remainingPoints: 0, msBeforeNext: 3_600_000 });
    // Past the counting window, still locked; past the lock, counting afresh.
    vi.advanceTimersByTime(120_000);
    await expect(counter.consume('k')).rejects.toMatchObject({ msBeforeNext: 3_480_000 });
    vi.advanceTimersByTime(3_480_000);
    await expect(counter.consume('k')).resolves.toMatchObject({ consumedPoints: 1, msBeforeNext: 60_000 });
  });

  it('a window ends exactly `duration` seconds after its first hit', async () => {
    const counter = memoryCounter({ points: 5, duration: 10 });
    await counter.consume('other');
    vi.advanceTimersByTime(5_000);
    await counter.consume('k');
    vi.advanceTimersByTime(5_000);
    // A hit between sweeps: the window itself must tell that it ended.
    await counter.consume('other');
    vi.advanceTimersByTime(4_999);
    await expect(counter.consume('k')).resolves.toMatchObject({ consumedPoints: 2, msBeforeNext: 1 });
    vi.advanceTimersByTime(1);
    await expect(counter.consume('k')).resolves.toMatchObject({ consumedPoints: 1, msBeforeNext: 10_000 });
  });

  it('sweeps ended windows on a later hit, so keys that stop coming do not stay in memory', async () => {
    const counter = memoryCounter({ points: 5, duration: 10 });
    for (let i = 0; i < 50; i++) await counter.consume(`client-${i}`);
    vi.advanceTimersByTime(10_000);
    const deleted = vi.spyOn(Map.prototype, 'delete');
    await counter.consume('late');
    // The one hit after the windows ended removed all 50 of them.
    expect(deleted.mock.calls.map(([key]) => key)).toEqual(Array.from({ length: 50 }, (_, i) => `client-${i}`));
    deleted.mockRestore();
  });
});
