// The transitions a run takes, in plain strings: the vocabulary of the trace, the logs, the inspector, the diagrams
// and the model-based coverage. Built from the machine's definition as written (state paths, event descriptors, a
// guard's name and params); a guard given as a function is named in devtools, which the `branch` position allows.
import type { AnyStateNode, AnyTransitionDefinition } from 'xstate';

/**
 * One transition of a machine, in plain strings.
 *
 * - `from` / `to`: state ids, the dot path below the root (`'authorizing'`, `'failed.accessDenied'`); a
 *   targetless transition has `to === from`; several targets are joined with `,`; the root itself is `ROOT_STATE`.
 * - `event`: the event type as xstate names it (`'CALLBACK'`, `'xstate.done.actor.authorize'`,
 *   `'xstate.after.1000.oauth.awaiting'`), `'always'` for eventless transitions.
 * - `guard`: present when the branch is guarded: a named guard's name, with its params (`isRole(admin)`,
 *   `inRange(min=1, max=3)`, `isRole(dynamic)`); a guard written as a function by its function name, or
 *   `inline-N` (N: the branch's position), and `branch` says which one (devtools names it fully: `not(hasError)`).
 */
export interface TransitionRef {
  from: string;
  event: string;
  to: string;
  guard?: string;
  /** The branch's 1-based position among its state's branches for the event; set where `guard` is a function's. */
  branch?: number;
}

/** A transition the flow actually took, with the time it was taken (`Date.now()`). */
export interface TraceEntry extends TransitionRef {
  at: number;
  /** The machine it belongs to, when not the flow's own (the standard sign-in tail: `signin`). */
  machine?: string;
  /**
   * Present when what XState reported fits several branches (same event, targets all active after the step, none
   * ruled out by an unguarded branch before it): each of them, in XState's order. The entry's own `from`, `event`
   * and `to` are the first one's, and it has no `guard`: which guard passed was not observed, and is not guessed.
   */
  branches?: TransitionRef[];
}

/** The id used for the machine's root node (transitions declared on the machine itself). */
export const ROOT_STATE = '(machine)';

/** The tag that marks a state where the flow pauses and is persisted, waiting for the browser. */
export const AWAITING_TAG = 'awaiting';

/** The key of the compound state that holds every failure state. */
export const FAILED_KEY = 'failed';

/**
 * The id of a state node: its dot path below the root.
 *
 * @example stateId(machine.root.states.failed.states.accessDenied) // 'failed.accessDenied'
 */
export function stateId(node: AnyStateNode): string {
  return node.path.length === 0 ? ROOT_STATE : node.path.join('.');
}

/** The 1-based position of a transition among its source's branches for the same event. */
export function branchNumber(t: AnyTransitionDefinition): number | undefined {
  const branches = t.eventType === '' ? t.source.always : t.source.transitions.get(t.eventType);
  const index = branches?.indexOf(t) ?? -1;
  return index < 0 ? undefined : index + 1;
}

/**
 * A transition definition as a `TransitionRef`. Without `name`, its guard is named from what the definition holds as
 * data, and a guard given as a function (named by the function's own name, else `inline-N`) carries its `branch`;
 * devtools passes its own `name`, which names every guard in full.
 *
 * @example refOf(machine.root.states.idle.transitions.get('GO')![0]) // { from: 'idle', event: 'GO', to: 'done', guard: 'isKind(a)' }
 */
export function refOf(t: AnyTransitionDefinition, name?: (guard: unknown, branch?: number) => string): TransitionRef {
  const from = stateId(t.source);
  const to = t.target && t.target.length > 0 ? t.target.map((n) => stateId(n as AnyStateNode)).join(',') : from;
  const ref: TransitionRef = { from, event: t.eventType === '' ? 'always' : String(t.eventType), to };
  if (t.guard === undefined) return ref;
  const branch = branchNumber(t);
  ref.guard = (name ?? plainGuardName)(t.guard, branch);
  if (!name && typeof t.guard === 'function' && branch !== undefined) ref.branch = branch;
  return ref;
}

// Property-assigned arrow functions are named after the property ('guard'); such a name says nothing.
const meaninglessNames = new Set(['', 'guard', 'anonymous']);

/**
 * A guard's name from the definition's data: a named guard's name with its params (`isRole(admin)`); a function by
 * its own name, or `inline-N` for an anonymous one (N: the branch's position).
 */
export function plainGuardName(guard: unknown, branch?: number): string {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const { name } = guard as { name: string };
    if (!meaninglessNames.has(name)) return name;
    return branch === undefined ? 'inline' : `inline-${branch}`;
  }
  if (guard && typeof guard === 'object' && 'type' in guard) {
    const { type, params } = guard as { type: string; params?: unknown };
    if (params === undefined) return type;
    return `${type}(${typeof params === 'function' ? 'dynamic' : formatParams(params)})`;
  }
  return 'inline';
}

// One param reads best as its value alone (`errorIs(InvalidCheck)`); several keep their names.
function formatParams(params: unknown): string {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return JSON.stringify(params);
  const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  const entries = Object.entries(params as Record<string, unknown>);
  if (entries.length === 1) return show(entries[0][1]);
  return entries.map(([key, value]) => `${key}=${show(value)}`).join(', ');
}

/**
 * How a trace entry's guard reads: its guard; for a step that fitted several branches, each one's (`no guard` for an
 * unguarded one) joined with ` | `; undefined when the branch taken has no guard.
 *
 * @example guardLabel({ from: 'a', event: 'GO', to: 'b', at: 0, branches: [{ from: 'a', event: 'GO', to: 'b', guard: 'ok' }, { from: 'a', event: 'GO', to: 'b' }] }) // 'ok | no guard'
 */
export function guardLabel(entry: TraceEntry): string | undefined {
  if (entry.branches) return entry.branches.map((b) => b.guard ?? 'no guard').join(' | ');
  return entry.guard;
}
