// The store as a flow sees it (`deps.store`): JSON values under keys namespaced per provider, with bounds on key
// length, value size and time to live, so nothing a browser sends can make one entry large or everlasting.
import { AdapterError } from '../errors.js';
import type { FlowStore } from './store.js';

/** The bounds every flow store entry keeps. */
export const FLOW_STORE_LIMITS = Object.freeze({
  /** Characters of a key, before the namespace. */
  maxKeyLength: 200,
  /** Bytes of a value as JSON (UTF-8). */
  maxValueBytes: 8192,
  /** Seconds an entry may live (one day). */
  maxTtlSeconds: 86_400,
});

/**
 * A flow's key-value store: values are JSON and each entry lives `ttlSeconds`. Three steps are atomic across every
 * instance sharing the store, so concurrent requests never both pass where one should:
 * - `take` returns and deletes (of concurrent takers of one key, at most one gets the value; the others get null);
 * - `add` sets only if no live entry is there (of concurrent adds, exactly one gets true): a cooldown, a lock;
 * - `increment` counts (of n concurrent increments, each gets its own count, 1 to n): tries, within a window that
 *   starts with the first one and lasts `ttlSeconds`. A counter reads back with `get` as its number.
 *
 * @example
 * await deps.store.set(`pending:${code}`, { approvedBy: null }, 600)
 * const pending = await deps.store.take<{ approvedBy: string | null }>(`pending:${code}`)
 * if (!(await deps.store.add(`cooldown:${phone}`, true, 60))) return 'wait'
 * if ((await deps.store.increment(`tries:${code}`, 600)) > 5) return 'locked'
 */
export interface FlowKeyValueStore {
  set(key: string, value: unknown, ttlSeconds: number): Promise<void>;
  get<T = unknown>(key: string): Promise<T | null>;
  take<T = unknown>(key: string): Promise<T | null>;
  add(key: string, value: unknown, ttlSeconds: number): Promise<boolean>;
  increment(key: string, ttlSeconds: number): Promise<number>;
}

// Printable ASCII without spaces: keys end up in Redis keys and database rows, and a flow builds them from input.
const KEY = /^[\x21-\x7e]+$/;

function checkKey(key: unknown): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > FLOW_STORE_LIMITS.maxKeyLength || !KEY.test(key)) {
    throw new TypeError(`A flow store key is 1 to ${FLOW_STORE_LIMITS.maxKeyLength} printable ASCII characters without spaces.`);
  }
  return key;
}

function encode(value: unknown): string {
  const json = value === undefined ? undefined : JSON.stringify(value);
  if (json === undefined) throw new TypeError('A flow store value must be JSON (not undefined or a function).');
  if (Buffer.byteLength(json, 'utf8') > FLOW_STORE_LIMITS.maxValueBytes) {
    throw new TypeError(`A flow store value is at most ${FLOW_STORE_LIMITS.maxValueBytes} bytes as JSON.`);
  }
  return json;
}

function decode<T>(text: string | null): T | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null; // not written by this store: as good as absent
  }
}

function checkTtl(ttlSeconds: number): number {
  if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0 || ttlSeconds > FLOW_STORE_LIMITS.maxTtlSeconds) {
    throw new TypeError(`A flow store entry lives more than 0 and at most ${FLOW_STORE_LIMITS.maxTtlSeconds} seconds.`);
  }
  return ttlSeconds;
}

/** A store failure is the storage's (AdapterError, logged in full), never a crash of the flow runtime. */
async function storage<T>(method: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof AdapterError) throw e;
    throw new AdapterError(e instanceof Error ? e : new Error(String(e)), { method: `flowStore.${method}` });
  }
}

/**
 * The part of `store` under `namespace` (e.g. `flow:<provider id>:`), with the checks and JSON of
 * {@link FlowKeyValueStore}.
 *
 * @example
 * const store = scopedFlowStore(config.flowStore, 'flow:device:')
 */
export function scopedFlowStore(store: FlowStore, namespace: string): FlowKeyValueStore {
  return {
    async set(key, value, ttlSeconds) {
      const k = namespace + checkKey(key);
      const json = encode(value);
      const ttl = checkTtl(ttlSeconds);
      await storage('set', () => store.set(k, json, ttl));
    },
    async get<T>(key: string) {
      const k = namespace + checkKey(key);
      return decode<T>(await storage('get', () => store.get(k)));
    },
    async take<T>(key: string) {
      const k = namespace + checkKey(key);
      return decode<T>(await storage('take', () => store.take(k)));
    },
    async add(key, value, ttlSeconds) {
      const k = namespace + checkKey(key);
      const json = encode(value);
      const ttl = checkTtl(ttlSeconds);
      return storage('add', () => store.add(k, json, ttl));
    },
    async increment(key, ttlSeconds) {
      const k = namespace + checkKey(key);
      checkTtl(ttlSeconds);
      return storage('increment', () => store.increment(k, ttlSeconds));
    },
  };
}
