// One observer per run: fed every inspection event of the run's actor, it keeps the run's trace and tells its span
// which states the machine entered and which actors it invoked. It reads XState's public inspection events (the
// event delivered, each microstep's snapshot, the actions executed) and getNextTransitions, and never calls a guard:
// a branch is known from what XState did, and where several fit, the trace says so (see branchesTaken).
import type { AnyMachineSnapshot, AnyStateMachine, AnyTransitionDefinition, InspectionEvent } from 'xstate';
import { statePathOf } from '../state-path.js';
import { branchesTaken, initialValue } from './branches.js';
import { refOf, type TraceEntry, type TransitionRef } from './refs.js';
import type { MachineSpan } from './spans.js';

/** What one run's observer feeds. */
export interface RunObservation {
  /** Where the transitions taken go, when someone reads them. */
  trace?: TraceEntry[];
  /** The run's span, when one records: the states entered as events, invoked actors as child spans. */
  span?: MachineSpan;
  /** Trace the steps of child machines too (by default only the root actor's). */
  includeChildren?: boolean;
  /** How a branch is written down (devtools names function guards in full); the definition's data by default. */
  ref?: (t: AnyTransitionDefinition) => TransitionRef;
}

/** What the observer remembers of one actor between inspection events. */
interface ActorSteps {
  /** The snapshot the next microstep starts from, once known. */
  before?: AnyMachineSnapshot;
  /** Events delivered to the actor whose first microstep has not been seen yet, oldest first. */
  pending: unknown[];
  /** Whether an action ran since the last microstep (XState reports executed actions before the microstep). */
  acted: boolean;
}

/**
 * The inspect callback of one run, or undefined when nothing reads it (xstate then builds no inspection events).
 *
 * @example
 * const trace: TraceEntry[] = [];
 * const actor = createActor(machine, { input, inspect: observeRun({ trace, span }) });
 */
export function observeRun(observation: RunObservation): ((ev: InspectionEvent) => void) | undefined {
  const { trace, span } = observation;
  if (!trace && !span) return undefined;
  const steps = trace ? stepRecorder(observation) : undefined;
  let lastState: string | undefined;
  return (ev) => {
    // Observing is for people reading traces and spans: what it cannot read or hand on is left out, the run goes on.
    try {
      if (steps) for (const entry of steps(ev)) trace!.push(entry);
    } catch {
      // The step is missing from the trace.
    }
    try {
      if (span) lastState = spanEvent(span, ev, lastState);
    } catch {
      // The event is missing from the span.
    }
  };
}

/** Hands one inspection event to the span: a state entered by the root (once per state), or a child actor's event. */
function spanEvent(span: MachineSpan, ev: InspectionEvent, lastState: string | undefined): string | undefined {
  if (ev.actorRef.sessionId !== ev.rootId) {
    if (ev.type === '@xstate.actor' || ev.type === '@xstate.snapshot') span.actor(ev);
    return lastState;
  }
  if (ev.type !== '@xstate.microstep' && ev.type !== '@xstate.snapshot') return lastState;
  const value = (ev.snapshot as Partial<AnyMachineSnapshot>).value;
  if (value === undefined) return lastState;
  const state = statePathOf(value);
  if (state !== lastState) span.entered(state, ev.event.type);
  return state;
}

/**
 * Turns inspection events into trace entries: none for most, one per branch taken for a microstep. The state before
 * a step is the previous microstep's snapshot, or the actor's last reported snapshot, or (the initial eventless steps
 * of a fresh actor) the machine's initial state. Entering the initial state is not a step.
 */
