// JWT sessions' "sessions valid after" times in a real Redis (redisSessionsValidAfter), through ioredis and
// node-redis: the time never moves back, Redis forgets it at its keep-until, two instances without any adapter end
// each other's sessions through it, and a Redis that is down never lets an ended token through.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { resolveConfig } from '../../src/core/config.js';
import { UnsupportedStrategy } from '../../src/core/errors.js';
import type { SessionsValidAfterStore } from '../../src/core/options.js';
import { redisSessionsValidAfter } from '../../src/session/valid-after-redis.js';
import { Credentials } from '../../src/providers/credentials.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';
import { REDIS_URL, useSharedStores } from '../support/shared-stores.js';

const stores = useSharedStores();
const DAY = 86_400_000;
let serial = 0;
const unique = (who: string) => `${who}-${++serial}-${process.pid}@example.test`;

const nodeRedisClients: ReturnType<typeof createClient>[] = [];
afterAll(async () => {
  for (const client of nodeRedisClients) await client.quit().catch(() => {});
});

const clients: [string, () => Promise<unknown>][] = [
  ['ioredis', () => stores.redis()],
  [
    'node-redis',
    async () => {
      const client = createClient({ url: REDIS_URL });
      client.on('error', () => {});
      nodeRedisClients.push(client);
      await client.connect();
      return client;
    },
  ],
];

