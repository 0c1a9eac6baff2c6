// Attacks on the default throttle store, the in-process memory counter: a password guesser locked out cannot get a
// guess through by waiting out the counting window or by guessing on during the lock, and a flood of made-up client
// keys does not stay in memory once its windows end.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolveThrottle } from '../../src/core/throttle/options.js';
import { memoryThrottleStore } from '../../src/core/throttle/store.js';
import { Throttle } from '../../src/core/throttle/throttle.js';

const SECRET = 'throttle-memory-attack-secret-0123456789abcdef';

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function defaultThrottle(): Throttle {
  const settings = resolveThrottle({ enabled: true }, true)!;
  return new Throttle(settings, memoryThrottleStore(), SECRET, { warn: () => {} });
}

describe('the memory throttle store under attack', () => {
  it('keeps a locked account locked for the whole 15 minutes, however the guesser spaces the guesses', async () => {
    const throttle = defaultThrottle();
    for (let i = 0; i < 10; i++) expect(await throttle.hit('credentialsAccount', 'ada', 'password')).toBeUndefined();
    const locked = await throttle.hit('credentialsAccount', 'ada', 'password');
    expect(locked).toMatchObject({ limit: 'credentialsAccount', retryAfter: 900, unavailable: false });
    // A guess every 30 s through the lock: every one refused, none pushing the lock further.
    for (let t = 30; t < 900; t += 30) {
      vi.advanceTimersByTime(30_000);
      expect(await throttle.hit('credentialsAccount', 'ada', 'password'), `at ${t} s`).toMatchObject({ retryAfter: 900 - t });
    }
    vi.advanceTimersByTime(30_000);
    // The lock is over: a new window, with its 10 guesses again (at most 40 an hour, as documented).
    expect(await throttle.hit('credentialsAccount', 'ada', 'password')).toBeUndefined();
  });

  it('forgets a flood of one-off client keys once their windows end', async () => {
    const throttle = defaultThrottle();
    const deleted = vi.spyOn(Map.prototype, 'delete');
    for (let i = 0; i < 5_000; i++) expect(await throttle.hit('signIn', `203.0.113.${i % 250}-${i}`)).toBeUndefined();
    vi.advanceTimersByTime(60_000);
    deleted.mockClear();
    await throttle.hit('signIn', '198.51.100.7');
    // One hit after the minute removed all 5,000 ended windows.
    expect(deleted.mock.calls.length).toBeGreaterThanOrEqual(5_000);
  });
});
