// The transitions a run takes, in plain strings: recorded by the runtime for the logs and the development inspector,
// and the vocabulary the diagrams and the model-based coverage share (devtools/graph.ts builds on it).
import { and, not, or } from 'xstate';
import type { AnyStateNode, AnyTransitionDefinition, InspectionEvent } from 'xstate';
/**
 * One transition of a machine, in plain strings.
 *
 * - `from` / `to`: state ids, the dot path below the root (`'authorizing'`, `'failed.accessDenied'`); a
 *   targetless transition has `to === from`; several targets are joined with `,`; the root itself is `ROOT_STATE`.
 * - `event`: the event type as xstate names it (`'CALLBACK'`, `'xstate.done.actor.authorize'`,
 *   `'xstate.after.1000.oauth.awaiting'`), `'always'` for eventless transitions.
 * - `guard`: present when the branch is guarded; see `guardName`.
 */
export interface TransitionRef {
  from: string;
  event: string;
  to: string;
  guard?: string;
}

/** A transition the flow actually took, with the time it was taken (`Date.now()`). */
export interface TraceEntry extends TransitionRef {
  at: number;
  /** The machine it belongs to, when not the flow's own (the standard sign-in tail: `signin`). */
  machine?: string;
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

/**
 * Converts one xstate transition definition (from the machine, or from an inspection event) into a
 * `TransitionRef`.
 */
export function toTransitionRef(t: AnyTransitionDefinition): TransitionRef {
  const from = stateId(t.source);
  const to = t.target && t.target.length > 0 ? t.target.map(stateId).join(',') : from;
  const ref: TransitionRef = { from, event: t.eventType === '' ? 'always' : String(t.eventType), to };
  const guard = t.guard === undefined ? undefined : guardName(t.guard, branchNumber(t));
  if (guard !== undefined) ref.guard = guard;
  return ref;
}

/**
 * Turns one inspection event into trace entries: one per transition taken in an `@xstate.microstep`, none for
 * any other inspection event. By default only the inspected root actor's microsteps count, so a child
 * machine's transitions never pollute the parent's trace. Note that entering the initial state is not a
 * microstep: a trace starts with the first transition taken.
 *
 * @example
 * const trace: TraceEntry[] = [];
 * const actor = createActor(machine, { inspect: (ev) => trace.push(...traceEntriesFromMicrostep(ev)) });
 */
export function traceEntriesFromMicrostep(
  ev: InspectionEvent,
  options: { includeChildren?: boolean } = {},
): TraceEntry[] {
  if (ev.type !== '@xstate.microstep') return [];
  if (!options.includeChildren && ev.actorRef.sessionId !== ev.rootId) return [];
  const at = Date.now();
  return ev._transitions.map((t) => ({ ...toTransitionRef(t), at }));
}

// The combinators' `check` functions identify not()/and()/or() even when a bundler renames the functions.
const combinatorChecks = new Map<unknown, string>([
  [(not('x') as unknown as { check: unknown }).check, 'not'],
  [(and(['x']) as unknown as { check: unknown }).check, 'and'],
  [(or(['x']) as unknown as { check: unknown }).check, 'or'],
]);

// Property-assigned arrow functions are named after the property ('guard'); such a name says nothing.
const meaninglessNames = new Set(['', 'guard', 'anonymous']);

/**
 * A stable, readable name for a guard:
 * - a named guard: its name (`'isAllowed'`); with static params `isRole(admin)` (one param) or
 *   `inRange(min=1, max=3)`, with dynamic ones `isRole(dynamic)`;
 * - `not(a)`, `and(a, b)`, `or(a, b)` for the combinators, `stateIn(#m.busy)` for `stateIn`;
 * - a named inline function: its function name; an anonymous inline function: `inline-N`, where N is the
 *   branch's 1-based position among the state's transitions for that event (`inline` inside a combinator).
 */
export function guardName(guard: unknown, branch?: number): string {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const fn = guard as { name: string; check?: unknown; guards?: unknown[]; stateValue?: unknown };
    if ('stateValue' in fn && fn.stateValue !== undefined) {
      return `stateIn(${typeof fn.stateValue === 'string' ? fn.stateValue : JSON.stringify(fn.stateValue)})`;
    }
    const combinator = combinatorChecks.get(fn.check);
    if (combinator && Array.isArray(fn.guards)) {
      return `${combinator}(${fn.guards.map((g) => guardName(g)).join(', ')})`;
    }
    if (!meaninglessNames.has(fn.name)) return fn.name;
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

/** The 1-based position of a transition among its source's branches for the same event. */
function branchNumber(t: AnyTransitionDefinition): number | undefined {
  const branches = t.eventType === '' ? t.source.always : t.source.transitions.get(t.eventType);
  const index = branches?.indexOf(t) ?? -1;
  return index < 0 ? undefined : index + 1;
}
