// Benchmark 7: what the throttle adds to a sign-in. A credentials sign-in (`POST /auth/callback/credentials`, in
// process) with throttling off, then on each store (memory, Redis, PostgreSQL), allowed and refused (over a limit).
import pg from 'pg';
import { Redis } from 'ioredis';
import type { ThrottleOptions, ThrottleStore } from '../src/index.js';
import { postgres, root } from './built.js';
import { ORIGIN, authchartApp, type Handle } from './contenders.js';
import { interleave, spreadOf, timeLoop, type Sample, type Spread } from './measure.js';

export const THROTTLE_SIDES = ['off', 'memory', 'Redis', 'PostgreSQL'] as const;
export type ThrottleSide = (typeof THROTTLE_SIDES)[number];

export interface ThrottleBenchOptions {
  rounds: number;
  durationMs?: number;
  ops?: number;
  warmup: number;
  databaseUrl?: string;
  redisUrl?: string;
}

/** Sequential sign-ins per second and CPU per sign-in, allowed and (with a store) refused. */
export interface ThrottleFigures {
  allowed: { opsPerSec: Spread; cpuUsPerOp: Spread };
  refused?: { opsPerSec: Spread; cpuUsPerOp: Spread };
}

export interface ThrottleBenchResult {
  sides: Record<ThrottleSide, ThrottleFigures | { skipped: string }>;
}

/** A limit nobody reaches in a benchmark, and one that refuses from the first request on. */
const OPEN = { points: 1e9, duration: 3600 };
const SHUT = { points: 1, duration: 3600 };

/** One sign-in as a timed operation: the same form and CSRF pair each time, the answer's status checked. */
async function signInOp(handle: Handle, expected: number): Promise<() => Promise<void>> {
  const csrf = await handle(new Request(`${ORIGIN}/auth/csrf`));
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookie = csrf.headers.getSetCookie().map((c) => c.split(';', 1)[0]).join('; ');
  const body = new URLSearchParams({ csrfToken, username: 'alice', password: 'bench' }).toString();
  const op = async () => {
    const res = await handle(new Request(`${ORIGIN}/auth/callback/credentials`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body }));
    await res.arrayBuffer();
    if (res.status !== expected) throw new Error(`sign-in answered ${res.status}, expected ${expected}`);
  };
  return op;
}

/** In process there is no socket: every request is the one client 192.0.2.1. */
const throttleWith = (store: ThrottleStore, limit: typeof OPEN): ThrottleOptions => ({
  enabled: true,
  store,
  clientAddress: () => '192.0.2.1',
  rules: { signIn: limit, credentialsAccount: limit, credentialsClient: limit },
});

/**
 * Times a credentials sign-in with throttling off and on each store (stores that cannot be reached are skipped).
 *
 * @example
 * const result = await benchThrottle({ rounds: 3, durationMs: 300, warmup: 20, databaseUrl, redisUrl })
 */
export async function benchThrottle(options: ThrottleBenchOptions): Promise<ThrottleBenchResult> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const stores: Partial<Record<ThrottleSide, () => ThrottleStore>> = { memory: root.memoryThrottleStore };
  const skipped: Partial<Record<ThrottleSide, string>> = {};
  try {
    const redis = new Redis(options.redisUrl ?? 'redis://127.0.0.1:6379', { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true, retryStrategy: () => null });
    redis.on('error', () => {});
    try {
      await redis.connect();
      const prefix = `authchart:bench:${process.pid}:`;
      stores.Redis = () => root.redisThrottleStore(redis, { prefix: `${prefix}${Math.random().toString(36).slice(2)}:` });
      cleanups.push(async () => {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length) await redis.del(...keys);
        redis.disconnect();
      });
    } catch (err) {
      skipped.Redis = `Redis not reachable (${err instanceof Error ? err.message : String(err)})`;
      redis.disconnect();
    }
    if (options.databaseUrl) {
      const admin = new pg.Pool({ connectionString: options.databaseUrl, max: 1 });
      const schema = `authchart_bench_throttle_${process.pid}`;
      try {
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await admin.query(`CREATE SCHEMA ${schema}`);
        const pool = new pg.Pool({ connectionString: options.databaseUrl, options: `-c search_path=${schema}`, max: 4 });
        await postgres.migrate(pool);
        stores.PostgreSQL = () => postgres.PostgresThrottleStore(pool);
        cleanups.push(async () => {
          await pool.end();
          await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await admin.end();
        });
      } catch (err) {
        skipped.PostgreSQL = `PostgreSQL not reachable (${err instanceof Error ? err.message : String(err)})`;
        await admin.end().catch(() => {});
      }
    } else skipped.PostgreSQL = 'no DATABASE_URL';

    const contenders: Record<string, () => Promise<Sample>> = {};
    const loop = { ops: options.ops, durationMs: options.durationMs, warmup: options.warmup, concurrency: 1 };
    const off = await signInOp(await authchartApp(), 302);
    contenders['off|allowed'] = () => timeLoop(off, loop);
    for (const side of ['memory', 'Redis', 'PostgreSQL'] as const) {
      const make = stores[side];
      if (!make) continue;
      const allowed = await signInOp(await authchartApp({ throttle: throttleWith(make(), OPEN) }), 302);
      contenders[`${side}|allowed`] = () => timeLoop(allowed, loop);
      const shut = await shutApp(make);
      contenders[`${side}|refused`] = () => timeLoop(shut, loop);
    }
    const samples = await interleave(options.rounds, contenders);
    const fig = (key: string) => ({ opsPerSec: spreadOf(samples[key], (s) => s.opsPerSec), cpuUsPerOp: spreadOf(samples[key], (s) => s.cpuUsPerOp) });
    const sides = {} as ThrottleBenchResult['sides'];
    for (const side of THROTTLE_SIDES) {
      if (side === 'off') sides.off = { allowed: fig('off|allowed') };
      else if (samples[`${side}|allowed`]) sides[side] = { allowed: fig(`${side}|allowed`), refused: fig(`${side}|refused`) };
      else sides[side] = { skipped: skipped[side] ?? 'not available' };
    }
    return { sides };
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  }
}

/** An app whose limit is already spent for the bench client: every sign-in after the first is a 429. */
async function shutApp(make: () => ThrottleStore): Promise<() => Promise<void>> {
  const handle = await authchartApp({ throttle: throttleWith(make(), SHUT) });
  const first = await signInOp(handle, 302);
  await first();
  return signInOp(handle, 429);
}
