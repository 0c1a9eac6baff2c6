// Where flows keep state that must outlive one request and be seen by every instance (a pending approval, a
// challenge another browser answers): a small key-value store of JSON strings with a time to live and an atomic
// take. Backed by the adapter's database, by Redis, or by this process's memory (development, one instance).
import { redisCommandSender } from '../redis-client.js';

/** A stored entry as a backend returns it. */
export interface FlowStoreEntry {
  value: string;
  expires: Date;
}

/**
 * A flow store backend. Values are strings (the scoped store in front of it encodes JSON); `take` returns the entry
 * and deletes it in one step: of concurrent takes of one key, at most one gets it.
 */
export interface FlowStore {
  /** `memory`, `redis` or `database` (or anything a custom store calls itself), for logs and `authchart doctor`. */
  kind: string;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** The value, or null when absent or expired. */
  get(key: string): Promise<string | null>;
  /** The value, deleted in the same step, or null when absent or expired. */
  take(key: string): Promise<string | null>;
  /**
   * Optional: sets `value` under `key` only if no live entry is there, in one step (of concurrent claims of one key,
   * exactly one gets true). What a lock across instances needs; memory and Redis stores have it.
   */
  claim?(key: string, value: string, ttlSeconds: number): Promise<boolean>;
}

/** Options of {@link memoryFlowStore}. */
export interface MemoryFlowStoreOptions {
  /** At most this many live entries (default 10,000); a `set` beyond it is refused, never an unbounded map. */
  maxEntries?: number;
}

/**
 * Entries in this process's memory: right for development and one instance only (another instance never sees them).
 * The default when neither `flowStore` nor an adapter with the flow-store methods is configured.
 *
 * @example
 * flowStore: memoryFlowStore({ maxEntries: 1000 })
 */
export function memoryFlowStore(options: MemoryFlowStoreOptions = {}): FlowStore {
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, { value: string; expiresAt: number }>();
  const live = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  const sweep = () => {
    const now = Date.now();
    for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key);
  };
  return {
    kind: 'memory',
    async set(key, value, ttlSeconds) {
      if (!entries.has(key) && entries.size >= maxEntries) {
        sweep();
        if (entries.size >= maxEntries) throw new FlowStoreFull(`The in-memory flow store holds ${maxEntries} entries, its limit.`);
      }
      entries.delete(key); // re-inserted last, so the map's order stays roughly the order of expiry
      entries.set(key, { value, expiresAt: Date.now() + ttlSeconds * 1000 });
    },
    async get(key) {
      return live(key)?.value ?? null;
    },
    async take(key) {
      // One synchronous step: no other take can run between the read and the delete.
      const entry = live(key);
      if (!entry) return null;
      entries.delete(key);
      return entry.value;
    },
    async claim(key, value, ttlSeconds) {
      // One synchronous step from the check to the write, as take's.
      if (live(key)) return false;
      if (entries.size >= maxEntries) sweep();
      if (entries.size >= maxEntries) throw new FlowStoreFull(`The in-memory flow store holds ${maxEntries} entries, its limit.`);
      entries.set(key, { value, expiresAt: Date.now() + ttlSeconds * 1000 });
      return true;
    },
  };
}

/** A memory store that is full: refused rather than grown (see {@link MemoryFlowStoreOptions.maxEntries}). */
export class FlowStoreFull extends Error {
  override name = 'FlowStoreFull';
}

/** Options of {@link redisFlowStore}. */
export interface RedisFlowStoreOptions {
  /** Prefix of every key (default `authchart:flow:`). */
  prefix?: string;
}

/**
 * Entries in Redis, shared by every instance on the same server: `SET … PX`, `GET`, `GETDEL` for the atomic
 * take (Redis 6.2 or later), and `SET … NX PX` for a claim. Pass an ioredis client or a connected node-redis client.
 *
 * @example
 * import { Redis } from 'ioredis';
 * flowStore: redisFlowStore(new Redis(process.env.REDIS_URL!, { enableOfflineQueue: false }))
 */
export function redisFlowStore(client: unknown, options: RedisFlowStoreOptions = {}): FlowStore {
  const send = redisCommandSender(client, 'redisFlowStore');
  const prefix = options.prefix ?? 'authchart:flow:';
  const text = (v: unknown) => (v === null || v === undefined ? null : typeof v === 'string' ? v : Buffer.isBuffer(v) ? v.toString('utf8') : String(v));
  return {
    kind: 'redis',
    async set(key, value, ttlSeconds) {
      await send(['SET', prefix + key, value, 'PX', String(Math.ceil(ttlSeconds * 1000))]);
    },
    async get(key) {
      return text(await send(['GET', prefix + key]));
    },
    async take(key) {
      return text(await send(['GETDEL', prefix + key]));
    },
    async claim(key, value, ttlSeconds) {
      const set = await send(['SET', prefix + key, value, 'NX', 'PX', String(Math.ceil(ttlSeconds * 1000))]);
      return set !== null && set !== undefined;
    },
  };
}

/** The adapter methods a database-backed flow store needs (PostgresAdapter has them). */
export interface FlowStoreAdapterMethods {
  /** Stores (or replaces) `value` under `key` until `expires`. */
  setFlowValue(key: string, value: string, expires: Date): Promise<void>;
  /** The entry under `key`, expired or not (expiry is the store's check), or null. */
  getFlowValue(key: string): Promise<FlowStoreEntry | null>;
  /** Returns **and deletes** the entry under `key`, atomically: of concurrent calls, at most one gets it. */
  takeFlowValue(key: string): Promise<FlowStoreEntry | null>;
}

type Transactional = FlowStoreAdapterMethods & { withTransaction<T>(fn: (tx: FlowStoreAdapterMethods) => Promise<T>): Promise<T> };
const hasTransactions = (adapter: FlowStoreAdapterMethods): adapter is Transactional => typeof (adapter as Partial<Transactional>).withTransaction === 'function';

/** Whether an adapter has every flow-store method. */
export function hasFlowStoreMethods(adapter: unknown): adapter is FlowStoreAdapterMethods {
  const a = adapter as Partial<FlowStoreAdapterMethods> | undefined;
  return typeof a?.setFlowValue === 'function' && typeof a.getFlowValue === 'function' && typeof a.takeFlowValue === 'function';
}

/**
 * Entries in the adapter's database: what authchart uses by itself when the adapter has the flow-store methods.
 *
 * @example
 * flowStore: adapterFlowStore(PostgresAdapter(pool))
 */
export function adapterFlowStore(adapter: FlowStoreAdapterMethods): FlowStore {
  const unexpired = (entry: FlowStoreEntry | null) => (entry && entry.expires.getTime() > Date.now() ? entry.value : null);
  return {
    kind: 'database',
    set: (key, value, ttlSeconds) => adapter.setFlowValue(key, value, new Date(Date.now() + ttlSeconds * 1000)),
    get: async (key) => unexpired(await adapter.getFlowValue(key)),
    // An expired entry is taken (and so deleted) too, and answers null. In a transaction when the adapter has one: a
    // take whose answer comes after the deadline rolls back, so a stalled database keeps the entry, as a refused one does.
    take: async (key) => unexpired(await (hasTransactions(adapter) ? adapter.withTransaction((tx) => tx.takeFlowValue(key)) : adapter.takeFlowValue(key))),
  };
}
