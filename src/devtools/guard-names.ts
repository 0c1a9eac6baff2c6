// Guard names for the diagrams, the inspector and the coverage: the runtime writes a guard down from the definition's
// data (observe/refs.ts); here a guard written as a function gets its full name (`not(hasError)`, `stateIn(#m.busy)`),
// which takes reading XState's guard helpers apart. Never on the sign-in path.
import { and, not, or } from 'xstate';
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition, InspectionEvent } from 'xstate';
import { createTraceRecorder as createPlainRecorder } from '../flows/runtime/observe/observer.js';
import { plainGuardName, refOf, ROOT_STATE, type TraceEntry, type TransitionRef } from '../flows/runtime/observe/refs.js';

// The combinators' `check` functions identify not()/and()/or() even when a bundler renames the functions.
let combinatorChecks: Map<unknown, string> | undefined;
const combinatorOf = (check: unknown) => {
  combinatorChecks ??= new Map<unknown, string>([
    [(not('x') as unknown as { check: unknown }).check, 'not'],
    [(and(['x']) as unknown as { check: unknown }).check, 'and'],
    [(or(['x']) as unknown as { check: unknown }).check, 'or'],
  ]);
  return combinatorChecks.get(check);
};

/**
 * A stable, readable name for a guard:
 * - a named guard: its name (`'isAllowed'`); with static params `isRole(admin)` (one param) or
 *   `inRange(min=1, max=3)`, with dynamic ones `isRole(dynamic)`;
 * - `not(a)`, `and(a, b)`, `or(a, b)` for the combinators, `stateIn(#m.busy)` for `stateIn`;
 * - a named inline function: its function name; an anonymous inline function: `inline-N`, where N is the
 *   branch's 1-based position among the state's transitions for that event (`inline` inside a combinator).
 */
export function guardName(guard: unknown, branch?: number): string {
  if (typeof guard === 'function') {
    const fn = guard as { check?: unknown; guards?: unknown[]; stateValue?: unknown };
    if ('stateValue' in fn && fn.stateValue !== undefined) {
      return `stateIn(${typeof fn.stateValue === 'string' ? fn.stateValue : JSON.stringify(fn.stateValue)})`;
    }
    const combinator = combinatorOf(fn.check);
    if (combinator && Array.isArray(fn.guards)) return `${combinator}(${fn.guards.map((g) => guardName(g)).join(', ')})`;
  }
  return plainGuardName(guard, branch);
}

/** Converts one xstate transition definition into a `TransitionRef`, its guard named in full. */
export function toTransitionRef(t: AnyTransitionDefinition): TransitionRef {
  return refOf(t, guardName);
}

/** {@link createTraceRecorder} of the runtime, with guards named in full (the names `machineTransitions` uses). */
export function createTraceRecorder(options: { includeChildren?: boolean } = {}): (ev: InspectionEvent) => TraceEntry[] {
  return createPlainRecorder({ ...options, ref: toTransitionRef });
}

let recorders: { own: (ev: InspectionEvent) => TraceEntry[]; withChildren: (ev: InspectionEvent) => TraceEntry[] } | undefined;

/**
 * Turns one inspection event into trace entries, guards named in full (pass it every inspection event of the actor,
 * not only microsteps, so it sees which event started each step).
 *
 * @example
 * const trace: TraceEntry[] = [];
 * const actor = createActor(machine, { inspect: (ev) => trace.push(...traceEntriesFromMicrostep(ev)) });
 */
export function traceEntriesFromMicrostep(ev: InspectionEvent, options: { includeChildren?: boolean } = {}): TraceEntry[] {
  recorders ??= { own: createTraceRecorder(), withChildren: createTraceRecorder({ includeChildren: true }) };
  return (options.includeChildren ? recorders.withChildren : recorders.own)(ev);
}

/**
 * A recorded trace (a flow record's) with every guard named as the diagrams name it: the runtime marks the branches
 * whose guard is a function with their position, which finds them in `machine`. Entries of another machine version
 * and of other machines stay as they are.
 *
 * @example namedTrace(emailMachine, record.trace) // [..., { from: 'checkingLink', ..., guard: 'not(tokenFound)' }]
 */
export function namedTrace<T extends TransitionRef & { branches?: TransitionRef[]; machine?: string }>(machine: AnyStateMachine, trace: readonly T[]): T[] {
  return trace.map((entry) => {
    // Another machine's steps (the sign-in tail's, in a provider flow's record) are not looked up in this one.
    if (entry.machine !== undefined && entry.machine !== machine.id) return entry;
    const { branch: _position, ...rest } = entry;
    const named = { ...rest, ...named1(machine, entry) } as T;
    if (entry.branches) named.branches = entry.branches.map((b) => named1(machine, b));
    return named;
  });
}

function named1(machine: AnyStateMachine, ref: TransitionRef): TransitionRef {
  if (ref.branch === undefined) return ref;
  const { branch, ...rest } = ref;
  const node = nodeById(machine, ref.from);
  const branches = ref.event === 'always' ? node?.always : node?.transitions.get(ref.event);
  const t = branches?.[branch - 1];
  return t ? { ...rest, guard: guardName(t.guard, branch) } : rest;
}

function nodeById(machine: AnyStateMachine, id: string): AnyStateNode | undefined {
  if (id === ROOT_STATE) return machine.root;
  let node: AnyStateNode | undefined = machine.root;
  for (const key of id.split('.')) node = node?.states[key] as AnyStateNode | undefined;
  return node;
}
