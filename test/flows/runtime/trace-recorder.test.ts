// The trace recorder reads XState's public inspection API only (the microstep's event and resulting snapshot, the
// event that started it, getNextTransitions) and takes the branch and its guard from the machine's definition, never
// asking a guard again. These pin the cases where the target alone does not say which branch ran (every branch that
// fits is recorded as such), and that nothing is inspected when nobody reads a trace.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assign, createActor, createMachine, setup, type AnyStateMachine } from 'xstate';
import { machineTransitions, transitionKey } from '../../../src/devtools/graph.js';
import { runFlow } from '../../support/run-flow.js';
import { createTraceRecorder, type TraceEntry } from '../../../src/flows/runtime/trace.js';
import { depsFor, fixtureProvider, pausingFlow } from './fixtures/runtime-flows.js';

afterEach(() => {
  vi.useRealTimers();
});

/** Runs `machine` (from `snapshot` when given), sends `events`, and returns the recorded refs as keys. */
function recorded(machine: AnyStateMachine, events: { type: string }[], options: { snapshot?: unknown; input?: unknown } = {}): string[] {
  const trace: TraceEntry[] = [];
  const record = createTraceRecorder();
  const actor = createActor(machine, { input: options.input, snapshot: options.snapshot as never, inspect: (ev) => trace.push(...record(ev)) });
  actor.start();
  for (const event of events) actor.send(event);
  actor.stop();
  const defined = new Set(machineTransitions(machine).map(transitionKey));
  for (const ref of trace.flatMap((entry) => entry.branches ?? [entry])) expect(defined.has(transitionKey(ref)), `${transitionKey(ref)} is a defined transition`).toBe(true);
  return trace.map(transitionKey);
}

// Three branches to one target, told apart only by their guards (and one by its params).
const sameTarget = setup({
  types: { context: {} as { kind: string; level: number }, input: {} as { kind: string; level: number } },
  guards: {
    isKind: ({ context }, params: { kind: string }) => context.kind === params.kind,
    isHigh: ({ context }) => context.level > 5,
  },
}).createMachine({
  id: 'same',
  initial: 'idle',
  context: ({ input }) => input,
  states: {
    idle: {
      on: {
        GO: [
          { guard: { type: 'isKind', params: { kind: 'a' } }, target: 'done', actions: assign({ level: 1 }) },
          { guard: { type: 'isKind', params: { kind: 'b' } }, target: 'done', actions: assign({ level: 2 }) },
          { guard: 'isHigh', target: 'done' },
          { guard: ({ context }) => context.level === 0, target: 'done' },
          { target: 'other' },
        ],
      },
    },
    done: { type: 'final' },
    other: { type: 'final' },
  },
});

describe('the branch taken, from the definition', () => {
  it('records every branch that fits when the target does not tell them apart, without asking a guard again', () => {
    const fits = 'idle --GO [isKind(a)]--> done or idle --GO [isKind(b)]--> done or idle --GO [isHigh]--> done or idle --GO [inline-4]--> done';
    expect(recorded(sameTarget, [{ type: 'GO' }], { input: { kind: 'a', level: 9 } })).toEqual([fits]);
    expect(recorded(sameTarget, [{ type: 'GO' }], { input: { kind: 'c', level: 0 } })).toEqual([fits]);
    expect(recorded(sameTarget, [{ type: 'GO' }], { input: { kind: 'c', level: 3 } })).toEqual(['idle --GO--> other']);
  });

  it('never counts a branch after an unguarded one: XState takes the unguarded branch whenever it gets that far', () => {
    const machine = createMachine({
      id: 'cut',
      initial: 'idle',
      states: { idle: { on: { GO: [{ guard: () => false, target: 'done' }, { target: 'done' }, { guard: () => true, target: 'done' }] } }, done: {} },
    });
    expect(recorded(machine, [{ type: 'GO' }])).toEqual(['idle --GO [inline-1]--> done or idle --GO--> done']);
  });

  it('names a transition declared on an ancestor by where it is declared, and a targetless one as a self-loop', () => {
    const machine = createMachine({
      id: 'nested',
      initial: 'outer',
      on: { RESET: '.outer' },
      states: {
        outer: { initial: 'inner', on: { ESCAPE: 'away', NOTE: { actions: () => {} } }, states: { inner: {} } },
        away: {},
      },
    });
    expect(recorded(machine, [{ type: 'NOTE' }, { type: 'ESCAPE' }, { type: 'RESET' }])).toEqual([
      'outer --NOTE--> outer',
      'outer --ESCAPE--> away',
      '(machine) --RESET--> outer',
    ]);
  });

  it('records eventless steps after an event as always, and a wildcard branch under its descriptor', () => {
    const machine = createMachine({
      id: 'wild',
      initial: 'a',
      states: { a: { on: { '*': 'b' } }, b: { always: [{ guard: () => false, target: 'a' }, { target: 'c' }] }, c: {} },
    });
    expect(recorded(machine, [{ type: 'ANYTHING' }])).toEqual(['a --*--> b', 'b --always--> c']);
  });

  it('records a delayed transition under its xstate.after event', async () => {
    vi.useFakeTimers();
    const machine = createMachine({ id: 'timer', initial: 'wait', states: { wait: { after: { 1000: 'late' } }, late: {} } });
    const trace: TraceEntry[] = [];
    const record = createTraceRecorder();
    const actor = createActor(machine, { inspect: (ev) => trace.push(...record(ev)) });
    actor.start();
    await vi.advanceTimersByTimeAsync(1000);
    actor.stop();
    expect(trace.map(transitionKey)).toEqual(['wait --xstate.after.1000.timer.wait--> late']);
  });

  it('starts from the restored state of a restored actor', () => {
    // Fresh, this input would end in `done`; the restored context sends GO to `other`.
    const snapshot = sameTarget.resolveState({ value: 'idle', context: { kind: 'c', level: 3 } });
    expect(recorded(sameTarget, [{ type: 'GO' }], { snapshot, input: { kind: 'a', level: 0 } })).toEqual(['idle --GO--> other']);
  });
});

describe('no inspection unless the trace is read', () => {
  it('keeps no trace without a debug reader, and the path with one', async () => {
    const flow = pausingFlow();
    const quiet = await runFlow(flow, await depsFor(fixtureProvider('alpha', flow)), { resume: false, event: { type: 'START' } });
    expect(quiet.status).toBe('paused');
    expect(quiet.trace).toEqual([]);
    const read = await runFlow(flow, await depsFor(fixtureProvider('alpha', flow), { logger: { debug: () => {} } }), { resume: false, event: { type: 'START' } });
    expect(read.trace.map(transitionKey)).toEqual(['idle --START--> preparing', 'preparing --xstate.done.actor.prepare--> awaitingCallback']);
  });
});
