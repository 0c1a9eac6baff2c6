// Faults a model test injects into the real parts a path runs on: an adapter whose named methods fail as a database
// that is down does, and a flow store whose every call goes through the test's guard (which may fail it, or forget
// an entry first). The real adapter and store do everything else.
import type { Adapter } from '../../src/core/adapter.js';
import type { FlowStore } from '../../src/core/flow-store/store.js';

/** The error a connection refused gives (what the runtime answers as an outage). */
export const refusedConnection = (where?: string) => Object.assign(new Error(`connect ECONNREFUSED (injected${where ? ` into ${where}` : ''})`), { code: 'ECONNREFUSED' });

/**
 * `real` with each method named in `faults` (read at each call) failing as a database that is down; `before`, when
 * given, runs before every other call (to let another change land first, say) with the real method at hand.
 */
export function faultyAdapter(real: object, faults: ReadonlySet<string>, before?: (name: string, args: unknown[], call: (...a: unknown[]) => unknown) => unknown): Adapter {
  return new Proxy(real as Record<string, (...a: unknown[]) => unknown>, {
    get(target, name: string) {
      const fn = target[name];
      if (typeof fn !== 'function') return fn;
      return (...args: unknown[]) => {
        if (faults.has(name)) return Promise.reject(refusedConnection(name));
        if (!before) return fn.apply(target, args);
        return Promise.resolve(before(name, args, (...a) => fn.apply(target, a))).then(() => fn.apply(target, args));
      };
    },
  }) as unknown as Adapter;
}

/**
 * A shared flow store (not 'memory': a shared store's outage is answered as one, 503) over `memory`, each call
 * through `guard(key, run)`.
 */
export function guardedFlowStore(memory: FlowStore, guard: <T>(key: string, run: () => Promise<T>) => Promise<T>): FlowStore {
  return {
    kind: 'shared',
    set: (key, value, ttl) => guard(key, () => memory.set(key, value, ttl)),
    get: (key) => guard(key, () => memory.get(key)),
    take: (key) => guard(key, () => memory.take(key)),
    add: (key, value, ttl) => guard(key, () => memory.add(key, value, ttl)),
    increment: (key, ttl) => guard(key, () => memory.increment(key, ttl)),
  };
}
