// The flow store on each backend: memory, Redis (ioredis and node-redis) and PostgreSQL (a real server, through
// the adapter). Values live their TTL and no longer; `take` hands one entry to exactly one of many concurrent
// takers; two instances' store objects on one backend see each other's entries.
import { createClient } from 'redis';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../../src/adapters/postgres/index.js';
import { wrapAdapter } from '../../../src/core/adapter-wrap.js';
import { resolveFlowStore } from '../../../src/core/flow-store/resolve.js';
import { scopedFlowStore } from '../../../src/core/flow-store/scoped.js';
import { adapterFlowStore, memoryFlowStore, redisFlowStore, type FlowStore } from '../../../src/core/flow-store/store.js';
import { REDIS_URL, runId, useSharedStores } from '../../support/shared-stores.js';

const stores = useSharedStores();
const quiet = { production: false, logger: { warn() {} } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A backend: each call of what it resolves to is one more instance's store object on it. */
type StoreCase = [name: string, backend: () => Promise<() => FlowStore>, shared: boolean];
const nodeRedisClients: ReturnType<typeof createClient>[] = [];
afterAll(async () => {
  for (const client of nodeRedisClients) await client.quit().catch(() => {});
});

const cases: StoreCase[] = [['memory', async () => { const one = memoryFlowStore(); return () => one; }, false]];
{
  cases.push(['Redis (ioredis)', async () => {
    const client = await stores.redis();
    return () => redisFlowStore(client, { prefix: stores.redisPrefix });
  }, true]);
  cases.push(['Redis (node-redis)', async () => {
    const client = createClient({ url: REDIS_URL });
    client.on('error', () => {});
    await client.connect();
    nodeRedisClients.push(client);
    return () => redisFlowStore(client, { prefix: `${stores.redisPrefix}node-redis:` });
  }, true]);
}
cases.push(['PostgreSQL server', async () => {
  const schema = await stores.schema();
  return () => resolveFlowStore(undefined, wrapAdapter(PostgresAdapter(stores.pool(schema)), { debug() {} }), quiet);
}, true]);

describe.each(cases)('flow store on %s', (name, backend, shared) => {
  const make = async () => (await backend())();

  it('keeps a value for its time to live, then answers null', async () => {
    const store = await make();
    const key = `ttl-${runId()}`;
    await store.set(key, '{"a":1}', 0.4);
    expect(await store.get(key)).toBe('{"a":1}');
    expect(await store.get(key)).toBe('{"a":1}'); // get does not consume
    await sleep(600);
    expect(await store.get(key)).toBeNull();
    expect(await store.take(key)).toBeNull();
  });

  it('take returns the value once and deletes it', async () => {
    const store = await make();
    const key = `take-${runId()}`;
    await store.set(key, '"v"', 60);
    expect(await store.take(key)).toBe('"v"');
    expect(await store.take(key)).toBeNull();
    expect(await store.get(key)).toBeNull();
  });

  it('hands an entry to exactly one of 30 concurrent takers', async () => {
    const store = await make();
    const key = `race-${runId()}`;
    await store.set(key, '"prize"', 60);
    const got = await Promise.all(Array.from({ length: 30 }, () => store.take(key)));
    expect(got.filter((v) => v !== null)).toEqual(['"prize"']);
  });

  it('set replaces the value and its expiry', async () => {
    const store = await make();
    const key = `replace-${runId()}`;
    await store.set(key, '1', 0.3);
    await store.set(key, '2', 60);
    await sleep(500);
    expect(await store.get(key)).toBe('2');
  });

  // Defined only for the stores that are shared (memory is one process's): a case, not a skipped check.
  if (shared) it('is shared: what one instance sets, another gets and takes', async () => {
    const open = await backend();
    const [a, b] = [open(), open()];
    const key = `shared-${runId()}`;
    await a.set(key, '{"approved":true}', 60);
    expect(await b.get(key)).toBe('{"approved":true}');
    expect(await b.take(key)).toBe('{"approved":true}');
    expect(await a.take(key)).toBeNull();
  });

  it(`keeps namespaces apart and values JSON (${name})`, async () => {
    const store = await make();
    const ns = runId();
    const one = scopedFlowStore(store, `flow:one-${ns}:`);
    const two = scopedFlowStore(store, `flow:two-${ns}:`);
    await one.set('k', { n: 1, list: ['x'] }, 60);
    expect(await two.get('k')).toBeNull();
    expect(await two.take('k')).toBeNull();
    expect(await one.get<{ n: number }>('k')).toEqual({ n: 1, list: ['x'] });
    expect(await one.take('k')).toEqual({ n: 1, list: ['x'] });
  });
});

describe('flow store chosen by configuration', () => {
  it('warns once in production when flows fall back to a memory store nobody chose, never when one was chosen', async () => {
    const warnings: string[] = [];
    const logger = { warn: (code: string) => void warnings.push(code) };
    const implicit = resolveFlowStore(undefined, undefined, { production: true, logger });
    expect(implicit.kind).toBe('memory');
    expect(await implicit.get('k')).toBeNull();
    expect(warnings).toEqual([]); // reading an empty store relies on nothing shared
    await implicit.set('k', 'v', 60);
    await implicit.set('k2', 'v', 60);
    expect(warnings).toEqual(['flow-store-memory']);
    expect(await implicit.take('k')).toBe('v');

    const chosen = resolveFlowStore(memoryFlowStore(), undefined, { production: true, logger });
    await chosen.set('k', 'v', 60);
    const development = resolveFlowStore(undefined, undefined, { production: false, logger });
    await development.set('k', 'v', 60);
    expect(warnings).toEqual(['flow-store-memory']);
  });

  it('is memory without an adapter that has the flow-store methods, the database with one, and the configured one first', async () => {
    expect(resolveFlowStore(undefined, undefined, quiet).kind).toBe('memory');
    const pg = PostgresAdapter({ query: async () => ({ rows: [], rowCount: 0 }) } as never);
    expect(resolveFlowStore(undefined, wrapAdapter(pg, { debug() {} }), quiet).kind).toBe('database');
    const redis = memoryFlowStore();
    expect(resolveFlowStore(redis, wrapAdapter(pg, { debug() {} }), quiet)).toBe(redis);
    expect(() => resolveFlowStore({ kind: 'x' } as never, undefined, quiet)).toThrow(/flowStore/);
    // The database store on an adapter's entry past its expiry: null, even before the row is pruned.
    const stale = adapterFlowStore({ setFlowValue: async () => {}, getFlowValue: async () => ({ value: '1', expires: new Date(Date.now() - 1) }), takeFlowValue: async () => ({ value: '1', expires: new Date(Date.now() - 1) }) });
    expect(await stale.get('k')).toBeNull();
    expect(await stale.take('k')).toBeNull();
  });
});

// `claim` (set if absent), what the provider-token refresh lock with tokens in the session cookie takes: memory and
// Redis have it; the database store does not (that mode then locks in the configuration's own memory).
describe.each(cases.filter(([name]) => name !== 'PostgreSQL server'))('flow store claim on %s', (_name, backend) => {
  it('hands a key to exactly one of 30 concurrent claims, and again once the entry has lapsed', async () => {
    const store = (await backend())();
    const key = `claim-${runId()}`;
    const got = await Promise.all(Array.from({ length: 30 }, (_, i) => store.claim!(key, `holder-${i}`, 0.4)));
    expect(got.filter(Boolean)).toHaveLength(1);
    expect(await store.get(key)).toBe(`holder-${got.indexOf(true)}`);
    await sleep(600);
    expect(await store.claim!(key, 'later', 60)).toBe(true);
    expect(await store.get(key)).toBe('later');
  });
});
