// The flow runtime's contract (DESIGN.md, "A flow, end to end"), clause by clause, on small fixture flows made
// with defineFlow and on the credentials flow: what is persisted, what a restored snapshot may be, how failures
// come out, and how a flow that proves someone goes on through the standard sign-in tail.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventObject } from 'xstate';
import { InvalidProvider } from '../../../src/core/errors.js';
import { AWAITING_TAG, machineTransitions, stateId, stateNodes } from '../../../src/devtools/graph.js';
import { machines } from '../../../src/devtools/machines.js';
import { credentialsFlow } from '../../../src/flows/credentials/machine.js';
import { defineFlow, type FlowDefinition } from '../../../src/flows/runtime/contract.js';
import { runFlow, type FlowResult } from '../../support/run-flow.js';
import type { PausedFlow } from '../../../src/flows/runtime/run.js';
import { recordingLogger, TEST_SECRET } from '../../support/auth-app.js';
import {
  depsFor,
  emittingMachine,
  FIXTURE_USER,
  fixtureFlow,
  fixtureProvider,
  hangingMachine,
  invokingAwaitingMachine,
  lingeringMachine,
  newProbe,
  PAUSE_TTL_MS,
  pausingFlow,
  throwingMachine,
} from './fixtures/runtime-flows.js';

const START = { resume: false, event: { type: 'START' } };
const callback = (code = 'ok') => ({ resume: true, event: { type: 'CALLBACK', code } });

function expectFailed(result: FlowResult, type: string): Extract<FlowResult, { status: 'failed' }> {
  expect(result.status).toBe('failed');
  const failed = result as Extract<FlowResult, { status: 'failed' }>;
  expect(failed.error.type).toBe(type);
  return failed;
}

function expectPaused(result: FlowResult): Extract<FlowResult, { status: 'paused' }> {
  expect(result.status).toBe('paused');
  return result as Extract<FlowResult, { status: 'paused' }>;
}

/**
 * Runs `body` with spies on the process's last-resort handlers, then waits a little (xstate reports an
 * unhandled actor error on a later tick) and asserts neither was called.
 */
async function withoutUncaughtErrors<T>(body: () => Promise<T>): Promise<T> {
  const uncaught = vi.fn();
  const unhandled = vi.fn();
  process.on('uncaughtException', uncaught);
  process.on('unhandledRejection', unhandled);
  try {
    const result = await body();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(uncaught).not.toHaveBeenCalled();
    expect(unhandled).not.toHaveBeenCalled();
    return result;
  } finally {
    process.off('uncaughtException', uncaught);
    process.off('unhandledRejection', unhandled);
  }
}

