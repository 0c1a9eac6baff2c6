// "Sessions valid after" times in Redis, for JWT deployments with several instances and no adapter (or an adapter
// without the methods): one key per user holding the time in milliseconds, which Redis itself forgets at its
// keep-until, so nothing needs pruning.
import type { SessionsValidAfterStore } from '../core/options.js';
import { redisCommandSender } from '../core/redis-client.js';

/** Options of {@link redisSessionsValidAfter}. */
export interface RedisSessionsValidAfterOptions {
  /** Prefix of every key (default `authchart:valid-after:`). */
  prefix?: string;
  /** Milliseconds a command may take before it counts as failed (default 1000). */
  timeout?: number;
}

// Sets the time unless a later one is kept (two "sign out everywhere" at once keep the later), in one atomic step.
const SET_LATER = `local current = tonumber(redis.call('GET', KEYS[1]))
if current and current >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
return 1`;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * Keeps JWT sessions' "sessions valid after" times in Redis, shared by every instance on the same server (Redis 6.2
 * or later). If Redis fails or is slow, a refresh that needs the time fails closed (the session reads as signed
 * out and `JWTSessionError` is logged) and ending sessions answers an error: no ended token is let through.
 *
 * @example
 * import Redis from 'ioredis';
 * session: { strategy: 'jwt', validAfter: redisSessionsValidAfter(new Redis(process.env.REDIS_URL!, { enableOfflineQueue: false })) }
 */
export function redisSessionsValidAfter(client: unknown, options: RedisSessionsValidAfterOptions = {}): SessionsValidAfterStore {
  const send = redisCommandSender(client, 'redisSessionsValidAfter');
  const prefix = options.prefix ?? 'authchart:valid-after:';
  const timeout = options.timeout ?? 1000;
  return {
    async get(userId) {
      const value = await withTimeout(send(['GET', `${prefix}${userId}`]), timeout);
      if (value === null || value === undefined) return null;
      const ms = Number(String(value));
      // A value that is not a time is never read as "no time": the refresh fails closed.
      if (!Number.isFinite(ms)) throw new Error(`The "sessions valid after" time of a user in Redis is unreadable.`);
      return new Date(ms);
    },
    async set(userId, at, keepUntil) {
      await withTimeout(send(['EVAL', SET_LATER, '1', `${prefix}${userId}`, String(at.getTime()), String(keepUntil.getTime())]), timeout);
    },
  };
}
