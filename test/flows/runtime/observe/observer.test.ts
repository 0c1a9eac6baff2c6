// The run's observer records the branch XState took from what XState reports, and never asks a guard again: a guard
// that reads the clock cannot be recorded as the other branch because time moved on, and a guard is called exactly
// as often with the observer as without it. Where what XState reports fits several branches, all of them are kept.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assign, createActor, fromPromise, not, setup, type AnyStateMachine, type InspectionEvent } from 'xstate';
import { observeRun } from '../../../../src/flows/runtime/observe/observer.js';
import type { TraceEntry } from '../../../../src/flows/runtime/observe/refs.js';
import type { MachineSpan } from '../../../../src/flows/runtime/observe/spans.js';
import { transitionKey } from '../../../../src/devtools/graph.js';

const T0 = Date.parse('2026-11-28T10:00:00Z');
const TTL_MS = 60_000;

afterEach(() => {
  vi.useRealTimers();
});

/**
 * A callback accepted while the flow is fresh (the guard reads the clock), or expired. Accepting takes a while: its
 * action moves the frozen clock past the deadline, as a slow step would, so the guard asked again after the step
 * answers the other way.
 */
function clockedMachine(expiredTarget: 'expired' | 'accepted') {
  return setup({
    types: { context: {} as { startedAt: number } },
    guards: { fresh: ({ context }) => Date.now() - context.startedAt < TTL_MS },
    actions: { takesTime: () => vi.setSystemTime(Date.now() + TTL_MS) },
  }).createMachine({
    id: 'clocked',
    initial: 'awaiting',
    context: { startedAt: T0 },
    states: {
      awaiting: { on: { CALLBACK: [{ guard: 'fresh', target: 'accepted', actions: 'takesTime' }, { target: expiredTarget }] } },
      accepted: { type: 'final' },
      expired: { type: 'final' },
    },
  });
}

/** Runs `machine` under one observer, sends `events`, and answers the trace, the final state and the actor. */
function observed(machine: AnyStateMachine, events: { type: string }[], span?: MachineSpan) {
  const trace: TraceEntry[] = [];
  const actor = createActor(machine, { inspect: observeRun({ trace, span }) });
  actor.start();
  for (const event of events) actor.send(event);
  const snapshot = actor.getSnapshot();
  actor.stop();
  return { trace, value: snapshot.value, context: snapshot.context as Record<string, unknown> };
}

describe('a guard that reads the clock', () => {
  it('is recorded as the branch XState took, though asked again after the step it would pick the other one', () => {
    vi.useFakeTimers({ now: T0 + 1_000 });
    const machine = clockedMachine('expired');
    const { trace, value, context } = observed(machine, [{ type: 'CALLBACK' }]);
    expect(value).toBe('accepted');
    expect(trace.map(transitionKey)).toEqual(['awaiting --CALLBACK [fresh]--> accepted']);
    // The premise: now, the guard says the flow expired (a recorder that asked it again would have recorded that).
    const fresh = machine.implementations.guards.fresh as (args: { context: unknown; event: unknown }) => boolean;
    expect(fresh({ context, event: { type: 'CALLBACK' } })).toBe(false);
  });

  it('is recorded as expired when XState found it expired', () => {
    vi.useFakeTimers({ now: T0 + TTL_MS + 1 });
    const { trace, value } = observed(clockedMachine('expired'), [{ type: 'CALLBACK' }]);
    expect(value).toBe('expired');
    expect(trace.map(transitionKey)).toEqual(['awaiting --CALLBACK--> expired']);
  });

  it('when both branches lead to the same state, records both as fitting rather than guessing which guard passed', () => {
    vi.useFakeTimers({ now: T0 + 1_000 });
    const { trace, value } = observed(clockedMachine('accepted'), [{ type: 'CALLBACK' }]);
    expect(value).toBe('accepted');
    expect(trace).toEqual([
      {
        from: 'awaiting',
        event: 'CALLBACK',
        to: 'accepted',
        at: T0 + 1_000 + TTL_MS,
        branches: [
          { from: 'awaiting', event: 'CALLBACK', to: 'accepted', guard: 'fresh' },
          { from: 'awaiting', event: 'CALLBACK', to: 'accepted' },
        ],
      },
    ]);
  });
});

