// Where throttle counters live. A store hands out one atomic counter per limit: in this process's memory (our own
// counter), or in Redis shared by every instance, made with rate-limiter-flexible (PostgreSQL:
// authchart/adapters/postgres).
import { isNodeRedis } from '../redis-client.js';
import { memoryCounter } from './memory-counter.js';
import type { ThrottleCounter, ThrottleStore } from './options.js';
export type { CounterRefusal, ThrottleCounter, ThrottleStore } from './options.js';

/**
 * A counter whose limiter (and rate-limiter-flexible with it) loads on the first hit: an app pays for a shared
 * store's limiter when a sign-in request comes, never at start or on a session check.
 */
function lazyCounter(make: () => Promise<ThrottleCounter>): ThrottleCounter {
  let made: Promise<ThrottleCounter> | undefined;
  const get = () =>
    (made ??= make().catch((e: unknown) => {
      made = undefined;
      throw e;
    }));
  return {
    consume: async (key, points) => (await get()).consume(key, points),
    reward: async (key, points) => (await get()).reward(key, points),
    delete: async (key) => (await get()).delete(key),
  };
}

/**
 * Counters in this process's memory: the default, right for one instance. Ended windows are swept on later hits.
 *
 * @example
 * throttle: { store: memoryThrottleStore() }
 */
export function memoryThrottleStore(): ThrottleStore {
  return {
    kind: 'memory',
    counter: (_name, rule) => memoryCounter(rule),
  };
}

/** Options of {@link redisThrottleStore}. */
export interface RedisThrottleStoreOptions {
  /** Prefix of every key (default `authchart:throttle:`). */
  prefix?: string;
  /** The client is node-redis (`redis` package) rather than ioredis: detected by its shape, but can be forced. */
  nodeRedis?: boolean;
}

/**
 * Counters in Redis, shared by every instance that uses the same server: each hit is one atomic script (INCR with
 * its expiry). Pass an `ioredis` client (`enableOfflineQueue: false` makes a lost server fail at once instead of
 * queueing) or a connected node-redis client.
 *
 * @example
 * import Redis from 'ioredis';
 * throttle: { store: redisThrottleStore(new Redis(process.env.REDIS_URL!, { enableOfflineQueue: false })) }
 */
export function redisThrottleStore(client: unknown, options: RedisThrottleStoreOptions = {}): ThrottleStore {
  const prefix = options.prefix ?? 'authchart:throttle:';
  return {
    kind: 'redis',
    counter: (name, rule) =>
      lazyCounter(async () => {
        const { default: RateLimiterRedis } = await import('rate-limiter-flexible/lib/RateLimiterRedis.js');
        return new RateLimiterRedis({
          keyPrefix: `${prefix}${name}`, points: rule.points, duration: rule.duration, blockDuration: rule.blockDuration ?? 0,
          storeClient: client,
          rejectIfRedisNotReady: true,
          ...((options.nodeRedis ?? isNodeRedis(client)) ? { useRedisPackage: true } : {}),
        });
      }),
  };
}
