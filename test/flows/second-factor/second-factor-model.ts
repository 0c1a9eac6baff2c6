// The model of the second-factor machine (flows/second-factor/machine.ts) for its model-based test: why it is
// started (a signed-in user's request, or a sign-in), what each actor can answer, each answer labelled with the branch
// of the world (second-factor.model.test.ts) that makes the real actor answer so; and the paths through
// `secondFactorMachine` those answers give.
import { initialTransition, transition, type AnyEventObject, type AnyMachineSnapshot, type AnyStateMachine, type StateValue } from 'xstate';
import { AdapterError, InvalidCheck } from '../../../src/core/errors.js';
import { AWAITING } from '../../../src/flows/runtime/contract.js';
import { secondFactorMachine, type SecondFactorPurpose } from '../../../src/flows/second-factor/machine.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { done, failed, type Labelled } from '../../support/model-events.js';

// An event the model sends is labelled with the branch of the world that produces it for real (test/support/model-events.ts).
export { done, type Labelled } from '../../support/model-events.js';

/** Why the machine starts: what the signed-in user asks for (the route they use), or a sign-in with a password. */
export const A = {
  enrol: 'add an authenticator app, signed in just now',
  enrolStale: 'add an authenticator app, signed in 6 minutes ago',
  codes: 'new backup codes, signed in just now',
  codesStale: 'new backup codes, signed in 6 minutes ago',
  removeApp: 'remove the authenticator app',
  removeCodes: 'remove the backup codes',
  removeStranger: 'remove a factor of another user',
  stepUp: 'confirm it is you (step-up)',
  signIn: 'sign in with a password (secondFactor.require)',
} as const;

export const MODEL_USER = 'model-user';
/** The model's factor ids; the world maps them to the rows it stored. */
export const IDS = { app: 'app', backup: 'backup', stranger: 'stranger' } as const;

// The clock is read by `mustCheck` (is the last check fresh?): 0 is long ago, Infinity is now as far as it knows. A
// sign-in has no session yet (no verifiedAt), and carries the user and the account of its first factor.
const start = (branch: string, purpose: SecondFactorPurpose, fresh: boolean, factorId?: string): Labelled => ({
  type: 'START',
  purpose,
  userId: MODEL_USER,
  ...(purpose === 'signIn'
    ? { user: { id: MODEL_USER, email: 'model@example.com' }, account: { provider: 'credentials', type: 'credentials', providerAccountId: MODEL_USER } }
    : { verifiedAt: fresh ? Number.POSITIVE_INFINITY : 0 }),
  ...(factorId ? { factorId } : {}),
  branch,
});
export const starts: Labelled[] = [
  start(A.enrol, 'enrolTotp', true),
  start(A.enrolStale, 'enrolTotp', false),
  start(A.codes, 'backupCodes', true),
  start(A.codesStale, 'backupCodes', false),
  start(A.removeApp, 'remove', false, IDS.app),
  start(A.removeCodes, 'remove', false, IDS.backup),
  start(A.removeStranger, 'remove', false, IDS.stranger),
  start(A.stepUp, 'stepUp', true),
  start(A.signIn, 'signIn', false),
];

/** assess's answers: what the world stored for the user (and configured), or a failure to find out. */
export const L = {
  none: 'no factors yet',
  app: 'an active authenticator app',
  appAndCodes: 'an active authenticator app and backup codes',
  appAndPasskey: 'an active authenticator app and a passkey',
  required: 'no factors yet, require says enrol',
  fails: 'the database cannot list the factors',
  requireThrows: 'the require callback throws',
} as const;
const at = new Date(0).toISOString();
const app = { id: IDS.app, kind: 'totp', label: 'App', createdAt: at, activatedAt: at };
const code = { id: IDS.backup, kind: 'backup', label: null, createdAt: at, activatedAt: at };
const state = (branch: string, factors: unknown[], more: { required?: boolean; passkey?: boolean } = {}) =>
  done('assess', branch, { user: { id: MODEL_USER, email: 'model@example.com', branch }, factors, required: more.required ?? false, passkey: more.passkey ?? false });
