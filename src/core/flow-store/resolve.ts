// Which flow store a configuration uses: the one it names, else the adapter's database when the adapter has the
// flow-store methods, else this process's memory.
import type { WrappedAdapter } from '../adapter-wrap.js';
import { UnsupportedStrategy } from '../errors.js';
import { isOutage, storeError, withDeadline } from '../store-deadline.js';
import { adapterFlowStore, hasFlowStoreMethods, memoryFlowStore, type FlowStore } from './store.js';

/** Where the warning about an implicit memory store goes (the configuration's logger). */
interface Warn {
  warn(code: string, message?: string): void;
}

/**
 * The flow store of a configuration (once per configuration object: a memory store is this configuration's own).
 * In production a memory store nobody chose warns once, when a flow first writes to it: a second instance would
 * never see what this one kept (a pending approval, a challenge), and nothing else would tell the operator.
 *
 * @example
 * const store = resolveFlowStore(config.flowStore, wrappedAdapter, { production, logger })
 */
export function resolveFlowStore(
  configured: FlowStore | undefined,
  adapter: WrappedAdapter | undefined,
  context: { production: boolean; logger: Warn },
): FlowStore {
  if (configured !== undefined) {
    const s = configured as Partial<FlowStore> | null;
    if (typeof s?.set !== 'function' || typeof s.get !== 'function' || typeof s.take !== 'function') {
      throw new UnsupportedStrategy('`flowStore` must be a store with `set`, `get` and `take` (memoryFlowStore(), redisFlowStore(client), adapterFlowStore(adapter)).');
    }
    return configured;
  }
  if (hasFlowStoreMethods(adapter)) return adapterFlowStore(adapter);
  const memory = memoryFlowStore();
  if (!context.production) return memory;
  let warned = false;
  return {
    ...memory,
    async set(key, value, ttlSeconds) {
      if (!warned) {
        warned = true;
        context.logger.warn(
          'flow-store-memory',
          'A flow keeps state in this process\'s memory (no `flowStore` is configured and the adapter has no flow-store methods): another instance of the app will not see it. With several instances set `flowStore: redisFlowStore(client)` or use an adapter with the flow-store methods (PostgresAdapter); set `flowStore: memoryFlowStore()` to say one instance is meant.',
        );
      }
      return memory.set(key, value, ttlSeconds);
    },
  };
}

/**
 * The flow store with a deadline on each call (`storeTimeout`): a Redis or database that does not answer, or cannot
 * be reached, is a ServiceUnavailable instead of a flow that waits for the outage to end. Other failures (a full
 * memory store) pass through as they are. Memory needs no deadline.
 *
 * @example
 * const store = flowStoreWithDeadline(resolveFlowStore(undefined, adapter, context), 5000)
 */
export function flowStoreWithDeadline(store: FlowStore, timeout: number): FlowStore {
  if (store.kind === 'memory') return store;
  const call = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await withDeadline(work, timeout, `flowStore.${what}`);
    } catch (e) {
      throw isOutage(e) ? storeError(`flowStore.${what}`, e) : e;
    }
  };
  return {
    kind: store.kind,
    set: (key, value, ttl) => call('set', () => store.set(key, value, ttl)),
    get: (key) => call('get', () => store.get(key)),
    take: (key) => call('take', () => store.take(key)),
    ...(store.claim ? { claim: (key: string, value: string, ttl: number) => call('claim', () => store.claim!(key, value, ttl)) } : {}),
  };
}