async function pausedFixture(probe = newProbe()) {
  const flow = pausingFlow();
  // A debug reader, so the runtime keeps the trace these tests read (without one it inspects nothing).
  const deps = await depsFor(fixtureProvider('alpha', flow, probe), { logger: { debug: () => {} } });
  const first = expectPaused(await runFlow(flow, deps, START));
  return { flow, deps, probe, paused: first.paused, first };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('persisting: only awaiting states, never while an invoked actor runs', () => {
  it('pauses in the awaiting state after the invoked actor has finished, and persists only the machine, value and context', async () => {
    const { probe, paused, first } = await pausedFixture();
    expect(probe).toEqual({ prepared: 1, prepareSettled: true, finished: 0 });
    expect(paused.value).toBe('awaitingCallback');
    expect(Object.keys(paused).sort()).toEqual(['context', 'machine', 'value']);
    expect(paused.machine).toBe('pausing');
    // The answer to the browser travels in the response, not in the cookie; so do failures and the deps.
    expect(paused.context).not.toHaveProperty('response');
    expect(paused.context).not.toHaveProperty('failure');
    expect(paused.context).not.toHaveProperty('deps');
    expect(first.response).toEqual({ kind: 'redirect', url: 'https://idp.example/authorize?client_id=fixture&state=1' });
    expect(first.trace.map((e) => `${e.from} --${e.event}--> ${e.to}`)).toEqual([
      'idle --START--> preparing',
      'preparing --xstate.done.actor.prepare--> awaitingCallback',
    ]);
    // The persisted form survives the trip through JSON (what the flow cookie does with it).
    expect(JSON.parse(JSON.stringify(paused))).toEqual(paused);
  });

  it('never persists the deps: no request, configuration, secret or provider in what is sealed', async () => {
    const { paused } = await pausedFixture();
    expect(Object.keys(paused.context).sort()).toEqual(['callbackUrl', 'flowId', 'providerId', 'startedAt']);
    const sealed = JSON.stringify(paused);
    expect(sealed).not.toContain(TEST_SECRET);
    expect(sealed).not.toMatch(/"req"|"provider"|"config"|"probe"|"cookies"/);
  });

  it('resumes without running the actors of the states before the pause again, and the tail signs in', async () => {
    const { flow, deps, probe, paused } = await pausedFixture();
    const result = await runFlow(flow, deps, callback('ok'), paused);
    expect(result).toMatchObject({ status: 'signedIn', user: { id: FIXTURE_USER.id }, account: { provider: 'alpha', type: 'oauth' } });
    expect(probe).toMatchObject({ prepared: 1, finished: 1 });
    const own = result.trace.filter((e) => e.machine === undefined);
    expect(own.map((e) => e.event)).toEqual(['CALLBACK', 'xstate.done.actor.finish']);
    expect(own.at(-1)?.to).toBe('authenticated');
  });

  it('refuses, at defineFlow, a machine whose awaiting state invokes an actor: InvalidProvider naming the state', () => {
    expect(() => defineFlow({ machine: invokingAwaitingMachine, version: 1, entry: () => ({ resume: false, event: { type: 'START' } }) })).toThrow(InvalidProvider);
    expect(() => defineFlow({ machine: invokingAwaitingMachine, version: 1, entry: () => null })).toThrow(/invokes actors in awaiting states \(waiting\)/);
  });

  it('holds for every built-in machine: awaiting states invoke nothing and set no timer', () => {
    expect(Object.keys(machines).sort()).toEqual(['backchannel-logout', 'change-email', 'change-password', 'credentials', 'email', 'invitation', 'link', 'oauth', 'password-recovery', 'password-signin', 'password-signup', 'rp-logout', 'saml', 'second-factor', 'signin', 'tokens', 'webauthn']);
    for (const machine of Object.values(machines)) {
      const awaiting = stateNodes(machine).filter((node) => node.tags.includes(AWAITING_TAG));
      for (const node of awaiting) {
        expect(node.invoke, `${machine.id}.${stateId(node)} invokes`).toEqual([]);
        expect(node.after, `${machine.id}.${stateId(node)} has after`).toEqual([]);
      }
      // No machine relies on a delayed transition anywhere: a paused flow's timers would not come back.
      expect(machineTransitions(machine).filter((t) => t.event.startsWith('xstate.after.')), machine.id).toEqual([]);
    }
  });

  it.each([
    ['no version', 0],
    ['a fractional version', 1.5],
    ['a negative version', -1],
  ])('refuses, at defineFlow, %s: InvalidProvider', (_name, version) => {
    expect(() => defineFlow({ machine: pausingFlow().machine, version, entry: () => null })).toThrow(/positive integer `version`/);
  });
});

describe('timers: `after` is not restored, expiry is a timestamp guard', () => {
  it('answers a paused flow at once, whatever timers its awaiting state has', async () => {
    const flow = fixtureFlow(lingeringMachine);
    const started = performance.now();
    const result = expectPaused(await runFlow(flow, await depsFor(fixtureProvider('slow', flow)), START));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(result.paused.value).toBe('awaitingCallback');
  });

  it('loses the timer on restore (an hour later the 60 s `after` never fired), which is why expiry lives in context', async () => {
    const flow = fixtureFlow(lingeringMachine);
    const deps = await depsFor(fixtureProvider('slow', flow));
    const { paused } = expectPaused(await runFlow(flow, deps, START));
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 60 * 60 * 1000);
    const result = await runFlow(flow, deps, callback('ok'), paused);
    expect(result.status).toBe('signedIn');
  });

  it('refuses a callback after the time-to-live by its guard (InvalidCheck with evidence), and accepts one just before', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = new Date('2026-01-01T12:00:00Z').getTime();
    vi.setSystemTime(t0);
    const late = await pausedFixture();
    vi.setSystemTime(t0 + PAUSE_TTL_MS + 1_000);
    const failed = expectFailed(await runFlow(late.flow, late.deps, callback('ok'), late.paused), 'InvalidCheck');
    expect(failed.state).toBe('failed.invalidCheck');
    expect(failed.error.cause).toMatchObject({ expected: `< ${PAUSE_TTL_MS} ms`, actual: `${PAUSE_TTL_MS + 1_000} ms`, event: 'CALLBACK' });
    expect(late.probe.finished).toBe(0);

    vi.setSystemTime(t0);
    const inTime = await pausedFixture();
    vi.setSystemTime(t0 + PAUSE_TTL_MS - 1_000);
    expect((await runFlow(inTime.flow, inTime.deps, callback('ok'), inTime.paused)).status).toBe('signedIn');
  });
  // The same in the real OAuth machine (a GitHub callback 16 minutes late): test/flows/oauth/oauth-runtime.test.ts.
});

