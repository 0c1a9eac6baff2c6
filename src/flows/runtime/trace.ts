// The transitions a run takes, in plain strings: recorded by the runtime for the logs and the development inspector,
// and the vocabulary the diagrams and the model-based coverage share (devtools/graph.ts builds on it). Recorded from
// XState's public inspection events and the machine's definition only.
import { and, not, or } from 'xstate';
import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode, AnyTransitionDefinition, InspectionEvent, StateValue } from 'xstate';
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

/** What a recorder remembers of one actor between inspection events. */
interface ActorTrace {
  /** The actor's state before the next microstep (value and context), once known. */
  before?: { value: StateValue; context: unknown };
  /** Events delivered to the actor whose first microstep has not been seen yet, oldest first. */
  pending: unknown[];
}

/**
 * A trace recorder for one run: fed every inspection event of an actor (`createActor(m, { inspect })`), it returns
 * one trace entry per transition taken in each `@xstate.microstep`, and none for other events. It reads only
 * XState's public inspection API: the microstep's event and resulting snapshot, the `@xstate.event` that started
 * it, and the machine's definition (state nodes' `transitions` / `always`). The transition taken is the one the
 * definition offers for the event in the state before, whose target is active after; where several fit, their
 * guards are evaluated on the context before (see takenTransitions). By default only the root actor's microsteps
 * count, so a child machine's transitions never pollute the parent's trace. Entering the initial state is not a
 * microstep: a trace starts with the first transition taken.
 *
 * @example
 * const trace: TraceEntry[] = []; const record = createTraceRecorder();
 * const actor = createActor(machine, { inspect: (ev) => trace.push(...record(ev)) });
 */
export function createTraceRecorder(options: { includeChildren?: boolean } = {}): (ev: InspectionEvent) => TraceEntry[] {
  const actors = new WeakMap<object, ActorTrace>();
  const traceOf = (actor: object): ActorTrace => {
    let found = actors.get(actor);
    if (!found) actors.set(actor, (found = { pending: [] }));
    return found;
  };
  return (ev) => {
    if (ev.type !== '@xstate.event' && ev.type !== '@xstate.microstep') return [];
    if (!options.includeChildren && ev.actorRef.sessionId !== ev.rootId) return [];
    const actor = traceOf(ev.actorRef);
    if (ev.type === '@xstate.event') {
      // Delivered, not yet processed: the actor's snapshot is still the one before this event.
      if (!actor.before) {
        const now = ev.actorRef.getSnapshot() as Partial<AnyMachineSnapshot> | undefined;
        if (now && now.value !== undefined) actor.before = { value: now.value, context: now.context };
      }
      // The start of an actor's run: its initial microsteps (eventless) were already reported.
      if (ev.event.type !== 'xstate.init') actor.pending.push(ev.event);
      return [];
    }
    const snapshot = ev.snapshot as AnyMachineSnapshot;
    // The first microstep of an event's macrostep carries that event; the eventless ones after it carry it too,
    // but it has left `pending` by then (events that took no transition are dropped as a later one arrives).
    const index = actor.pending.indexOf(ev.event);
    if (index >= 0) actor.pending.splice(0, index + 1);
    const before = actor.before;
    const taken = takenTransitions(snapshot.machine, before, ev.event, index < 0, snapshot.value);
    actor.before = { value: snapshot.value, context: snapshot.context };
    // A microstep the definition has no branch for (an actor's stop, a child's done event nobody handles) took
    // no transition: nothing to record.
    const at = Date.now();
    return taken.map((t) => ({ ...toTransitionRef(t), at }));
  };
}

// Per-actor recorders for traceEntriesFromMicrostep: weak, so an actor that is gone takes its entry with it.
const defaultRecorders = { own: createTraceRecorder(), withChildren: createTraceRecorder({ includeChildren: true }) };

/**
 * Turns one inspection event into trace entries (see {@link createTraceRecorder}; pass it every inspection event of
 * the actor, not only microsteps, so it sees which event started each step).
 *
 * @example
 * const trace: TraceEntry[] = [];
 * const actor = createActor(machine, { inspect: (ev) => trace.push(...traceEntriesFromMicrostep(ev)) });
 */
export function traceEntriesFromMicrostep(ev: InspectionEvent, options: { includeChildren?: boolean } = {}): TraceEntry[] {
  return (options.includeChildren ? defaultRecorders.withChildren : defaultRecorders.own)(ev);
}