function stepRecorder(observation: RunObservation): (ev: InspectionEvent) => TraceEntry[] {
  const ref = observation.ref ?? ((t: AnyTransitionDefinition) => refOf(t));
  const actors = new WeakMap<object, ActorSteps>();
  const stepsOf = (actor: object): ActorSteps => {
    let found = actors.get(actor);
    if (!found) actors.set(actor, (found = { pending: [], acted: false }));
    return found;
  };
  return (ev) => {
    if (ev.type === '@xstate.actor' || ev.type === '@xstate.transition') return [];
    if (!observation.includeChildren && ev.actorRef.sessionId !== ev.rootId) return [];
    const actor = stepsOf(ev.actorRef);
    if (ev.type === '@xstate.action') {
      actor.acted = true;
      return [];
    }
    if (ev.type === '@xstate.snapshot') {
      // A macrostep ends with the actor's snapshot, after its deferred actions (the initial state's) have run: the
      // next step starts from it.
      const snapshot = ev.snapshot as Partial<AnyMachineSnapshot>;
      if (snapshot.value !== undefined && snapshot.machine) actor.before = snapshot as AnyMachineSnapshot;
      actor.acted = false;
      return [];
    }
    if (ev.type === '@xstate.event') {
      // Delivered, not yet processed: the actor's snapshot is still the one before this event.
      const now = ev.actorRef.getSnapshot() as Partial<AnyMachineSnapshot> | undefined;
      if (!actor.before && now && now.value !== undefined && now.machine) actor.before = now as AnyMachineSnapshot;
      // The start of an actor's run: its initial microsteps (eventless) were already reported.
      if (ev.event.type !== 'xstate.init') actor.pending.push(ev.event);
      return [];
    }
    const after = ev.snapshot as AnyMachineSnapshot;
    // The first microstep of an event's macrostep carries that event; the eventless ones after it carry it too,
    // but it has left `pending` by then (events that took no transition are dropped as a later one arrives).
    const index = actor.pending.indexOf(ev.event);
    if (index >= 0) actor.pending.splice(0, index + 1);
    const machine = after.machine as AnyStateMachine;
    const before = actor.before ?? (machine.resolveState({ value: initialValue(machine.root), context: after.context }) as AnyMachineSnapshot);
    // A step that changed nothing and ran nothing took no branch anyone could see (an event no guard let through).
    const moved = actor.acted || after !== actor.before;
    actor.before = after;
    actor.acted = false;
    if (!moved || after.value === undefined) return [];
    const at = Date.now();
    return branchesTaken(before, ev.event.type, index < 0, after).map((fits) => entryOf(fits.map(ref), at));
  };
}

/** One trace entry for the branches that fit one step: the branch itself, or all of them marked as such. */
function entryOf(refs: TransitionRef[], at: number): TraceEntry {
  if (refs.length === 1) return { ...refs[0], at };
  const { from, event, to } = refs[0];
  return { from, event, to, at, branches: refs };
}

/**
 * A trace recorder on its own (no span): fed every inspection event of an actor (`createActor(m, { inspect })`), it
 * returns one trace entry per branch taken in each `@xstate.microstep`, and none for other events. By default only
 * the root actor's steps count, so a child machine's transitions never pollute the parent's trace.
 *
 * @example
 * const trace: TraceEntry[] = []; const record = createTraceRecorder();
 * const actor = createActor(machine, { inspect: (ev) => trace.push(...record(ev)) });
 */
export function createTraceRecorder(options: Omit<RunObservation, 'trace' | 'span'> = {}): (ev: InspectionEvent) => TraceEntry[] {
  return stepRecorder(options);
}

// Per-actor recorders for traceEntriesFromMicrostep: weak, so an actor that is gone takes its entry with it.
let defaultRecorders: { own: (ev: InspectionEvent) => TraceEntry[]; withChildren: (ev: InspectionEvent) => TraceEntry[] } | undefined;

/**
 * Turns one inspection event into trace entries (see {@link createTraceRecorder}; pass it every inspection event of
 * the actor, not only microsteps, so it sees which event started each step).
 *
 * @example
 * const trace: TraceEntry[] = [];
 * const actor = createActor(machine, { inspect: (ev) => trace.push(...traceEntriesFromMicrostep(ev)) });
 */
export function traceEntriesFromMicrostep(ev: InspectionEvent, options: { includeChildren?: boolean } = {}): TraceEntry[] {
  defaultRecorders ??= { own: createTraceRecorder(), withChildren: createTraceRecorder({ includeChildren: true }) };
  return (options.includeChildren ? defaultRecorders.withChildren : defaultRecorders.own)(ev);
}