const assessed: Record<string, Labelled> = {
  [L.none]: state(L.none, []),
  [L.app]: state(L.app, [app]),
  [L.appAndCodes]: state(L.appAndCodes, [app, code]),
  [L.appAndPasskey]: state(L.appAndPasskey, [app], { passkey: true }),
  [L.required]: state(L.required, [], { required: true }),
  [L.fails]: failed('assess', L.fails, new AdapterError('listFactors')),
  [L.requireThrows]: failed('assess', L.requireThrows, new Error('require callback crashed')),
};
/**
 * What each start finds: the fresh enrolment with and without an app (and a failing list), the step-up without a
 * factor, with codes, and with a passkey, the sign-in the one way only it takes (enrol, as `require` says) and its
 * `require` throwing; one set for each other.
 */
const assessedFor: Record<string, string[]> = {
  [A.enrol]: [L.none, L.app, L.fails],
  [A.enrolStale]: [L.app],
  [A.codes]: [L.app],
  [A.codesStale]: [L.appAndCodes],
  [A.removeApp]: [L.appAndCodes],
  [A.removeCodes]: [L.appAndCodes],
  [A.removeStranger]: [L.appAndCodes],
  [A.stepUp]: [L.none, L.appAndCodes, L.appAndPasskey],
  [A.signIn]: [L.required, L.requireThrows],
};

/** A request to a paused check: in time by its own session, too late, or from another user's session. */
export const S = { inTime: 'within 10 minutes', late: 'after 10 minutes', other: 'from another user’s session' } as const;
/** Passkey options asked where the check offers none (the user has no passkey). */
export const NOT_OFFERED = 'no passkey to offer';
const userOf = (branch: string) => (branch === S.other ? 'someone-else' : MODEL_USER);
const submit = (branch: string): Labelled => ({ type: 'SUBMIT_CODE', code: '', userId: userOf(branch), branch });
const askOptions = (branch: string): Labelled => ({ type: 'PASSKEY_OPTIONS', userId: userOf(branch), branch });
const submitPasskey = (branch: string): Labelled => ({ type: 'SUBMIT_PASSKEY', credential: null, userId: userOf(branch), branch });

/** checkFactorCode's answers at the check. */
export const C = {
  otp: 'the current app code',
  backup: 'an unused backup code',
  wrong: 'a wrong code',
  locked: 'a wrong code, the last attempt allowed',
  fails: 'the database refuses to spend the step',
} as const;
/** passkeyOptions' answers (preparingPasskey). */
export const O = {
  offered: 'options for the user’s passkeys',
  gone: 'the passkeys were removed meanwhile',
  unavailable: 'the database cannot list the passkeys',
} as const;
/** checkPasskey's answers (verifyingPasskey). */
export const P = {
  valid: 'a valid assertion of the user’s passkey',
  bad: 'an assertion with a bad signature',
  locked: 'a bad assertion, the last attempt allowed',
  refused: 'the database refuses the new signature counter',
} as const;
/** The enrolment's actors' answers (enrolling, confirmingEnrolment, showingEnrolmentAgain, activatingFactor). */
export const E = {
  started: 'a new key is shown',
  refusesNew: 'the database refuses the new factor',
  confirmed: 'the first code of the new key',
  wrong: 'a wrong first code',
  locked: 'a wrong first code, the last attempt allowed',
  fails: 'the database refuses to spend the first step',
  shownAgain: 'the key is shown again',
  gone: 'the factor being enrolled was removed meanwhile',
  activated: 'the factor is active',
  refusesActivation: 'the database refuses the activation',
} as const;
/** generatingCodes' and removing's answers. */
export const G = { generated: 'ten new codes stored', fails: 'the database refuses to drop the old codes' } as const;
export const D = { removed: 'the factor is deleted', fails: 'the database refuses the deletion' } as const;

const page = { title: 'Set up two-step verification', fields: [{ name: 'code', label: 'Code' }] };

interface ModelContext {
  purpose: SecondFactorPurpose;
  verified: 'long ago' | 'fresh at start' | 'no session';
  user?: { branch?: string };
  target?: { id?: string; kind?: string };
  /** The check offers a passkey; options were asked for it (an assertion can be made). */
  passkey: boolean;
  asked: boolean;
}

/**
 * The answers per state. Every branch of the code check is driven on the step-up with codes, every branch of the
 * passkey on the step-up with a passkey, every branch of the enrolment on an app added fresh with nothing to check,
 * and each change's failure once; elsewhere the way through (the same states and guards, reached another way).
 */