describe.each(clients)('redisSessionsValidAfter through %s', (name, connect) => {
  let prefix = 0;
  const store = async (): Promise<{ times: SessionsValidAfterStore; key: (user: string) => string }> => {
    const p = `${stores.redisPrefix}${name}${++prefix}:`;
    return { times: redisSessionsValidAfter(await connect(), { prefix: p }), key: (user) => `${p}${user}` };
  };

  it('keeps the time until its keep-until and never moves it back', async () => {
    const { times, key } = await store();
    const admin = await stores.redis();
    expect(await times.get('ada')).toBeNull();
    const at = new Date(Date.now() - 1000);
    const keepUntil = new Date(Date.now() + DAY);
    await times.set('ada', at, keepUntil);
    expect(await times.get('ada')).toEqual(at);
    // Redis forgets the key itself at the keep-until: nothing to prune.
    expect(await admin.call('PEXPIRETIME', key('ada'))).toBe(keepUntil.getTime());
    // An earlier time (a slower instance's "sign out everywhere") does not move it back.
    await times.set('ada', new Date(at.getTime() - 60_000), new Date(keepUntil.getTime() - 60_000));
    expect(await times.get('ada')).toEqual(at);
    const later = new Date(at.getTime() + 5000);
    await times.set('ada', later, new Date(keepUntil.getTime() + 5000));
    expect(await times.get('ada')).toEqual(later);
    expect(await times.get('bob')).toBeNull();
  });

  it('a time whose keep-until has passed is not kept', async () => {
    const { times } = await store();
    await times.set('old', new Date(Date.now() - 2 * DAY), new Date(Date.now() - DAY));
    expect(await times.get('old')).toBeNull();
  });

  it('a server that never answers is an error after the timeout, not a hung request', async () => {
    // Accepts the connection, reads the commands, answers nothing.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket.on('data', () => {})));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `redis://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const client = name === 'ioredis' ? new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true }) : createClient({ url, socket: { reconnectStrategy: false } });
      (client as { on(e: string, f: () => void): void }).on('error', () => {});
      void (client.connect() as Promise<unknown>).catch(() => {});
      const times = redisSessionsValidAfter(client, { timeout: 200 });
      await expect(times.get('ada')).rejects.toThrow(/within 200 ms/);
      await expect(times.set('ada', new Date(), new Date(Date.now() + DAY))).rejects.toThrow(/within 200 ms/);
      client.disconnect();
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('an unreadable value is an error, never "no time"', async () => {
    const { times, key } = await store();
    const admin = await stores.redis();
    await admin.set(key('eve'), 'not-a-time', 'PX', 60_000);
    await expect(times.get('eve')).rejects.toThrow(/unreadable/);
  });
});

const provider = Credentials({ credentials: { email: { label: 'Email' } }, authorize: (c) => ({ id: String(c.email), email: String(c.email) }) });
const UPDATE_AGE = 60;

async function signIn(t: TestAuth, client: TestClient, email: string): Promise<void> {
  const csrfToken = await t.csrfToken(client);
  expect((await client.post('/auth/callback/credentials', { csrfToken, email })).status).toBe(302);
}
const email = async (client: TestClient) => ((await (await client.get('/auth/session')).json()) as { user?: { email?: string } } | null)?.user?.email ?? null;
const revoke = async (t: TestAuth, client: TestClient, scope: 'others' | 'all') => client.post('/auth/sessions/revoke', { csrfToken: await t.csrfToken(client), scope });
const later = (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1000);

describe('two instances with JWT sessions, no adapter, the times in Redis', () => {
  afterEach(() => vi.useRealTimers());
  const instance = (validAfter: SessionsValidAfterStore) => testAuth({ session: { strategy: 'jwt', updateAge: UPDATE_AGE, validAfter }, providers: [provider] });

  it('"end the other sessions" through A ends a session on B at once; A\'s own goes on', async () => {
    const prefix = `${stores.redisPrefix}two:`;
    const a = instance(redisSessionsValidAfter(await stores.redis(), { prefix }));
    const b = instance(redisSessionsValidAfter(await stores.redis(), { prefix }));
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const ada = unique('ada');
    const [laptop, phone] = [a.newClient(), b.newClient()];
    await signIn(a, laptop, ada);
    await signIn(b, phone, ada);
    later(1);
    const res = await revoke(a, laptop, 'others');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ revoked: 0 });
    // Refused at once: every read compares the time.
    expect(await email(phone)).toBeNull();
    later(UPDATE_AGE + 1);
    expect(await email(phone)).toBeNull();
    expect(await email(laptop)).toBe(ada);
  });

  it('a Redis that is down fails closed: a read is signed out, ending sessions is an error, nothing crashes', async () => {
    const prefix = `${stores.redisPrefix}down:`;
    const up = instance(redisSessionsValidAfter(await stores.redis(), { prefix }));
    // Nothing listens on port 1: every command fails at once.
    const downClient = await stores.redis('redis://127.0.0.1:1');
    const down = instance(redisSessionsValidAfter(downClient, { prefix }));
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const ada = unique('ada');
    const phone = down.newClient();
    await signIn(down, phone, ada);
    // The time cannot be looked up, so no read takes the session as live; the cookie is kept for when Redis is back.
    const res = await phone.get('/auth/session');
    expect(res.status).toBe(200);
    expect(await res.json()).toBeNull();
    expect(res.headers.get('set-cookie') ?? '').not.toMatch(/authchart\.session-token=;/);
    expect(down.logger.errorTypes()).toContain('AdapterError');
    const ended = await revoke(down, phone, 'all');
    // The server's own failure, typed and logged; the answer says no more than any server error does.
    expect(ended.status).toBe(500);
    expect(await ended.text()).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|Redis/);
    expect(down.logger.errorTypes().at(-1)).toBe('AdapterError');
    // The instance whose Redis answers still serves.
    const laptop = up.newClient();
    await signIn(up, laptop, ada);
    expect(await email(laptop)).toBe(ada);
  });
});

describe('session.validAfter is checked at start', () => {
  it('must be a store with get and set, and applies to JWT sessions only', () => {
    const config = (session: object, adapter?: object) => resolveConfig({ secret: 's'.repeat(32), trustHost: true, providers: [provider], session, ...(adapter ? { adapter } : {}) } as never, { env: {} });
    expect(() => config({ strategy: 'jwt', validAfter: { get: () => null } })).toThrow(UnsupportedStrategy);
    const times: SessionsValidAfterStore = { get: () => null, set: () => {} };
    expect(() => config({ strategy: 'database', validAfter: times }, {})).toThrow(/applies to JWT sessions/);
    expect(config({ strategy: 'jwt', validAfter: times }).session.validAfter).toBe(times);
  });
});
