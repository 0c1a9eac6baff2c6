// Walks a machine definition into plain state ids and transition references: the one vocabulary shared by
// the diagrams, the runtime's flow trace and the model-based coverage, so the three can never disagree.
import { and, not, or } from 'xstate';
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition, InspectionEvent } from 'xstate';

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
 * coverage is missing.
 *
 * @example transitionKey({ from: 'idle', event: 'GO', to: 'busy', guard: 'ok' }) // 'idle --GO [ok]--> busy'
 */
export function transitionKey(t: TransitionRef): string {
  return `${t.from} --${t.event}${t.guard === undefined ? '' : ` [${t.guard}]`}--> ${t.to}`;
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
