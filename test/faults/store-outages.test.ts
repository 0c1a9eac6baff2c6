// The fault suite: a TCP fault proxy between authchart and the real PostgreSQL and Redis. Invariants: a session
// check under a dead database answers 503 within the deadline (never "signed out", never a hang); an outage is never
// `Configuration` or `RateLimited`; a store that comes back needs no restart; with two instances sharing Redis, the
// one that loses it answers 503 while the other keeps counting.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { redisThrottleStore } from '../../src/core/throttle/store.js';
import { testAuth } from '../support/auth-app.js';
import { REDIS_URL } from '../support/shared-stores.js';
import { passwordProvider, readSession, signIn, writes, SESSION_COOKIE } from '../session/database-harness.js';
import { faultProxy, type FaultProxy } from './fault-proxy.js';
import { useProxiedPostgres } from './proxied-postgres.js';

const DEADLINE = 300;
const address = () => `fault-${randomBytes(4).toString('hex')}@example.test`;

describe('PostgreSQL behind a fault proxy', () => {
  const db = useProxiedPostgres('faults', DEADLINE, { connectionTimeoutMillis: DEADLINE });
  const auth = () => testAuth({ adapter: PostgresAdapter(db.pool), providers: [passwordProvider()], storeTimeout: DEADLINE });

  for (const mode of ['blackhole', 'reset', { latency: 2 * DEADLINE }] as const) {
    const name = typeof mode === 'object' ? `latency +${mode.latency} ms` : mode;
    it(`${name}: a session check answers 503 ServiceUnavailable within the deadline, and the session is back after`, async () => {
      db.proxy.mode = 'pass';
      const t = auth();
      const token = writes(await signIn(t, address()))[0]!.value;
      db.proxy.mode = mode;
      const started = Date.now();
      const { res, body } = await readSession(t.client);
      const took = Date.now() - started;
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(body).toMatchObject({ error: 'ServiceUnavailable' });
      expect(took).toBeLessThan(DEADLINE + 700);
      // The cookie is kept: nobody was signed out by an outage.
      expect(res.headers.getSetCookie?.() ?? []).toEqual([]);
      db.proxy.mode = 'pass';
      const back = await readSession(t.client);
      expect(back.res.status).toBe(200);
      expect(back.body?.user?.email).toMatch(/^fault-/);
      expect(t.client.cookies.get(SESSION_COOKIE)).toBe(token);
    });
  }

  it('a sign-in under a blackholed database lands on ServiceUnavailable (503 page), never Configuration, and sets no cookie', async () => {
    db.proxy.mode = 'blackhole';
    const t = auth();
    const res = await signIn(t, address());
    db.proxy.mode = 'pass';
    expect(res.location?.searchParams.get('error')).toBe('ServiceUnavailable');
    expect(writes(res)).toEqual([]);
    const page = await t.client.get(`${res.location!.pathname}${res.location!.search}`);
    expect(page.status).toBe(503);
    expect(page.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await page.text()).toContain('Temporarily unavailable');
  });
});

describe('Redis behind a fault proxy, two instances', () => {
  const url = new URL(REDIS_URL);
  let proxy: FaultProxy;
  let viaProxy: Redis;
  let direct: Redis;
  const prefix = `authchart:faults:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const instance = (client: Redis) =>
    testAuth({ providers: [passwordProvider()], throttle: { enabled: true, timeout: DEADLINE, store: redisThrottleStore(client, { prefix }) } });

  beforeAll(async () => {
    proxy = await faultProxy({ host: url.hostname, port: Number(url.port || 6379) });
    viaProxy = new Redis({ host: '127.0.0.1', port: proxy.port, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50, lazyConnect: false });
    viaProxy.on('error', () => {});
    direct = new Redis(REDIS_URL, { enableOfflineQueue: false });
    await Promise.all([viaProxy, direct].map((c) => new Promise((r) => (c.status === 'ready' ? r(null) : c.once('ready', r)))));
  });
  afterAll(async () => {
    viaProxy?.disconnect();
    direct?.disconnect();
    await proxy?.close();
  });

  for (const mode of ['blackhole', 'reset'] as const) {
    it(`${mode}: the instance that lost Redis answers 503 ServiceUnavailable (not RateLimited); the other signs in`, async () => {
      const a = instance(viaProxy);
      const b = instance(direct);
      proxy.mode = mode;
      const started = Date.now();
      const refused = await signIn(a, address());
      expect(Date.now() - started).toBeLessThan(DEADLINE + 700);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await refused.text()).toContain('Temporarily unavailable');
      expect(writes(refused)).toEqual([]);
      const ok = await signIn(b, address());
      expect(ok.location?.pathname).toBe('/home');
      expect(writes(ok)).toHaveLength(1);
      proxy.mode = 'pass';
    });
  }
});
