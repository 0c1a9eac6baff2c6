// Model-based tests of the sign-up machine: paths generated from `signUpMachine` (both ways of creating accounts),
// each driven through the machine with actors that settle only by the path's own done/error events, recorded the
// way the runtime records a run; together they take every state and every transition. What each step does for real
// (mails, the store, the database) is proven over HTTP in test/e2e/password-signup.test.ts and
// test/security/password-signup.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import { createActor, fromPromise, type AnyEventObject } from 'xstate';
import { signUpMachine } from '../../../src/flows/password/signup-machine.js';
import { traceEntriesFromMicrostep, type TraceEntry } from '../../../src/devtools/graph.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { done, failed, type Labelled } from '../../support/model-events.js';

const FUTURE = 4_000_000_000_000;
const PAST = 1;
const user = { id: 'u1', email: 'ada@example.com', emailVerified: new Date(0) };
const entry = { email: 'ada@example.com', hash: '$h', code: 'c', expires: FUTURE };


const outcomes: Labelled[] = [
  done('prepareSignUp', 'a password too short', { ok: false, field: 'password', problem: 'too_short' }),
  done('prepareSignUp', 'an address that is none', { ok: false, field: 'email' }),
  done('prepareSignUp', 'a good form', { ok: true, email: 'ada@example.com', hash: '$h' }),
  failed('prepareSignUp', 'the breached service is down'),
  done('startSignUp', 'the proof mailed', { tokenHash: 't1', expires: FUTURE }),
  done('startSignUp', 'the proof mailed, since expired', { tokenHash: 't0', expires: PAST }),
  failed('startSignUp', 'the mail server refuses'),
  done('createAtOnce', 'an account made at once', { user, tokenHash: 't2', expires: FUTURE }),
  done('createAtOnce', 'an address with an account', { user: null, tokenHash: 't3', expires: FUTURE }),
  failed('createAtOnce', 'the database is down'),
  done('checkSignUpCode', 'the right code', { result: 'passed', entry }),
  done('checkSignUpCode', 'a wrong code', { result: 'wrong', left: 2 }),
  done('checkSignUpCode', 'a dead code', { result: 'dead' }),
  failed('checkSignUpCode', 'the store is down'),
  done('resendSignUp', 'a new mail', { tokenHash: 't4', expires: FUTURE }),
  done('resendSignUp', 'too soon for a new mail', 'cooling'),
  done('resendSignUp', 'nothing left to resend', 'dead'),
  failed('resendSignUp', 'the mail server refuses again'),
  done('takeSignUpLink', 'a live link', entry),
  done('takeSignUpLink', 'a spent link', null),
  failed('takeSignUpLink', 'the store is down for the link'),
  done('createAccount', 'the account made', { user, created: true }),
  failed('createAccount', 'the address was proven meanwhile', Object.assign(new Error('taken'), { type: 'Verification' })),
  failed('createAccount', 'the database is down at the end'),
];

const events: AnyEventObject[] = [
  { type: 'SUBMIT', email: 'ada@example.com', password: 'correct horse battery staple', name: 'Ada' },
  { type: 'CODE', code: '123456' },
  { type: 'RESEND' },
  { type: 'LINK', token: 'tok' },
  ...outcomes,
];

const settings = (createAccount: 'after-verification' | 'at-once') => ({ createAccount, maxAge: 900, maxAttempts: 5, resendCooldown: 60, minLength: 8 });
const inputFor = (createAccount: 'after-verification' | 'at-once') => ({
  deps: { provider: { id: 'password', password: { signUp: settings(createAccount) } } },
  callbackUrl: 'http://localhost:3000/',
  providerId: 'password',
  startedAt: 0,
});

// The actors never settle by themselves: their done/error events come from the path, as in the model.
const never = fromPromise(() => new Promise<never>(() => {}));
const drivable = signUpMachine.provide({
  actors: { prepareSignUp: never, startSignUp: never, createAtOnce: never, resendSignUp: never, checkSignUpCode: never, takeSignUpLink: never, createAccount: never } as never,
});

// Snapshots are told apart by what the guards read, so a wrong code's note does not make endless new states.
const stateKey = (s: { value: unknown; context: { expires?: number } }) => JSON.stringify([s.value, s.context.expires ?? null]);

function drive(path: ModelPath, input: unknown): { trace: TraceEntry[]; value: unknown; output: unknown } {
  const trace: TraceEntry[] = [];
  const actor = createActor(drivable, { input: input as never, inspect: (ev) => trace.push(...traceEntriesFromMicrostep(ev)) });
  actor.start();
  for (const event of path.events) actor.send(event as never);
  const snapshot = actor.getSnapshot();
  actor.stop();
  return { trace, value: snapshot.value, output: snapshot.output };
}

const leaf = (value: unknown): string => (typeof value === 'string' ? value : Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}.${leaf(v)}`)[0]);
const branchesOf = (path: ModelPath) => (path.events as Labelled[]).filter((e) => e.branch).map((e) => e.branch);

const coverage = createCoverage(signUpMachine);
afterAll(() => console.log(`flow coverage: ${coverage.format()}`));

describe.each(['after-verification', 'at-once'] as const)('sign-up, model paths (createAccount: %s)', (mode) => {
  const input = inputFor(mode);
  const paths = modelPaths(signUpMachine, { events: () => events, input, stateKey: stateKey as never });

  it.each(paths.map((p) => [`${p.description} [${branchesOf(p).join(' / ')}]`, p] as const))('%s', (_name, path) => {
    const run = drive(path, input);
    coverage.record(run.trace);
    expect(leaf(run.value)).toBe(path.finalState);
    if (path.finalState === 'signedUp') {
      // A proof by the mail is `email`; an account made at once is signed in by the password just chosen.
      const atOnce = branchesOf(path).includes('an account made at once');
      expect(run.output).toEqual({ outcome: 'signIn', user: { ...user, id: 'u1' }, created: true, amr: [atOnce ? 'pwd' : 'email'] });
    }
  });
});

describe('sign-up coverage', () => {
  it('took every state and every transition of the machine', () => {
    coverage.assertComplete();
    const report = coverage.report();
    expect(report.states.covered).toBe(report.states.total);
    expect(report.transitions.covered).toBe(report.transitions.total);
  });
});
