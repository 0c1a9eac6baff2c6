// Turns a machine into the event sequences a model-based test drives: by default enough paths to take every
// transition the supplied events can reach, with no path a prefix of another.
import type { AnyEventObject, AnyMachineSnapshot, AnyStateMachine, StateValue } from 'xstate';
import { getShortestPaths, getSimplePaths, serializeSnapshot, type StatePath } from 'xstate/graph';

export interface ModelPath {
  /** Readable and unique within one result: `reaches failed.accessDenied: START → CALLBACK → done: authorize`. */
  description: string;
  /** The events to send after starting the actor (the initial `xstate.init` is not included). */
  events: AnyEventObject[];
  /** Where the path ends: the leaf state id(s), `'failed.accessDenied'` (parallel leaves joined with `,`). */
  finalState: string;
}

export interface ModelPathOptions {
  /**
   * The events to try in a snapshot, payloads included. Invoke results must be spelled out as xstate names
   * them, e.g. `{ type: 'xstate.done.actor.authorize', output }` or `{ type: 'xstate.error.actor.authorize',
   * error }`. Returning every event everywhere is fine: events the snapshot does not accept (`snapshot.can`)
   * are dropped. Event types not returned are never generated.
   */
  events: (snapshot: AnyMachineSnapshot) => AnyEventObject[];
  /** The machine's input, when its context needs one. */
  input?: unknown;
  /**
   * `'shortest'` (default): for every transition reachable with the events, the shortest path that takes it,
   * so every transition is covered. `'simple'`: every simple path to every state (can grow fast).
   */
  strategy?: 'shortest' | 'simple';
  /**
   * How snapshots are told apart; default value plus context (xstate's `serializeSnapshot`). Return only the
   * part of the context that guards read, to keep paths few when context holds incidental data.
   */
  stateKey?: (snapshot: AnyMachineSnapshot) => string;
  /** Stops a runaway traversal (a context that never repeats) with an error. Default 10 000 steps. */
  limit?: number;
}

/**
 * The event sequences that drive a machine through its graph, computed with `xstate/graph` without starting
 * any actor (invokes are not run; their done/error events come from `events`).
 *
 * @example
 * for (const path of modelPaths(machine, { events: () => [{ type: 'SUBMIT' }, { type: 'xstate.done.actor.authorize', output: user }] })) {
 *   it(path.description, async () => { ...start the real flow, send path.events, expect path.finalState... });
 * }
 */
export function modelPaths(machine: AnyStateMachine, options: ModelPathOptions): ModelPath[] {
  const accepted = new WeakMap<AnyMachineSnapshot, AnyEventObject[]>();
  const eventsFor = (snapshot: AnyMachineSnapshot): AnyEventObject[] => {
    let events = accepted.get(snapshot);
    if (!events) {
      events = snapshot.status === 'active' ? options.events(snapshot).filter((event) => snapshot.can(event)) : [];
      accepted.set(snapshot, events);
    }
    return events;
  };
  const key = options.stateKey ?? serializeSnapshot;
  const traversal = {
    input: options.input,
    limit: options.limit ?? 10_000,
    // Replaces xstate's default, which would add a payload-less event for every type a state accepts.
    events: eventsFor,
  };
  const statePaths: StatePath<AnyMachineSnapshot, AnyEventObject>[] =
    options.strategy === 'simple'
      ? getSimplePaths(machine, { ...traversal, serializeState: (snapshot) => key(snapshot) })
      : getShortestPaths(machine, {
          ...traversal,
          // A vertex per (state, incoming event, previous state) turns "a shortest path to every state" into
          // "a shortest path through every transition", as xstate's own test model does.
          serializeState: (snapshot, event, previous) =>
            event && previous
              ? `${key(snapshot)} via ${serializeEvent(event)} from ${key(previous)}`
              : key(snapshot),
        });

  const candidates = statePaths.map((path) => ({
    // The generator prepends a synthetic `xstate.init` step; the events to send follow it.
    events: path.steps.slice(1).map((step) => step.event),
    finalState: leafIds(path.state.value).join(','),
  }));
  const keep = withoutPrefixes(candidates.map((c) => c.events.map(serializeEvent)));
  const seen = new Map<string, number>();
  return candidates
    .filter((_, index) => keep.has(index))
    .map((c) => {
      const base = `reaches ${c.finalState}: ${c.events.map((e) => shortType(e.type)).join(' → ') || '(start)'}`;
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      return { ...c, description: n === 1 ? base : `${base} (#${n})` };
    });
}

/** The indexes of the sequences that are neither a prefix of another nor a repeat of an earlier one. */
function withoutPrefixes(sequences: string[][]): Set<number> {
  const keep = new Set<number>();
  sequences.forEach((seq, i) => {
    const covered = sequences.some(
      (other, j) =>
        j !== i &&
        other.length >= seq.length &&
        (other.length > seq.length || j < i) &&
        seq.every((event, k) => other[k] === event),
    );
    if (!covered) keep.add(i);
  });
  return keep;
}

function leafIds(value: StateValue): string[] {
  if (typeof value === 'string') return [value];
  return Object.entries(value).flatMap(([key, child]) =>
    child === undefined || (typeof child === 'object' && Object.keys(child).length === 0)
      ? [key]
      : leafIds(child).map((leaf) => `${key}.${leaf}`),
  );
}

function shortType(type: string): string {
  const match = /^xstate\.(done|error)\.actor\.(.+)$/.exec(type);
  return match ? `${match[1]}: ${match[2]}` : type;
}

// Errors stringify as `{}`; two error events must still differ by their message.
function serializeEvent(event: AnyEventObject): string {
  return JSON.stringify(event, (_key, value: unknown) =>
    value instanceof Error ? { name: value.name, message: value.message } : value,
  );
}