describe('restoring: a snapshot is untrusted input', () => {
  const unknownValues: [string, unknown][] = [
    ['a state that does not exist', 'nope'],
    ['a child that does not exist', { failed: 'nope' }],
    ['a parent that does not exist', { nope: 'awaitingCallback' }],
    ['a child of an atomic state', { awaitingCallback: 'deeper' }],
    ['an array', ['awaitingCallback']],
    ['null', null],
    ['a number', 42],
    ['an empty object', {}],
    ['a prototype key', '__proto__'],
  ];

  it.each(unknownValues)('turns %s into InvalidCheck, never an uncaught exception', async (_name, value) => {
    const { flow, deps, probe } = await pausedFixture();
    const result = await withoutUncaughtErrors(() => runFlow(flow, deps, callback('ok'), { machine: 'pausing', value, context: { callbackUrl: 'x', startedAt: Date.now() } } as PausedFlow));
    expectFailed(result, 'InvalidCheck');
    expect(probe.finished).toBe(0);
  });

  it.each([
    ['the initial state', 'idle'],
    ['a state running an invoke', 'preparing'],
    ['a final success state', 'authenticated'],
    ['a failure state', { failed: 'invalidCheck' }],
  ])('refuses to resume %s (not awaiting): InvalidCheck', async (_name, value) => {
    const { flow, deps, paused, probe } = await pausedFixture();
    const result = await withoutUncaughtErrors(() => runFlow(flow, deps, callback('ok'), { ...paused, value: value as PausedFlow['value'] }));
    const { error } = expectFailed(result, 'InvalidCheck');
    expect(error.message).toMatch(/cannot be resumed/);
    expect(probe).toMatchObject({ prepared: 1, finished: 0 });
  });

  it('refuses an event the paused state does not take: InvalidRequest naming the state and the event, nothing run', async () => {
    const { flow, deps, paused, probe } = await pausedFixture();
    const result = await runFlow(flow, deps, START, paused);
    expect(result).toMatchObject({ status: 'refused', error: { type: 'InvalidRequest', cause: { state: 'awaitingCallback', event: 'START' } }, trace: [] });
    expect(probe.finished).toBe(0);
  });

  it('takes the deps of this request, never any a snapshot claims to carry', async () => {
    const { flow, deps, paused, probe } = await pausedFixture();
    const forged = { ...paused, context: { ...paused.context, deps: { provider: { id: 'evil', probe: newProbe() } } } };
    const result = await runFlow(flow, deps, callback('ok'), forged);
    expect(result).toMatchObject({ status: 'signedIn', account: { provider: 'alpha' } });
    expect(probe.finished).toBe(1);
  });

  // The OAuth machine's case (a START on a paused flow) is in test/flows/oauth/oauth-runtime.test.ts.
  it('refuses the same in the real machines: a credentials snapshot (never awaiting)', async () => {
    const deps = await depsFor({ id: 'credentials', name: 'Credentials', type: 'credentials', credentials: {}, authorize: () => null });
    const submit = { resume: true, event: { type: 'SUBMIT', credentials: {} } };
    const flow = credentialsFlow as unknown as FlowDefinition;
    const notAwaiting = await runFlow(flow, deps, submit, { machine: 'credentials', value: 'authorizing', context: {} });
    expect(expectFailed(notAwaiting, 'InvalidCheck').error.message).toMatch(/cannot be resumed/);
    const unknown = await runFlow(flow, deps, submit, { machine: 'credentials', value: 'awaitingCallback', context: {} });
    expect(expectFailed(unknown, 'InvalidCheck').error.message).toMatch(/does not have/);
  });
});

