// Walks a machine definition into plain state ids and transition references: the one vocabulary shared by
// the diagrams, the runtime's flow trace and the model-based coverage, so the three can never disagree.
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';
import { AWAITING_TAG, FAILED_KEY, stateId, type TransitionRef } from '../flows/runtime/observe/refs.js';
import { toTransitionRef } from './guard-names.js';

export { ROOT_STATE, AWAITING_TAG, FAILED_KEY, stateId, type TransitionRef, type TraceEntry } from '../flows/runtime/observe/refs.js';
export { toTransitionRef, traceEntriesFromMicrostep, createTraceRecorder, guardName, namedTrace } from './guard-names.js';

/** Every state node below the root, parents before children, in document order. */
export function stateNodes(machine: AnyStateMachine): AnyStateNode[] {
  const out: AnyStateNode[] = [];
  const visit = (node: AnyStateNode) => {
    for (const child of Object.values(node.states) as AnyStateNode[]) {
      out.push(child);
      visit(child);
    }
  };
  visit(machine.root);
  return out;
}

/**
 * All state ids of a machine (compound, atomic and final ones; not the root), in document order.
 *
 * @example machineStates(machine) // ['idle', 'authorizing', 'done', 'failed', 'failed.accessDenied']
 */
export function machineStates(machine: AnyStateMachine): string[] {
  return stateNodes(machine).map(stateId);
}

/** The ids of the states tagged `awaiting` (where a flow is persisted), in document order. */
export function awaitingStates(machine: AnyStateMachine): string[] {
  return stateNodes(machine)
    .filter((node) => node.tags.includes(AWAITING_TAG))
    .map(stateId);
}

/**
 * The ids of the failure states: the leaves at or below a state keyed `failed` (`failed.accessDenied`), in
 * document order. A machine with a plain final `failed` state has that one.
 */
export function failureStates(machine: AnyStateMachine): string[] {
  return stateNodes(machine)
    .filter((node) => node.path.includes(FAILED_KEY) && Object.keys(node.states).length === 0)
    .map(stateId);
}

/**
 * Every transition definition of a machine, one entry per guarded branch, in a stable order: the root first,
 * then each state in document order; within a state its `on` events, its own `onDone`, invoke `onDone`/`onError`,
 * `after`, then `always`, each in declaration order (xstate's own order).
 *
 * @example
 * machineTransitions(machine)
 * // [{ from: 'idle', event: 'SUBMIT', to: 'authorizing' },
 * //  { from: 'authorizing', event: 'xstate.done.actor.authorize', to: 'done', guard: 'isAllowed' }, ...]
 */
export function machineTransitions(machine: AnyStateMachine): TransitionRef[] {
  return [machine.root, ...stateNodes(machine)].flatMap((node) => nodeTransitions(node).map(toTransitionRef));
}

/** The transition definitions declared on one state node, in the order `machineTransitions` uses. */
export function nodeTransitions(node: AnyStateNode): AnyTransitionDefinition[] {
  return [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
}

/**
 * A stable string key for a transition, used to compare definitions with trace entries and to list what
 * coverage is missing. A trace entry that fits several branches (`branches`) is keyed as all of them, joined
 * with ` or `, so it never reads as any one of them.
 *
 * @example transitionKey({ from: 'idle', event: 'GO', to: 'busy', guard: 'ok' }) // 'idle --GO [ok]--> busy'
 */
export function transitionKey(t: TransitionRef & { branches?: readonly TransitionRef[] }): string {
  if (t.branches) return t.branches.map((b) => transitionKey(b)).join(' or ');
  return `${t.from} --${t.event}${t.guard === undefined ? '' : ` [${t.guard}]`}--> ${t.to}`;
}

/**
 * Every state a recorded path was in: the initial configuration (a path starts there), the source and target
 * of each entry, the ancestors of each (a parent is active while a child is), and the initial descendants of
 * a compound target (entering `failed` enters its initial child). Unknown ids (a trace from another machine
 * version) are ignored.
 */
export function statesVisited(machine: AnyStateMachine, trace: readonly TransitionRef[]): Set<string> {
  const byId = new Map(stateNodes(machine).map((node) => [stateId(node), node] as const));
  const visited = new Set<string>();
  const enter = (node: AnyStateNode, withInitial: boolean) => {
    for (let n: AnyStateNode | undefined = node; n && n.path.length > 0; n = n.parent) visited.add(stateId(n));
    if (withInitial) for (const child of initialChildren(node)) enter(child, true);
  };
  for (const node of initialChildren(machine.root)) enter(node, true);
  for (const entry of trace) {
    const from = byId.get(entry.from);
    if (from) enter(from, false);
    for (const id of entry.to.split(',')) {
      const to = byId.get(id);
      // A targetless transition (to === from) enters nothing new.
      if (to) enter(to, entry.to !== entry.from);
    }
  }
  return visited;
}

/** The children entered along with a state: its initial child, or every region of a parallel state. */
function initialChildren(node: AnyStateNode): AnyStateNode[] {
  if (node.type === 'parallel') return Object.values(node.states) as AnyStateNode[];
  if (node.type !== 'compound' || node.config.initial === undefined) return [];
  return [...node.initial.target];
}