describe('guards are XState’s alone to call', () => {
  /** A machine whose every guard counts its calls: on events, eventless, behind not(), on an ancestor, after an actor. */
  function countingMachine(calls: Map<string, number>) {
    const counted = (name: string, answer: (context: { n: number }) => boolean) => ({ context }: { context: { n: number } }) => {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return answer(context);
    };
    return setup({
      types: { context: {} as { n: number } },
      actors: { work: fromPromise(async () => 'ok') },
      guards: {
        small: counted('small', (c) => c.n < 3),
        even: counted('even', (c) => c.n % 2 === 0),
        big: counted('big', (c) => c.n > 100),
        never: counted('never', () => false),
      },
    }).createMachine({
      id: 'counting',
      initial: 'running',
      context: { n: 0 },
      on: { RESET: { guard: 'never', target: '.running' } },
      states: {
        running: {
          initial: 'idle',
          states: {
            idle: {
              on: {
                BUMP: [
                  { guard: 'big', target: 'done' },
                  { guard: 'small', actions: assign({ n: ({ context }) => context.n + 1 }) },
                  { guard: not('even'), target: 'checking' },
                ],
                RESET: { guard: 'never', target: 'idle' },
              },
            },
            checking: { always: [{ guard: 'even', target: 'idle' }, { target: 'done' }] },
            done: { type: 'final' },
          },
        },
      },
    });
  }

  it('calls every guard exactly as often with the observer (trace and span) as without one', () => {
    const events = [{ type: 'BUMP' }, { type: 'RESET' }, { type: 'BUMP' }, { type: 'BUMP' }, { type: 'RESET' }, { type: 'BUMP' }, { type: 'BUMP' }];
    const alone = new Map<string, number>();
    const bare = createActor(countingMachine(alone));
    bare.start();
    for (const event of events) bare.send(event);
    bare.stop();

    const watched = new Map<string, number>();
    const span: MachineSpan = { entered: () => {}, actor: () => {}, child: () => span, end: () => {} };
    const { trace } = observed(countingMachine(watched), events, span);

    expect(Object.fromEntries(watched)).toEqual(Object.fromEntries(alone));
    expect([...alone.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(6);
    // And the observer still saw which way each step went.
    expect(trace.map(transitionKey)).toEqual([
      'running.idle --BUMP [small]--> running.idle',
      'running.idle --BUMP [small]--> running.idle',
      'running.idle --BUMP [small]--> running.idle',
      'running.idle --BUMP [not]--> running.checking',
      'running.checking --always--> running.done',
    ]);
  });

  it('records nothing for an event no guard let through', () => {
    const machine = setup({ types: { context: {} as { pings: number } } }).createMachine({
      id: 'ping',
      initial: 'idle',
      context: { pings: 0 },
      states: { idle: { on: { PING: { guard: ({ context }) => context.pings < 1, actions: assign({ pings: ({ context }) => context.pings + 1 }) } } } },
    });
    const { trace, context } = observed(machine, [{ type: 'PING' }, { type: 'PING' }, { type: 'PING' }]);
    expect(context.pings).toBe(1);
    expect(trace.map(transitionKey)).toEqual(['idle --PING [inline-1]--> idle']);
  });
});

describe('the span of a run, from the same observer', () => {
  it('gets each state entered once, with the event that led there, and the invoked actors’ events', async () => {
    const machine = setup({ actors: { work: fromPromise(async () => 'ok') } }).createMachine({
      id: 'spanned',
      initial: 'idle',
      states: {
        idle: { on: { GO: 'working', NOTE: {} } },
        working: { invoke: { id: 'work', src: 'work', onDone: 'done' } },
        done: { type: 'final' },
      },
    });
    const entered: string[] = [];
    const actors: string[] = [];
    const span: MachineSpan = {
      entered: (state, event) => void entered.push(`${state} <- ${event}`),
      actor: (ev: InspectionEvent) => void actors.push(`${ev.type} ${(ev.actorRef as { id?: string }).id}`),
      child: () => span,
      end: () => {},
    };
    const inspect = observeRun({ span })!;
    const actor = createActor(machine, { inspect });
    actor.start();
    actor.send({ type: 'NOTE' });
    actor.send({ type: 'GO' });
    await new Promise<void>((resolve) => actor.subscribe({ complete: resolve }));
    expect(entered).toEqual(['idle <- xstate.init', 'working <- GO', 'done <- xstate.done.actor.work']);
    expect(actors[0]).toBe('@xstate.actor work');
    expect(actors).toContain('@xstate.snapshot work');
  });

  it('never stops a run: a span that throws loses its events, the trace and the machine go on', () => {
    const span: MachineSpan = {
      entered: () => {
        throw new Error('exporter down');
      },
      actor: () => {},
      child: () => span,
      end: () => {},
    };
    vi.useFakeTimers({ now: T0 + TTL_MS + 1 });
    const { trace, value } = observed(clockedMachine('expired'), [{ type: 'CALLBACK' }], span);
    expect(value).toBe('expired');
    expect(trace.map(transitionKey)).toEqual(['awaiting --CALLBACK--> expired']);
  });

  it('is not attached at all when there is neither a trace nor a span', () => {
    expect(observeRun({})).toBeUndefined();
  });
});
