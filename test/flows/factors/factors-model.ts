// The model of the signed-in factor flow (flows/factors/manage.ts) for its model-based test: what the user asks
// for, what each actor can answer, each answer labelled with the branch of the world (factors-world.ts) that makes
// the real actor answer so; and the paths through `factorsMachine` those answers give.
import { initialTransition, transition, type AnyEventObject, type AnyMachineSnapshot, type AnyStateMachine, type StateValue } from 'xstate';
import { AdapterError } from '../../../src/core/errors.js';
import { factorsMachine, type FactorOperation } from '../../../src/flows/factors/manage.js';
import { AWAITING } from '../../../src/flows/runtime/contract.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';

/** An event the model sends, labelled with the branch of the world that produces it for real. */
export type Outcome = AnyEventObject & { branch: string };
const done = (actor: string, branch: string, output: unknown): Outcome => ({ type: `xstate.done.actor.${actor}`, branch, output });
const failed = (actor: string, branch: string, error: Error): Outcome => ({ type: `xstate.error.actor.${actor}`, branch, error });

/** What the signed-in user asks for (the route they use), and how long ago their session was last verified. */
export const A = {
  enrol: 'add an authenticator app, signed in just now',
  enrolStale: 'add an authenticator app, signed in 6 minutes ago',
  codes: 'new backup codes, signed in just now',
  codesStale: 'new backup codes, signed in 6 minutes ago',
  removeApp: 'remove the authenticator app',
  removeCodes: 'remove the backup codes',
  removeStranger: 'remove a factor of another user',
  stepUp: 'confirm it is you (step-up)',
} as const;

export const MODEL_USER = 'model-user';
/** The model's factor ids; the world maps them to the rows it stored. */
export const IDS = { app: 'app', backup: 'backup', stranger: 'stranger' } as const;

// The clock is read by `checkNeeded` (is the last check fresh?): 0 is long ago, Infinity is now as far as it knows.
const start = (branch: string, op: FactorOperation, fresh: boolean, factorId?: string): Outcome => ({
  type: 'START',
  op,
  userId: MODEL_USER,
  verifiedAt: fresh ? Number.POSITIVE_INFINITY : 0,
  ...(factorId ? { factorId } : {}),
  branch,
});
export const starts: Outcome[] = [
  start(A.enrol, 'enrolTotp', true),
  start(A.enrolStale, 'enrolTotp', false),
  start(A.codes, 'backupCodes', true),
  start(A.codesStale, 'backupCodes', false),
  start(A.removeApp, 'remove', false, IDS.app),
  start(A.removeCodes, 'remove', false, IDS.backup),
  start(A.removeStranger, 'remove', false, IDS.stranger),
  start(A.stepUp, 'verify', true),
];

/** loadAccount's answers: the user's factors as the world stored them, or the database failing to list them. */
export const L = {
  none: 'no factors yet',
  app: 'an active authenticator app',
  appAndCodes: 'an active authenticator app and backup codes',
  fails: 'the database cannot list the factors',
} as const;
const at = new Date(0).toISOString();
const app = { id: IDS.app, kind: 'totp', label: 'App', createdAt: at, activatedAt: at };
const code = { id: IDS.backup, kind: 'backup', label: null, createdAt: at, activatedAt: at };
const account = (branch: string, factors: unknown[]) => done('loadAccount', branch, { user: { id: MODEL_USER, email: 'model@example.com', branch }, factors });
const accounts: Record<string, Outcome> = {
  [L.none]: account(L.none, []),
  [L.app]: account(L.app, [app]),
  [L.appAndCodes]: account(L.appAndCodes, [app, code]),
  [L.fails]: failed('loadAccount', L.fails, new AdapterError('listFactors')),
};
/** What each request finds stored: the fresh enrolment with and without an app (and a failing list), one set per other. */
const accountsFor: Record<string, string[]> = {
  [A.enrol]: [L.none, L.app, L.fails],
  [A.enrolStale]: [L.app],
  [A.codes]: [L.app],
  [A.codesStale]: [L.appAndCodes],
  [A.removeApp]: [L.appAndCodes],
  [A.removeCodes]: [L.appAndCodes],
  [A.removeStranger]: [L.appAndCodes],
  [A.stepUp]: [L.none, L.appAndCodes],
};

/** The code form posted to a paused flow: in time by its own session, too late, or from another user's session. */
export const S = { inTime: 'within 10 minutes', late: 'after 10 minutes', other: 'from another user’s session' } as const;
const submit = (branch: string): Outcome => ({ type: 'SUBMIT_CODE', code: '', userId: branch === S.other ? 'someone-else' : MODEL_USER, branch });

/** checkFactorCode's answers at the factor check. */
export const C = {
  otp: 'the current app code',
  backup: 'an unused backup code',
  wrong: 'a wrong code',
  locked: 'a wrong code, the last attempt allowed',
  fails: 'the database refuses to spend the step',
} as const;
/** recordCheck's answers. */
export const K = { recorded: 'the session records the check', fails: 'the database refuses the session update' } as const;
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

