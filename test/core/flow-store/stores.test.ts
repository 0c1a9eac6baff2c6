// The flow store on each backend: memory, Redis (ioredis and node-redis) and PostgreSQL (a real server and PGlite,
// through the adapter). Values live their TTL and no longer; `take` hands one entry to exactly one of many concurrent
// takers, `add` a key to exactly one of many concurrent adders, and `increment` a different count to each of many
// concurrent callers; two instances' store objects on one backend see each other's entries.
import { createClient } from 'redis';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../../src/adapters/postgres/index.js';
import { wrapAdapter } from '../../../src/core/adapter-wrap.js';
import { resolveFlowStore } from '../../../src/core/flow-store/resolve.js';
import { scopedFlowStore } from '../../../src/core/flow-store/scoped.js';
import { UnsupportedStrategy } from '../../../src/core/errors.js';
import { adapterFlowStore, memoryFlowStore, redisFlowStore, type FlowStore } from '../../../src/core/flow-store/store.js';
import { REDIS_URL, runId, useSharedStores } from '../../support/shared-stores.js';
import { useMigratedPGlite } from '../../support/pglite.js';

const stores = useSharedStores();
const pglite = useMigratedPGlite();
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

cases.push(['PGlite', async () => () => resolveFlowStore(undefined, wrapAdapter(pglite.adapter, { debug() {} }), quiet), true]);

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
    const stale = adapterFlowStore({ ...pg, getFlowValue: async () => ({ value: '1', expires: new Date(Date.now() - 1) }), takeFlowValue: async () => ({ value: '1', expires: new Date(Date.now() - 1) }) });
    expect(await stale.get('k')).toBeNull();
    expect(await stale.take('k')).toBeNull();
  });

  it('refuses a store or an adapter without the atomic steps, naming what is missing, rather than race or forget', () => {
    const old = { kind: 'custom', set: async () => {}, get: async () => null, take: async () => null };
    expect(() => resolveFlowStore(old as never, undefined, quiet)).toThrow(UnsupportedStrategy);
    expect(() => resolveFlowStore(old as never, undefined, quiet)).toThrow(/`add`, `increment`/);
    const { addFlowValue: _a, incrementFlowValue: _i, ...threeMethods } = PostgresAdapter({ query: async () => ({ rows: [], rowCount: 0 }) } as never);
    expect(() => resolveFlowStore(undefined, wrapAdapter(threeMethods as never, { debug() {} }), quiet)).toThrow(/but not addFlowValue, incrementFlowValue/);
  });
});

// The atomic steps a cooldown, a lock and a count of tries rely on, on every backend.
describe.each(cases)('flow store add and increment on %s', (_name, backend) => {
  it('hands a key to exactly one of 30 concurrent adds, and again once the entry has lapsed', async () => {
    const store = (await backend())();
    const key = `add-${runId()}`;
    const got = await Promise.all(Array.from({ length: 30 }, (_, i) => store.add(key, `holder-${i}`, 0.4)));
    expect(got.filter(Boolean)).toHaveLength(1);
    expect(await store.get(key)).toBe(`holder-${got.indexOf(true)}`);
    expect(await store.add(key, 'late', 60)).toBe(false);
    await sleep(600);
    expect(await store.add(key, 'later', 60)).toBe(true);
    expect(await store.get(key)).toBe('later');
  });

  it('gives each of 30 concurrent increments its own count, 1 to 30, readable with get', async () => {
    const store = (await backend())();
    const key = `count-${runId()}`;
    const counts = await Promise.all(Array.from({ length: 30 }, () => store.increment(key, 60)));
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(await store.get(key)).toBe('30');
    expect(JSON.parse((await store.get(key))!)).toBe(30); // a counter is a JSON number to the scoped store
  });

  it('keeps a counter\'s window from its first increment, then starts again at 1', async () => {
    const store = (await backend())();
    const key = `window-${runId()}`;
    expect(await store.increment(key, 0.5)).toBe(1);
    await sleep(250);
    expect(await store.increment(key, 60)).toBe(2); // a later increment does not stretch the window
    await sleep(450);
    expect(await store.get(key)).toBeNull();
    expect(await store.increment(key, 60)).toBe(1);
  });

  it('refuses to increment an entry that is not a counter, and leaves it as it was', async () => {
    const store = (await backend())();
    const key = `text-${runId()}`;
    await store.set(key, '{"a":1}', 60);
    await expect(store.increment(key, 60)).rejects.toThrow();
    expect(await store.get(key)).toBe('{"a":1}');
  });

  it('through the scoped store: JSON values, bounds checked, namespaced', async () => {
    const store = (await backend())();
    const ns = runId();
    const one = scopedFlowStore(store, `flow:one-${ns}:`);
    const two = scopedFlowStore(store, `flow:two-${ns}:`);
    expect(await one.add('k', { first: true }, 60)).toBe(true);
    expect(await two.add('k', { first: true }, 60)).toBe(true);
    expect(await one.add('k', { first: false }, 60)).toBe(false);
    expect(await one.get('k')).toEqual({ first: true });
    expect(await one.increment('n', 60)).toBe(1);
    expect(await one.increment('n', 60)).toBe(2);
    expect(await two.increment('n', 60)).toBe(1);
    expect(await one.get('n')).toBe(2);
    await expect(one.add('k', 1, 0)).rejects.toThrow(TypeError);
    await expect(one.increment('has space', 60)).rejects.toThrow(TypeError);
    await expect(one.increment('n', 86_401)).rejects.toThrow(TypeError);
  });
});