function leafPaths(value: StateValue, prefix: string[] = []): string[][] {
  if (typeof value === 'string') return [[...prefix, value]];
  const entries = Object.entries(value);
  if (entries.length === 0) return prefix.length ? [prefix] : [];
  return entries.flatMap(([key, sub]) => (sub === undefined ? [[...prefix, key]] : leafPaths(sub as StateValue, [...prefix, key])));
}

/** The node at a path below the root, through the public `states`. */
function nodeAt(machine: AnyStateMachine, path: string[]): AnyStateNode | undefined {
  let node: AnyStateNode | undefined = machine.root;
  for (const key of path) node = node?.states[key] as AnyStateNode | undefined;
  return node;
}

/** The atomic nodes a node starts in, by its public `initial` transition (parallel: every region). */
function initialLeaves(node: AnyStateNode): AnyStateNode[] {
  if (node.type === 'parallel') return Object.values(node.states).flatMap((n) => initialLeaves(n as AnyStateNode));
  if (node.type !== 'compound') return [node];
  return node.initial.target.flatMap((n) => initialLeaves(n as AnyStateNode));
}

/** The transitions of `node` that an event of this type selects, exact descriptors before wildcards. */
function candidatesOn(node: AnyStateNode, type: string): AnyTransitionDefinition[] {
  const exact = node.transitions.get(type) ?? [];
  const partial: AnyTransitionDefinition[] = [];
  for (const [descriptor, list] of node.transitions) {
    if (descriptor === type) continue;
    if (descriptor === '*' || (descriptor.endsWith('.*') && type.startsWith(descriptor.slice(0, -1)))) partial.push(...list);
  }
  return [...exact, ...partial];
}

/**
 * Whether a guard holds for `context` and `event`, by the machine's own implementation (a named guard, with its
 * params) or the inline function; undefined when it cannot be told here (combinators, `stateIn`, a throwing
 * guard), and the branch is then taken on its target alone.
 */
function guardHolds(machine: AnyStateMachine, guard: unknown, context: unknown, event: unknown): boolean | undefined {
  const args = { context, event };
  const named = (machine.implementations.guards ?? {}) as Record<string, unknown>;
  try {
    if (typeof guard === 'string') return typeof named[guard] === 'function' ? Boolean((named[guard] as (a: unknown, p: unknown) => unknown)(args, undefined)) : undefined;
    if (guard && typeof guard === 'object' && 'type' in guard) {
      const { type, params } = guard as { type: string; params?: unknown };
      const resolved = typeof params === 'function' ? (params as (a: unknown) => unknown)(args) : params;
      return typeof named[type] === 'function' ? Boolean((named[type] as (a: unknown, p: unknown) => unknown)(args, resolved)) : undefined;
    }
    if (typeof guard === 'function') return Boolean((guard as (a: unknown, p: unknown) => unknown)(args, undefined));
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * The transitions one microstep took, read from the definition: for each active leaf before the step (innermost
 * node first, then its ancestors; the initial leaves before the first step of a fresh actor), the first branch
 * the event (or, eventless, `always`) offers whose targets are all active after it (a targetless branch: the
 * leaf is still active) and whose guard does not evaluate false on the context before the step.
 */
function takenTransitions(machine: AnyStateMachine, before: ActorTrace['before'], event: { type: string }, eventless: boolean, after: StateValue): AnyTransitionDefinition[] {
  const active = new Set(leafPaths(after).flatMap((path) => path.map((_, i) => path.slice(0, i + 1).join('.'))));
  const isActive = (node: AnyStateNode) => node.path.length === 0 || active.has(node.path.join('.'));
  const leaves = before ? leafPaths(before.value).map((p) => nodeAt(machine, p)).filter((n): n is AnyStateNode => n !== undefined) : initialLeaves(machine.root);
  const taken: AnyTransitionDefinition[] = [];
  for (const leaf of leaves) {
    let chosen: AnyTransitionDefinition | undefined;
    for (let node: AnyStateNode | undefined = leaf; node && !chosen; node = node.parent) {
      const branches = eventless ? (node.always ?? []) : candidatesOn(node, event.type);
      chosen = branches.find((t) => {
        const fits = t.target && t.target.length > 0 ? t.target.every((n) => isActive(n as AnyStateNode)) : isActive(leaf);
        return fits && (t.guard === undefined || before === undefined || guardHolds(machine, t.guard, before.context, event) !== false);
      });
    }
    if (chosen && !taken.includes(chosen)) taken.push(chosen);
  }
  return taken;
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
