// A flow's machine with its implementations provided once, not per request: `machine.provide()`
// rebuilds every state node (about 1 ms for the OAuth machine), so the runtime provides stand-ins
// that forward to the current request's implementations, held in AsyncLocalStorage while it runs.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AnyStateMachine } from 'xstate';
import type { FlowDefinition } from './contract.js';

type Implementations = { actors?: Record<string, unknown>; actions?: Record<string, unknown>; guards?: Record<string, unknown>; delays?: Record<string, unknown> };

const current = new AsyncLocalStorage<Implementations>();
/** Flows inside {@link withImplementations} right now. */
let running = 0;

/**
 * The store behind the stand-ins, for tests that check it is switched off between flows.
 * @internal
 */
export const implementationStore: AsyncLocalStorage<unknown> = current;

// While any AsyncLocalStorage is enabled, Node 20 runs a hook on every promise in the process (about 3 µs of a
// 27 µs session check). Flows are rare next to the requests around them, so the store is on only while one runs.
function release(): void {
  if (--running === 0) current.disable();
}
const cache = new WeakMap<FlowDefinition, AnyStateMachine>();

function lookup(kind: keyof Implementations, name: string): object {
  const impl = current.getStore()?.[kind]?.[name];
  if (impl === undefined) throw new Error(`No ${kind.slice(0, -1)} "${name}" is provided for this request.`);
  return impl as object;
}

/**
 * A stand-in that behaves as the current request's implementation of `kind`/`name`: property reads,
 * `in` checks and calls are forwarded (xstate's built-in actions are functions with properties).
 */
function standIn(kind: keyof Implementations, name: string): unknown {
  return new Proxy(function standIn() {}, {
    get: (_target, prop) => Reflect.get(lookup(kind, name), prop),
    has: (_target, prop) => Reflect.has(lookup(kind, name), prop),
    apply: (_target, thisArg, args) => Reflect.apply(lookup(kind, name) as (...a: unknown[]) => unknown, thisArg, args),
  });
}

function providedMachine(flow: FlowDefinition, sample: Implementations): AnyStateMachine {
  let machine = cache.get(flow);
  if (!machine) {
    const standIns: Implementations = {};
    for (const kind of ['actors', 'actions', 'guards', 'delays'] as const) {
      const names = Object.keys(sample[kind] ?? {});
      if (names.length) standIns[kind] = Object.fromEntries(names.map((n) => [n, standIn(kind, n)]));
    }
    machine = flow.machine.provide(standIns as never) as AnyStateMachine;
    cache.set(flow, machine);
  }
  return machine;
}

/**
 * Runs `fn` with the flow's machine and this request's implementations in effect.
 *
 * @example
 * await withImplementations(flow, flow.implement(services), (machine) => drive(createActor(machine, { input })))
 */
export function withImplementations<T>(flow: FlowDefinition, implementations: unknown, fn: (machine: AnyStateMachine) => Promise<T>): Promise<T> {
  const impl = implementations as Implementations;
  running++;
  let result: Promise<T>;
  try {
    result = current.run(impl, () => fn(providedMachine(flow, impl)));
  } catch (err) {
    release();
    throw err;
  }
  return result.finally(release);
}
