// Where flows keep state that must outlive one request and be seen by every instance (a pending approval, a
// challenge another browser answers): a small key-value store of JSON strings with a time to live and three atomic
// steps (take, add if absent, count). Backed by the adapter's database, by Redis, or by this process's memory
// (development, one instance).
import { redisCommandSender } from '../redis-client.js';

/** A stored entry as a backend returns it. */
export interface FlowStoreEntry {
  value: string;
  expires: Date;
}

/**
 * A flow store backend. Values are strings (the scoped store in front of it encodes JSON). `take`, `add` and
 * `increment` are each one atomic step across every instance sharing the backend: what a single-use token, a
 * cooldown or a count of tries needs, where a read followed by a write would let concurrent requests through.
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
   * Sets `value` under `key` for `ttlSeconds` only if no live entry is there, in one step: of concurrent adds of one
   * key, exactly one gets true. A cooldown, a lock, a "first one wins".
   */
  add(key: string, value: string, ttlSeconds: number): Promise<boolean>;
  /**
   * Adds one to the counter under `key` and returns the new count, in one step: of n concurrent increments of a
   * fresh key, each gets a different count from 1 to n. An absent or expired counter starts at 1 and lives
   * `ttlSeconds` from then; later increments keep that expiry (a fixed window). The counter reads back as its
   * number in text (`get` gives `"3"`); incrementing an entry that is not a counter is an error.
   */
  increment(key: string, ttlSeconds: number): Promise<number>;
}

/** The count after one more, for a stored counter's text (absent: 0); anything but a counter is refused. */
export function nextCount(stored: string | null): number {
  if (stored === null) return 1;
  if (!/^\d{1,15}$/.test(stored)) throw new TypeError('The flow store entry to increment is not a counter.');
  return Number(stored) + 1;
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
  /** Makes room for a new key, or refuses: never an unbounded map. */
  const room = (key: string) => {
    if (entries.has(key) || entries.size < maxEntries) return;
    sweep();
    if (entries.size >= maxEntries) throw new FlowStoreFull(`The in-memory flow store holds ${maxEntries} entries, its limit.`);
  };
  return {
    kind: 'memory',
    async set(key, value, ttlSeconds) {
      room(key);
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
    async add(key, value, ttlSeconds) {
      // One synchronous step from the check to the write, as take's.
      if (live(key)) return false;
      room(key);
      entries.set(key, { value, expiresAt: Date.now() + ttlSeconds * 1000 });
      return true;
    },
    async increment(key, ttlSeconds) {
      // One synchronous step as well; the window's expiry is the first increment's.
      const entry = live(key);
      const count = nextCount(entry?.value ?? null);
      if (entry) entry.value = String(count);
      else {
        room(key);
        entries.set(key, { value: String(count), expiresAt: Date.now() + ttlSeconds * 1000 });
      }
      return count;
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

// INCR, and the window's expiry set by the increment that started it (or on a counter left without one), in one
// script: Redis runs a script with nothing in between.
const INCREMENT = `local n = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

/**
 * Entries in Redis, shared by every instance on the same server: `SET … PX`, `GET`, `GETDEL` for the atomic
 * take (Redis 6.2 or later), `SET … NX PX` for an add, and `INCR` with its expiry in one script for an increment.
 * Pass an ioredis client or a connected node-redis client.
 *
 * @example
 * import { Redis } from 'ioredis';
 * flowStore: redisFlowStore(new Redis(process.env.REDIS_URL!, { enableOfflineQueue: false }))
 */
export function redisFlowStore(client: unknown, options: RedisFlowStoreOptions = {}): FlowStore {
  const send = redisCommandSender(client, 'redisFlowStore');
  const prefix = options.prefix ?? 'authchart:flow:';
  const px = (ttlSeconds: number) => String(Math.max(1, Math.ceil(ttlSeconds * 1000)));
  const text = (v: unknown) => (v === null || v === undefined ? null : typeof v === 'string' ? v : Buffer.isBuffer(v) ? v.toString('utf8') : String(v));
  return {
    kind: 'redis',
    async set(key, value, ttlSeconds) {
      await send(['SET', prefix + key, value, 'PX', px(ttlSeconds)]);
    },
    async get(key) {
      return text(await send(['GET', prefix + key]));
    },
    async take(key) {
      return text(await send(['GETDEL', prefix + key]));
    },
    async add(key, value, ttlSeconds) {
      const set = await send(['SET', prefix + key, value, 'NX', 'PX', px(ttlSeconds)]);
      return set !== null && set !== undefined;
    },
    async increment(key, ttlSeconds) {
      try {
        return Number(await send(['EVAL', INCREMENT, '1', prefix + key, px(ttlSeconds)]));
      } catch (e) {
        // Redis's own words for an entry that is not a counter, as the other stores say it.
        if (/not an integer/i.test(e instanceof Error ? e.message : '')) throw new TypeError('The flow store entry to increment is not a counter.');
        throw e;
      }
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
  /**
   * Stores `value` under `key` until `expires` unless an entry that is live at `now` is there, atomically; true when
   * it stored. An expired entry is replaced.
   */
  addFlowValue(key: string, value: string, expires: Date, now: Date): Promise<boolean>;
  /**
   * Adds one to the counter under `key` atomically and returns the new count. An entry absent or expired at `now`
   * starts again at 1, until `expires`; a live one keeps its expiry.
   */
  incrementFlowValue(key: string, expires: Date, now: Date): Promise<number>;
}

/** The adapter methods of a database-backed flow store, by name. */
export const FLOW_STORE_ADAPTER_METHODS = ['setFlowValue', 'getFlowValue', 'takeFlowValue', 'addFlowValue', 'incrementFlowValue'] as const;
type Transactional = FlowStoreAdapterMethods & { withTransaction<T>(fn: (tx: FlowStoreAdapterMethods) => Promise<T>): Promise<T> };
const hasTransactions = (adapter: FlowStoreAdapterMethods): adapter is Transactional => typeof (adapter as Partial<Transactional>).withTransaction === 'function';

/** Whether an adapter has every flow-store method. */
export function hasFlowStoreMethods(adapter: unknown): adapter is FlowStoreAdapterMethods {
  const a = adapter as Record<string, unknown> | undefined;
  return FLOW_STORE_ADAPTER_METHODS.every((m) => typeof a?.[m] === 'function');
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
    add: (key, value, ttlSeconds) => adapter.addFlowValue(key, value, new Date(Date.now() + ttlSeconds * 1000), new Date()),
    increment: (key, ttlSeconds) => adapter.incrementFlowValue(key, new Date(Date.now() + ttlSeconds * 1000), new Date()),
  };
}