/**
 * The answers per state. Every branch of the check is driven on the step-up, every branch of the enrolment on an
 * app added fresh with nothing to check, and each change's failure once; elsewhere the way through (the same
 * states and guards, reached with another operation).
 */
function outcomes(state: string, context: ModelContext): Outcome[] {
  const stepUp = context.op === 'verify';
  const enrolFull = context.op === 'enrolTotp' && context.user?.branch === L.none;
  const all: Record<string, Outcome[]> = {
    awaitingCheck: stepUp ? [submit(S.inTime), submit(S.late), submit(S.other)] : [submit(S.inTime)],
    verifyingCode: stepUp
      ? [
          done('checkFactorCode', C.otp, { result: 'passed', method: 'otp' }),
          done('checkFactorCode', C.backup, { result: 'passed', method: 'backup' }),
          done('checkFactorCode', C.wrong, { result: 'wrong', attempts: 1 }),
          done('checkFactorCode', C.locked, { result: 'locked', attempts: 1 }),
          failed('checkFactorCode', C.fails, new AdapterError('advanceFactorStep')),
        ]
      : [done('checkFactorCode', C.otp, { result: 'passed', method: 'otp' })],
    recordingCheck: stepUp ? [done('recordCheck', K.recorded, undefined), failed('recordCheck', K.fails, new AdapterError('updateSession'))] : [done('recordCheck', K.recorded, undefined)],
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
    generatingCodes: [done('replaceBackupCodes', G.generated, undefined), ...(context.verified === 'fresh at start' ? [failed('replaceBackupCodes', G.fails, new AdapterError('deleteFactors'))] : [])],
    removing: [done('removeFactor', D.removed, true), ...(context.target?.kind === 'totp' ? [failed('removeFactor', D.fails, new AdapterError('deleteFactors'))] : [])],
  };
  return all[state] ?? [];
}

interface ModelContext {
  op: FactorOperation;
  verified: 'long ago' | 'fresh at start' | 'checked here';
  user?: { branch?: string };
  target?: { id?: string; kind?: string };
}

function modelContext(snapshot: AnyMachineSnapshot): ModelContext {
  const c = snapshot.context as { op: FactorOperation; verifiedAt?: number; user?: { branch?: string }; target?: ModelContext['target'] };
  // 0: long ago; Infinity: the session was verified just now; a time: the check this flow recorded.
  const verified = c.verifiedAt === 0 ? 'long ago' : c.verifiedAt === Number.POSITIVE_INFINITY ? 'fresh at start' : 'checked here';
  return { op: c.op, verified, user: c.user, target: c.target };
}

/** The events worth trying in a snapshot: only what the world can really produce there. */
function eventsFor(snapshot: AnyMachineSnapshot): AnyEventObject[] {
  const state = snapshot.value as string;
  if (state === 'idle') return starts;
  if (state === 'loading') {
    const asked = branchOfStart(snapshot);
    return (asked ? accountsFor[asked] : []).map((b) => accounts[b]);
  }
  return outcomes(state, modelContext(snapshot));
}

/** Which request started the flow, recovered from what START put in the context (while loading). */
function branchOfStart(snapshot: AnyMachineSnapshot): string | undefined {
  const c = snapshot.context as { op: FactorOperation; verifiedAt?: number; target?: { id?: string } };
  return starts.find((s) => s.op === c.op && s.verifiedAt === c.verifiedAt && s.factorId === c.target?.id)?.branch;
}

// The model decides the one guard that reads the clock against a pending check (its expiry) by the event's branch,
// as the world decides it by moving the clock past the expiry before posting the code.
// Typed loosely: the model's events carry branches and stand-in outputs.
const modelMachine: AnyStateMachine = factorsMachine.provide({ guards: { pendingExpired: ({ event }) => (event as unknown as Outcome).branch === S.late } });

/** What tells two snapshots apart: the state and what guards read, not the page shown, the code or the check's id. */
function stateKey(snapshot: AnyMachineSnapshot): string {
  const { op, verified, user, target } = modelContext(snapshot);
  const c = snapshot.context as { check?: { enrolling?: string }; userId: string };
  return JSON.stringify({ value: snapshot.value, op, verified, user: user?.branch, target, userId: c.userId, enrolling: c.check?.enrolling });
}

const input = { deps: {}, callbackUrl: 'model' };

/**
 * The paths to play. A path that ends in a state that neither waits nor ends (a second way into a state another
 * path went on from) is played on to where the real flow stops, each further step the state's first answer.
 */
export function factorPaths(): ModelPath[] {
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

/** The branch each actor took on a path, by actor name, and by event type for the requests (START, SUBMIT_CODE). */
export function branchesOf(path: ModelPath): Record<string, string> {
  const out: Record<string, string> = {};
  for (const event of path.events as Outcome[]) {
    const actor = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(event.type)?.[1];
    out[actor ?? event.type] = event.branch;
  }
  return out;
}

/** Every branch the model offers, to check that some path takes each. */
export const allBranches = [...starts.map((s) => s.branch), ...Object.values(L), ...Object.values(S), ...Object.values(C), ...Object.values(K), ...Object.values(E), ...Object.values(G), ...Object.values(D)];
