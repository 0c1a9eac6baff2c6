// `npm run load`, briefly: two demo instances as separate processes on the local PostgreSQL and Redis, loaded at
// once with session checks, wrong passwords for one account and magic links for one address, while a session is
// ended through one of them. Every check of bench/load.ts must hold (they fail with per-process throttle counters,
// or sessions that are not shared).
import { describe, expect, it } from 'vitest';
import { runLoad, verdicts } from '../../bench/load.js';
import { DATABASE_URL, REDIS_URL, useSharedStores } from '../support/shared-stores.js';
import { freePort } from './peers/net.js';

const stores = useSharedStores();

describe('load against two instances sharing PostgreSQL and Redis', () => {
  it('holds every check: shared limits, shared sessions, no server error', { timeout: 180_000 }, async () => {
    await stores.redis(); // registers the clean-up of this run's Redis keys
    const schema = await stores.schema();
    const lines: string[] = [];
    const result = await runLoad({
      seconds: 3,
      connections: 3,
      instances: {
        ports: [await freePort(), await freePort()],
        idpPort: await freePort(),
        databaseUrl: DATABASE_URL,
        redisUrl: REDIS_URL,
        schema,
        redisPrefix: `${stores.redisPrefix}throttle:`,
        onLine: (index, line) => void lines.push(`[${index}] ${line}`),
      },
    });
    const failed = verdicts(result).filter((v) => !v.ok);
    expect(failed, lines.slice(-20).join('\n')).toEqual([]);
    // The numbers behind the verdicts, stated plainly.
    expect(result.wrongPasswords.reachedCheck).toBeLessThanOrEqual(10);
    expect(result.magicLinks.mailed).toBeGreaterThan(0);
    expect(result.magicLinks.mailed).toBeLessThanOrEqual(5);
    expect(result.revoked.afterOnB).toBeNull();
    expect(result.serverErrors).toBe(0);
  });
});