describe('failures inside the machine', () => {
  it.each([
    ['an action throws on the entry event', 'action', 'an action exploded'],
    ['a guard throws', 'guard', 'a guard exploded'],
    ['an action throws after an invoke is done', 'afterInvoke', 'an action exploded'],
  ])('%s: CallbackRouteError with the cause, no crash', async (_name, when, message) => {
    const flow = fixtureFlow(throwingMachine);
    const deps = await depsFor(fixtureProvider('throwing', flow));
    const result = await withoutUncaughtErrors(() => runFlow(flow, deps, { resume: false, event: { type: 'SUBMIT', when } as EventObject }));
    const { error } = expectFailed(result, 'CallbackRouteError');
    expect((error.cause?.err as Error | undefined)?.message ?? error.message).toContain(message);
  });

  it('gives up on a flow that never settles after the settle timeout: CallbackRouteError naming the state', async () => {
    const flow = fixtureFlow(hangingMachine);
    const deps = await depsFor(fixtureProvider('hanging', flow));
    const started = performance.now();
    const result = await withoutUncaughtErrors(() => runFlow(flow, deps, { resume: false, event: { type: 'SUBMIT' } }, undefined, { settleTimeoutMs: 100 }));
    const elapsed = performance.now() - started;
    const failed = expectFailed(result, 'CallbackRouteError');
    expect(failed.error.message).toBe('The flow did not settle within 100 ms.');
    expect(failed.state).toBe('waitingForever');
    expect(elapsed).toBeGreaterThanOrEqual(95);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('fails a flow that ignores its entry event instead of waiting for the timeout', async () => {
    const flow = fixtureFlow(hangingMachine);
    const deps = await depsFor(fixtureProvider('hanging', flow));
    const result = await runFlow(flow, deps, { resume: false, event: { type: 'UNHEARD' } }, undefined, { settleTimeoutMs: 5_000 });
    expect(expectFailed(result, 'CallbackRouteError').error.message).toMatch(/ignored "UNHEARD" in idle/);
  });
});

describe('emitted events', () => {
  it("come from the standard tail only: what the flow machine emits (even createUser, linkAccount, updateUser) never reaches config.events", async () => {
    const calls: string[] = [];
    const handler = (name: string, delay = 0) => async (message: unknown) => {
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      calls.push(`${name}:${(message as { step?: number }).step ?? 'tail'}`);
    };
    const flow = fixtureFlow(emittingMachine);
    const deps = await depsFor(fixtureProvider('emitting', flow), {
      // A slow first handler must not let a later event overtake it.
      events: { createUser: handler('createUser', 20), linkAccount: handler('linkAccount'), updateUser: handler('updateUser'), signIn: handler('signIn') },
    });
    const result = await runFlow(flow, deps, { resume: false, event: { type: 'SUBMIT' } });
    expect(result.status).toBe('signedIn');
    // The machine emitted createUser, linkAccount and updateUser itself: a flow cannot announce what the tail did not do.
    expect(calls).toEqual(['signIn:tail']);
  });

  it('logs a throwing handler as EventError and leaves the outcome as it was', async () => {
    const logger = recordingLogger();
    const calls: string[] = [];
    const flow = fixtureFlow(emittingMachine);
    const deps = await depsFor(fixtureProvider('emitting', flow), {
      logger,
      events: {
        signIn: () => {
          calls.push('signIn');
          throw new Error('handler broke');
        },
      },
    });
    const result = await runFlow(flow, deps, { resume: false, event: { type: 'SUBMIT' } });
    expect(result).toMatchObject({ status: 'signedIn', redirect: deps.callbackUrl, user: { id: 'fixture-user' } });
    expect(logger.errorTypes()).toEqual(['EventError']);
    expect(logger.errors[0].cause).toMatchObject({ event: 'signIn' });
    expect(calls).toEqual(['signIn']);
  });

  it('logs the trace of every run at debug level as `flow <machine> <status>`, the tail after the flow', async () => {
    const logger = recordingLogger();
    const { flow, paused } = await pausedFixture();
    const deps = await depsFor(fixtureProvider('alpha', flow), { logger });
    await runFlow(flow, deps, callback('ok'), paused);
    expect(logger.debugs.map((d) => d.message)).toEqual(['flow pausing signedIn']);
    const { trace } = logger.debugs[0].metadata as { trace: { machine?: string; to: string }[] };
    expect(logger.debugs[0].metadata).toMatchObject({ provider: 'alpha' });
    expect(trace.slice(0, 2)).toMatchObject([{ from: 'awaitingCallback', event: 'CALLBACK', to: 'finishing' }, { to: 'authenticated' }]);
    expect(trace.slice(2).every((e) => e.machine === 'signin')).toBe(true);
    expect(trace.at(-1)).toMatchObject({ machine: 'signin', to: 'resolved' });
  });
});