function outcomes(state: string, context: ModelContext): Labelled[] {
  const stepUp = context.purpose === 'stepUp';
  const enrolFull = context.purpose === 'enrolTotp' && context.user?.branch === L.none;
  const all: Record<string, Labelled[]> = {
    awaitingCheck: !stepUp
      ? [submit(S.inTime)]
      : context.passkey
        ? [askOptions(S.inTime), askOptions(S.late), askOptions(S.other), ...(context.asked ? [submitPasskey(S.inTime), submitPasskey(S.late), submitPasskey(S.other)] : [])]
        : [submit(S.inTime), submit(S.late), submit(S.other), askOptions(NOT_OFFERED)],
    verifyingCode: stepUp
      ? [
          done('checkFactorCode', C.otp, { result: 'passed', method: 'otp' }),
          done('checkFactorCode', C.backup, { result: 'passed', method: 'backup' }),
          done('checkFactorCode', C.wrong, { result: 'wrong', attempts: 1 }),
          done('checkFactorCode', C.locked, { result: 'locked', attempts: 1 }),
          failed('checkFactorCode', C.fails, new AdapterError('advanceFactorStep')),
        ]
      : [done('checkFactorCode', C.otp, { result: 'passed', method: 'otp' })],
    preparingPasskey: [
      done('passkeyOptions', O.offered, { options: {}, challenge: 'model-challenge', expiresAt: 1 }),
      failed('passkeyOptions', O.gone, new InvalidCheck('This sign-in has no passkey to verify with.')),
      failed('passkeyOptions', O.unavailable, new AdapterError('listAuthenticatorsByUserId')),
    ],
    verifyingPasskey: [
      done('checkPasskey', P.valid, { result: 'passed', method: 'passkey' }),
      done('checkPasskey', P.bad, { result: 'wrong', attempts: 1 }),
      done('checkPasskey', P.locked, { result: 'locked', attempts: 1 }),
      failed('checkPasskey', P.refused, new AdapterError('updateAuthenticatorCounter')),
    ],
    enrolling: [done('startEnrolment', E.started, { factorId: 'model-factor', page }), ...(enrolFull ? [failed('startEnrolment', E.refusesNew, new AdapterError('createFactor'))] : [])],
    awaitingEnrolment: enrolFull ? [submit(S.inTime), submit(S.late), submit(S.other)] : [submit(S.inTime)],
    confirmingEnrolment: [
      done('confirmEnrolment', E.confirmed, { result: 'passed', method: 'otp' }),
      ...(enrolFull
        ? [
            done('confirmEnrolment', E.wrong, { result: 'wrong', attempts: 1 }),
            done('confirmEnrolment', E.locked, { result: 'locked', attempts: 1 }),
            failed('confirmEnrolment', E.fails, new AdapterError('advanceFactorStep')),
          ]
        : []),
    ],
    showingEnrolmentAgain: [done('enrolmentPage', E.shownAgain, page), failed('enrolmentPage', E.gone, new Error('The factor being enrolled is gone.'))],
    activatingFactor: [done('activateFactor', E.activated, undefined), ...(enrolFull ? [failed('activateFactor', E.refusesActivation, new AdapterError('activateFactor'))] : [])],
    // The failures once each: new codes without a check, removing the app.
    generatingCodes: [done('replaceBackupCodes', G.generated, ['model-code']), ...(context.verified === 'fresh at start' ? [failed('replaceBackupCodes', G.fails, new AdapterError('deleteFactors'))] : [])],
    removing: [done('removeFactor', D.removed, true), ...(context.target?.kind === 'totp' ? [failed('removeFactor', D.fails, new AdapterError('deleteFactors'))] : [])],
  };
  return all[state] ?? [];
}

function modelContext(snapshot: AnyMachineSnapshot): ModelContext {
  const c = snapshot.context as {
    purpose: SecondFactorPurpose;
    verifiedAt?: number;
    user?: { branch?: string };
    target?: ModelContext['target'];
    check?: { passkey?: boolean; assertion?: unknown };
  };
  // 0: long ago; Infinity: the session was verified just now; none: a sign-in.
  const verified = c.verifiedAt === undefined ? 'no session' : c.verifiedAt === 0 ? 'long ago' : 'fresh at start';
  return { purpose: c.purpose, verified, user: c.user, target: c.target, passkey: c.check?.passkey === true, asked: c.check?.assertion !== undefined };
}

