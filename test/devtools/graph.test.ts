// The definition walker: state ids, transition refs and guard names, and that a live trace uses the very same
// names as the definition.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { and, createActor, createMachine, not, or, setup, stateIn, type AnyStateMachine } from 'xstate';
import {
  awaitingStates,
  failureStates,
  machineStates,
  machineTransitions,
  ROOT_STATE,
  statesVisited,
  traceEntriesFromMicrostep,
  transitionKey,
  type TraceEntry,
} from '../../src/devtools/graph.js';
import { callbackFlow } from './fixtures/callback-flow.js';

function record(machine: AnyStateMachine, events: { type: string }[], options?: { includeChildren?: boolean }): TraceEntry[] {
  const trace: TraceEntry[] = [];
  const actor = createActor(machine, { inspect: (ev) => trace.push(...traceEntriesFromMicrostep(ev, options)) });
  actor.start();
  for (const event of events) actor.send(event);
  actor.stop();
  return trace;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('machineStates and friends', () => {
  it('lists every state below the root by dot path, parents first', () => {
    expect(machineStates(callbackFlow)).toEqual([
      'idle',
      'awaitingCallback',
      'authorizing',
      'done',
      'failed',
      'failed.configuration',
      'failed.accessDenied',
      'failed.callbackError',
      'failed.cancelled',
    ]);
    expect(awaitingStates(callbackFlow)).toEqual(['awaitingCallback']);
    expect(failureStates(callbackFlow)).toEqual([
      'failed.configuration',
      'failed.accessDenied',
      'failed.callbackError',
      'failed.cancelled',
    ]);
  });
});

describe('machineTransitions', () => {
  it('gives one ref per branch, with invoke events as xstate names them', () => {
    expect(machineTransitions(callbackFlow)).toEqual([
      { from: 'idle', event: 'START', to: 'awaitingCallback', guard: 'knownProvider' },
      { from: 'idle', event: 'START', to: 'failed.configuration' },
      { from: 'awaitingCallback', event: 'CALLBACK', to: 'authorizing', guard: 'not(hasError)' },
      { from: 'awaitingCallback', event: 'CALLBACK', to: 'failed.accessDenied' },
      { from: 'awaitingCallback', event: 'PING', to: 'awaitingCallback', guard: 'inline-1' },
      { from: 'awaitingCallback', event: 'CANCEL', to: 'failed.cancelled' },
      { from: 'authorizing', event: 'xstate.done.actor.authorize', to: 'done', guard: 'userFound' },
      { from: 'authorizing', event: 'xstate.done.actor.authorize', to: 'failed.accessDenied' },
      { from: 'authorizing', event: 'xstate.error.actor.authorize', to: 'failed.callbackError' },
    ]);
  });

  it('covers always, after, a state onDone and transitions on the machine itself', () => {
    const machine = createMachine({
      id: 'm',
      initial: 'a',
      on: { RESET: '.a' },
      states: {
        a: { always: [{ guard: () => false, target: 'b' }, { target: 'c' }] },
        b: { after: { 500: 'c' } },
        c: {
          initial: 'x',
          states: { x: { on: { NEXT: 'y' } }, y: { type: 'final' } },
          onDone: 'd',
        },
        d: { type: 'final' },
      },
    });
    expect(machineTransitions(machine).map(transitionKey)).toEqual([
      `${ROOT_STATE} --RESET--> a`,
      'a --always [inline-1]--> b',
      'a --always--> c',
      'b --xstate.after.500.m.b--> c',
      'c --xstate.done.state.m.c--> d',
      'c.x --NEXT--> c.y',
    ]);
  });

  it('names combinators, parameterised and inline guards readably and distinctly', () => {
    const machine = setup({
      guards: {
        a: () => true,
        b: () => true,
        role: (_: unknown, _params: { role: string }) => true,
        range: (_: unknown, _params: { min: number; max: number }) => true,
      },
    }).createMachine({
      id: 'g',
      initial: 'x',
      states: {
        x: {
          on: {
            E: [
              { guard: and(['a', not('b'), or(['a', () => true])]), target: 'y' },
              { guard: stateIn('#g.y'), target: 'y' },
              { guard: { type: 'role', params: { role: 'admin' } }, target: 'y' },
              { guard: { type: 'role', params: () => ({ role: 'user' }) }, target: 'y' },
              { guard: { type: 'range', params: { min: 1, max: 3 } }, target: 'y' },
              { guard: function isFresh() { return true; }, target: 'y' },
              { guard: () => true, target: 'y' },
              { guard: () => false, target: 'y' },
            ],
          },
        },
        y: {},
      },
    });
    expect(machineTransitions(machine).map((t) => t.guard)).toEqual([
      'and(a, not(b), or(a, inline))',
      'stateIn(#g.y)',
      'role(admin)',
      'role(dynamic)',
      'range(min=1, max=3)',
      'isFresh',
      'inline-7',
      'inline-8',
    ]);
  });
});

describe('traceEntriesFromMicrostep', () => {
  it('uses the same refs as the definition, with the time of the step', () => {
    vi.useFakeTimers({ now: new Date('2026-11-22T10:00:00Z') });
    const trace = record(callbackFlow, [{ type: 'START', provider: 'github' }, { type: 'PING' }, { type: 'CANCEL' }] as never);
    expect(trace).toEqual([
      { from: 'idle', event: 'START', to: 'awaitingCallback', guard: 'knownProvider', at: Date.parse('2026-11-22T10:00:00Z') },
      { from: 'awaitingCallback', event: 'PING', to: 'awaitingCallback', guard: 'inline-1', at: expect.any(Number) },
      { from: 'awaitingCallback', event: 'CANCEL', to: 'failed.cancelled', at: expect.any(Number) },
    ]);
    const defined = new Set(machineTransitions(callbackFlow).map(transitionKey));
    for (const entry of trace) expect(defined.has(transitionKey(entry)), transitionKey(entry)).toBe(true);
  });

  it('records eventless transitions as always, including those taken on start', () => {
    const machine = createMachine({
      id: 'e',
      initial: 'a',
      states: { a: { always: { target: 'b' } }, b: { on: { GO: 'c' } }, c: { always: 'd' }, d: { type: 'final' } },
    });
    expect(record(machine, [{ type: 'GO' }]).map(transitionKey)).toEqual([
      'a --always--> b',
      'b --GO--> c',
      'c --always--> d',
    ]);
  });

  it("leaves a child machine's steps out unless asked", () => {
    const child = createMachine({ id: 'child', initial: 'p', states: { p: { on: { POKE: 'q' } }, q: { type: 'final' } } });
    const parent = setup({ actors: { child } }).createMachine({
      id: 'parent',
      initial: 'running',
      states: {
        running: {
          invoke: { id: 'child', src: 'child' },
          on: { POKE: { actions: ({ self }) => self.getSnapshot().children.child?.send({ type: 'POKE' }) } },
        },
      },
    });
    const own = record(parent, [{ type: 'POKE' }]).map(transitionKey);
    expect(own).toEqual(['running --POKE--> running']);
    const all = record(parent, [{ type: 'POKE' }], { includeChildren: true }).map(transitionKey);
    // The child's step runs inside the parent's action, so it is inspected first.
    expect(all.sort()).toEqual(['p --POKE--> q', 'running --POKE--> running']);
  });
});

describe('statesVisited', () => {
  it('includes the initial state, ancestors and the initial child of a compound target', () => {
    expect([...statesVisited(callbackFlow, [])]).toEqual(['idle']);
    const visited = statesVisited(callbackFlow, [{ from: 'authorizing', event: 'x', to: 'failed' }]);
    expect([...visited].sort()).toEqual(['authorizing', 'failed', 'failed.callbackError', 'idle']);
  });
});
