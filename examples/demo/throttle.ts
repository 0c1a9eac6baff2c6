// The demo's throttle. With REDIS_URL the counters live in that Redis, shared by every demo instance on it (what
// `npm run instances` starts), and the throttle is on with the library's default limits. Without it the library's
// default applies: on in production, off elsewhere (the browser suites sign in to one demo many times).
import type { AuthConfig } from '../../src/index.js';
import { redisThrottleStore } from '../../src/index.js';

/**
 * Sets `config.throttle` from the environment; returns a closer and a line for the console, or nothing.
 *
 * @example
 * const shared = await demoThrottle(config, env); if (shared) closers.push(shared.close)
 */
export async function demoThrottle(config: AuthConfig, env: NodeJS.ProcessEnv): Promise<{ close: () => Promise<void>; note: string } | undefined> {
  if (!env.REDIS_URL) return undefined;
  const { Redis } = await import('ioredis');
  // No offline queue: a Redis that is gone fails the count at once (credentials fail closed), it does not hang.
  const redis = new Redis(env.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  config.throttle = { enabled: true, store: redisThrottleStore(redis, env.DEMO_REDIS_PREFIX ? { prefix: env.DEMO_REDIS_PREFIX } : {}) };
  return {
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
    note: `Sign-in throttle: on, counted in Redis at ${new URL(env.REDIS_URL).host} (REDIS_URL), shared by every instance using it.`,
  };
}
