// Which flow store a configuration uses: the one it names, else the adapter's database when the adapter has the
// flow-store methods, else this process's memory.
import type { WrappedAdapter } from '../adapter-wrap.js';
import { UnsupportedStrategy } from '../errors.js';
import { isOutage, storeError, withDeadline } from '../store-deadline.js';
import { adapterFlowStore, FLOW_STORE_ADAPTER_METHODS, hasFlowStoreMethods, memoryFlowStore, type FlowStore } from './store.js';

/** The methods every flow store has (each atomic where it says so). */
const STORE_METHODS = ['set', 'get', 'take', 'add', 'increment'] as const;

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
    const s = configured as unknown as Record<string, unknown> | null;
    const missing = STORE_METHODS.filter((m) => typeof s?.[m] !== 'function');
    if (missing.length > 0) {
      throw new UnsupportedStrategy(`\`flowStore\` must be a store with \`set\`, \`get\`, \`take\`, \`add\` and \`increment\` (memoryFlowStore(), redisFlowStore(client), adapterFlowStore(adapter)); it has no ${missing.map((m) => `\`${m}\``).join(', ')}.`);
    }
    return configured;
  }
  if (hasFlowStoreMethods(adapter)) return adapterFlowStore(adapter);
  // An adapter with some of the methods meant to keep flow state in its database: a silent fall back to memory
  // would lose it on every other instance (and give up the atomic steps the flows count on).
  const has = FLOW_STORE_ADAPTER_METHODS.filter((m) => typeof (adapter as Record<string, unknown> | undefined)?.[m] === 'function');
  if (has.length > 0) {
    const lacks = FLOW_STORE_ADAPTER_METHODS.filter((m) => !has.includes(m));
    throw new UnsupportedStrategy(`The adapter has ${has.join(', ')} but not ${lacks.join(', ')}: a database flow store needs all of ${FLOW_STORE_ADAPTER_METHODS.join(', ')}.`);
  }
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
    add: (key, value, ttl) => call('add', () => store.add(key, value, ttl)),
    increment: (key, ttl) => call('increment', () => store.increment(key, ttl)),
  };
}