/** The events worth trying in a snapshot: only what the world can really produce there. */
function eventsFor(snapshot: AnyMachineSnapshot): AnyEventObject[] {
  const value = snapshot.value as string;
  if (value === 'idle') return starts;
  if (value === 'assessing') {
    const asked = branchOfStart(snapshot);
    return (asked ? assessedFor[asked] : []).map((b) => assessed[b]);
  }
  return outcomes(value, modelContext(snapshot));
}

/** Which request started the machine, recovered from what START put in the context (while assessing). */
function branchOfStart(snapshot: AnyMachineSnapshot): string | undefined {
  const c = snapshot.context as { purpose: SecondFactorPurpose; verifiedAt?: number; target?: { id?: string } };
  return starts.find((s) => s.purpose === c.purpose && s.verifiedAt === c.verifiedAt && s.factorId === c.target?.id)?.branch;
}

// The model decides the one guard that reads the clock against a pending check (its expiry) by the event's branch,
// as the world decides it by moving the clock past the expiry before the request.
// Typed loosely: the model's events carry branches and stand-in outputs.
const modelMachine: AnyStateMachine = secondFactorMachine.provide({ guards: { pendingExpired: ({ event }) => (event as unknown as Labelled).branch === S.late } });

/** What tells two snapshots apart: the state and what guards read, not the page shown, the code or the check's id. */
function stateKey(snapshot: AnyMachineSnapshot): string {
  const { purpose, verified, user, target, passkey, asked } = modelContext(snapshot);
  const c = snapshot.context as { check?: { enrolling?: string }; userId: string; method?: string; changed?: boolean };
  return JSON.stringify({ value: snapshot.value, purpose, verified, user: user?.branch, target, userId: c.userId, enrolling: c.check?.enrolling, passkey, asked, method: c.method, changed: c.changed });
}

const input = { deps: {}, callbackUrl: 'model' };

/**
 * The paths to play. A path that ends in a state that neither waits nor ends (a second way into a state another
 * path went on from) is played on to where the real machine stops, each further step the state's first answer.
 */
export function secondFactorPaths(): ModelPath[] {
  return modelPaths(modelMachine, { events: eventsFor, stateKey, input }).map(playedOn);
}

function playedOn(path: ModelPath): ModelPath {
  let [snapshot] = initialTransition(modelMachine, input);
  for (const event of path.events) [snapshot] = transition(modelMachine, snapshot, event);
  const more: AnyEventObject[] = [];
  // A failure is a final child of `failed`: the machine itself stays active, the runtime ends the run there.
  while (snapshot.status === 'active' && !snapshot.hasTag(AWAITING) && !leaf(snapshot.value).startsWith('failed.')) {
    const next = eventsFor(snapshot)[0];
    if (!next) throw new Error(`the model has no answer in ${JSON.stringify(snapshot.value)}`);
    more.push(next);
    [snapshot] = transition(modelMachine, snapshot, next);
  }
  if (more.length === 0) return path;
  const finalState = leaf(snapshot.value);
  const then = more.map((e) => e.type.replace(/^xstate\.done\.actor\./, 'done: ')).join(' → ');
  return { events: [...path.events, ...more], finalState, description: `${path.description.replace(/^reaches \S+:/, `reaches ${finalState}:`)} → ${then}` };
}

const leaf = (value: StateValue): string => (typeof value === 'string' ? value : Object.entries(value).map(([k, v]) => `${k}.${leaf(v as StateValue)}`).join(','));

/**
 * The branch each actor took on a path, by actor name, and by event type for the requests (START, SUBMIT_CODE,
 * PASSKEY_OPTIONS, SUBMIT_PASSKEY): the last one of each.
 */
export function branchesOf(path: ModelPath): Record<string, string> {
  const out: Record<string, string> = {};
  for (const event of path.events as Labelled[]) {
    const actor = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(event.type)?.[1];
    out[actor ?? event.type] = event.branch;
  }
  return out;
}

/** The events a browser sends (one request each); the rest are the actors' answers within a request. */
export const REQUESTS = new Set(['START', 'SUBMIT_CODE', 'PASSKEY_OPTIONS', 'SUBMIT_PASSKEY']);

/** Every branch the model offers, to check that some path takes each. */
export const allBranches = [
  ...starts.map((s) => s.branch),
  ...Object.values(L),
  ...Object.values(S),
  NOT_OFFERED,
  ...Object.values(C),
  ...Object.values(O),
  ...Object.values(P),
  ...Object.values(E),
  ...Object.values(G),
  ...Object.values(D),
];
