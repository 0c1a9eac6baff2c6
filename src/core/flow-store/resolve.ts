// Which flow store a configuration uses: the one it names, else the adapter's database when the adapter has the
// flow-store methods, else this process's memory.
import type { WrappedAdapter } from '../adapter-wrap.js';
import { UnsupportedStrategy } from '../errors.js';
import { adapterFlowStore, hasFlowStoreMethods, memoryFlowStore, type FlowStore } from './store.js';

/**
 * The flow store of a configuration (once per configuration object: a memory store is this configuration's own).
 *
 * @example
 * const store = resolveFlowStore(config.flowStore, wrappedAdapter)
 */
export function resolveFlowStore(configured: FlowStore | undefined, adapter: WrappedAdapter | undefined): FlowStore {
  if (configured !== undefined) {
    const s = configured as Partial<FlowStore> | null;
    if (typeof s?.set !== 'function' || typeof s.get !== 'function' || typeof s.take !== 'function') {
      throw new UnsupportedStrategy('`flowStore` must be a store with `set`, `get` and `take` (memoryFlowStore(), redisFlowStore(client), adapterFlowStore(adapter)).');
    }
    return configured;
  }
  if (hasFlowStoreMethods(adapter)) return adapterFlowStore(adapter);
  return memoryFlowStore();
}
