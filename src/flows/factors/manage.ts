// A signed-in user's factors as a flow: enrol an authenticator app (active only once a first code confirms it), a new
// set of backup codes, removing a factor, and the step-up check (requireRecentSignIn) that sends them back where they
// were. Anything that changes factors of a user who has one needs a fresh factor check first (removal: always).
// Entered from {basePath}/factors/*; paused in its own flow cookie like the sign-in tail's stage.
import { randomUUID } from 'node:crypto';
import { assign, emit, fromPromise, setup } from 'xstate';
import type { AuthMethod, User } from '../../core/types.js';
import { AWAITING, defineFlow, type FlowFormPage, type FlowResponse, finalOutput } from '../runtime/contract.js';
import { signInFlow } from '../signin/machine.js';
import { doneOutput as output, recordFailure, type FailureEvidence } from '../runtime/context.js';
import { endOtherSessions, hasActiveFactor, loadFactorAccount, recordFactorCheck, removeFactor, replaceBackupCodes, type FactorAccount } from './account.js';
import { activateFactor, checkFactorCode, codePage, enrolmentPageFor, FACTOR_TTL_MS, startTotpEnrolment, type CodeCheck, type StageDeps } from './steps.js';

/** What the user asked for. */
export type FactorOperation = 'enrolTotp' | 'backupCodes' | 'remove' | 'verify';

/** How long a factor check counts as fresh for changing factors without typing another code. */
export const FRESH_CHECK_MS = 5 * 60_000;

export interface FactorsContext {
  deps: StageDeps;
  /** Where the browser goes when the flow is done (validated by the route). */
  callbackUrl: string;
  op: FactorOperation;
  /** The signed-in user this flow is for; every later request must come from the same user's session. */
  userId: string;
  /** When the session was last verified (ms), as the route read it. */
  verifiedAt?: number;
  /** `remove`: the factor named; after loading, what to delete. */
  target?: { id?: string; kind?: 'totp' | 'backup' };
  user?: User;
  /** The pending check: attempts are counted under its id; `enrolling` is the authenticator app being confirmed. */
  check?: { challengeId: string; expiresAt: number; enrolling?: string };
  /** The typed code, within one request only. */
  code?: string;
  failure?: FailureEvidence;
  response?: FlowResponse;
}

/** What the flow ends with: back to `redirect`, a new set of backup codes to show once, or a full sign-in. */
export type FactorsOutput =
  | { outcome: 'done'; redirect: string }
  | { outcome: 'codes'; codes: string[]; redirect: string }
  | { outcome: 'signIn'; redirect: string };

type Emitted =
  | { type: 'factorEnrolled'; user: User; factor: { id: string; kind: 'totp' | 'backup' } }
  | { type: 'factorRemoved'; user: User; factor: { id?: string; kind: string } }
  | { type: 'secondFactorFailed'; user: User; attempts: number; locked: boolean };

type Events =
  | { type: 'START'; op: FactorOperation; userId: string; verifiedAt?: number; factorId?: string }
  | { type: 'SUBMIT_CODE'; code: string; userId: string };

const WRONG = 'That code did not match. Try again.';

/** A state that waits for a typed code (sealed in the cookie meanwhile), then goes on to `next` to check it. */
function awaitingCode<T extends string>(next: T) {
  return {
    tags: [AWAITING],
    entry: 'forgetCode' as const,
    on: {
      SUBMIT_CODE: [
        { guard: 'otherUser' as const, target: 'failed.accessDenied', actions: 'recordOtherUser' as const },
        { guard: 'pendingExpired' as const, target: 'failed.secondFactor', actions: 'recordExpiry' as const },
        { target: next, actions: 'recordCode' as const },
      ],
    },
  };
}

export const factorsMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as FactorsContext,
    events: {} as Events,
    input: {} as { deps: StageDeps; callbackUrl: string },
    emitted: {} as Emitted,
    output: {} as FactorsOutput,
  },
  actors: {
    loadAccount: fromPromise<FactorAccount, { deps: StageDeps; userId: string }>(({ input }) => loadFactorAccount(input.deps, input.userId)),
    checkFactorCode: fromPromise<CodeCheck, { deps: StageDeps; userId: string; challengeId: string; expiresAt: number; code: string; enrolling?: string }>(
      ({ input: { deps, ...params } }) => checkFactorCode(deps, params),
    ),
    recordCheck: fromPromise<void, { deps: StageDeps; method: AuthMethod }>(({ input }) => recordFactorCheck(input.deps, input.method)),
    startEnrolment: fromPromise<{ factorId: string; page: FlowFormPage }, { deps: StageDeps; user: User }>(({ input }) => startTotpEnrolment(input.deps, input.user)),
    enrolmentPage: fromPromise<FlowFormPage, { deps: StageDeps; user: User; factorId: string }>(({ input }) =>
      enrolmentPageFor(input.deps, input.user, input.factorId, 'That code did not match. Check the time on your phone and try the next code.'),
    ),
    // Confirming an app with a code it shows is a factor check too: the session counts as freshly verified.
    activateFactor: fromPromise<void, { deps: StageDeps; userId: string; factorId: string }>(async ({ input }) => {
      await activateFactor(input.deps, input.userId, input.factorId);
      await recordFactorCheck(input.deps, 'otp');
      // A factor changed: whoever else holds a session of this user is signed out (here after the check is recorded).
      await endOtherSessions(input.deps);
    }),
    replaceBackupCodes: fromPromise<string[], { deps: StageDeps; userId: string }>(async ({ input }) => {
      const codes = await replaceBackupCodes(input.deps, input.userId);
      await endOtherSessions(input.deps);
      return codes;
    }),
    removeFactor: fromPromise<boolean, { deps: StageDeps; userId: string; target: { id?: string; kind?: 'totp' | 'backup' } }>(async ({ input }) => {
      const removed = await removeFactor(input.deps, input.userId, input.target);
      if (removed) await endOtherSessions(input.deps);
      return removed;
    }),
  },
  guards: {
    // Every request of a paused flow comes from the session that started it (a sealed cookie carried into another
    // user's browser, or kept across a sign-out, is refused).
    otherUser: ({ context, event }) => (event as { userId?: string }).userId !== context.userId,
    pendingExpired: ({ context }) => Date.now() >= (context.check?.expiresAt ?? 0),
    stepUpWithoutFactor: ({ context, event }) => context.op === 'verify' && !hasActiveFactor(output<FactorAccount>(event)),
    unknownTarget: ({ context, event }) => context.op === 'remove' && !output<FactorAccount>(event).factors.some((f) => f.id === context.target?.id),
    // Step-up and removal always ask for a code; other changes when the last check is not fresh.
    checkNeeded: ({ context, event }) =>
      hasActiveFactor(output<FactorAccount>(event)) &&
      (context.op === 'verify' || context.op === 'remove' || context.verifiedAt === undefined || Date.now() - context.verifiedAt > FRESH_CHECK_MS),
    codePassed: ({ event }) => output<CodeCheck>(event).result === 'passed',
    codeLocked: ({ event }) => output<CodeCheck>(event).result === 'locked',
    opIs: ({ context }, params: { op: FactorOperation }) => context.op === params.op,
  },
  actions: {
    recordError: assign(recordFailure),
    recordStart: assign(({ event }) => {
      const e = event as Extract<Events, { type: 'START' }>;
      return { op: e.op, userId: e.userId, verifiedAt: e.verifiedAt, ...(e.factorId ? { target: { id: e.factorId } } : {}) };
    }),
    recordAccount: assign(({ context, event }) => {
      const account = output<FactorAccount>(event);
      const factor = account.factors.find((f) => f.id === context.target?.id);
      // A backup code is removed as a set: one left alone would still sign in.
      return { user: account.user, ...(factor ? { target: factor.kind === 'backup' ? { kind: 'backup' as const } : { id: factor.id, kind: 'totp' as const } } : {}) };
    }),
    openCheck: assign({ check: () => ({ challengeId: randomUUID(), expiresAt: Date.now() + FACTOR_TTL_MS }) }),
    askForCode: assign({ response: (_, params: { error?: string }) => ({ kind: 'page' as const, page: 'form' as const, data: { ...codePage(params?.error), title: 'Confirm it is you' } }) }),
    showPage: assign({ response: ({ event }) => ({ kind: 'page' as const, page: 'form' as const, data: output<FlowFormPage>(event) }) }),
    recordCode: assign({ code: ({ event }) => (event as { code?: string }).code ?? '' }),
    forgetCode: assign({ code: undefined }),
    recordOtherUser: assign({ failure: ({ context, event }) => ({ message: 'The factor flow belongs to another session.', expected: context.userId, actual: (event as { userId?: string }).userId ?? null }) }),
    recordExpiry: assign({ failure: () => ({ message: 'The factor check expired.', expected: 'a check within 10 minutes', actual: 'expired' }) }),
    recordLock: assign({ failure: () => ({ message: 'Too many wrong codes at the factor check.' }) }),
    recordUnknown: assign({ failure: ({ context }) => ({ message: 'The user has no such factor.', actual: context.target?.id ?? null }) }),
    emitFailure: emit(({ context, event }) => {
      const check = output<CodeCheck>(event) as { result: 'wrong' | 'locked'; attempts: number };
      return { type: 'secondFactorFailed' as const, user: context.user as User, attempts: check.attempts, locked: check.result === 'locked' };
    }),
  },
}).createMachine({
  id: 'factors',
  initial: 'idle',
  context: ({ input }) => ({ deps: input.deps, callbackUrl: input.callbackUrl, op: 'verify', userId: '' }),
  output: finalOutput<FactorsOutput>,
  states: {
    idle: { on: { START: { target: 'loading', actions: 'recordStart' } } },
    loading: {
      invoke: {
        id: 'loadAccount',
        src: 'loadAccount',
        input: ({ context }) => ({ deps: context.deps, userId: context.userId }),
        onDone: [
          { guard: 'unknownTarget', target: 'failed.invalidRequest', actions: 'recordUnknown' },
          // Step-up without a factor to check: a full sign-in instead.
          { guard: 'stepUpWithoutFactor', target: 'signInRequired', actions: 'recordAccount' },
          { guard: 'checkNeeded', target: 'awaitingCheck', actions: ['recordAccount', 'openCheck', { type: 'askForCode', params: {} }] },
          { target: 'choosing', actions: 'recordAccount' },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    awaitingCheck: awaitingCode('verifyingCode'),
    verifyingCode: {
      invoke: {
        id: 'checkFactorCode',
        src: 'checkFactorCode',
        input: ({ context }) => ({ deps: context.deps, userId: context.userId, challengeId: context.check!.challengeId, expiresAt: context.check!.expiresAt, code: context.code ?? '' }),
        onDone: [
          { guard: 'codePassed', target: 'recordingCheck' },
          { guard: 'codeLocked', target: 'failed.secondFactor', actions: ['emitFailure', 'recordLock'] },
          { target: 'awaitingCheck', actions: ['emitFailure', { type: 'askForCode', params: { error: WRONG } }] },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    recordingCheck: {
      invoke: {
        id: 'recordCheck',
        src: 'recordCheck',
        input: ({ context }) => ({ deps: context.deps, method: 'otp' as const }),
        onDone: { target: 'choosing', actions: assign({ verifiedAt: () => Date.now() }) },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    choosing: {
      always: [
        { guard: { type: 'opIs', params: { op: 'enrolTotp' } }, target: 'enrolling', actions: 'openCheck' },
        { guard: { type: 'opIs', params: { op: 'backupCodes' } }, target: 'generatingCodes' },
        { guard: { type: 'opIs', params: { op: 'remove' } }, target: 'removing' },
        { target: 'done' },
      ],
    },
    enrolling: {
      invoke: {
        id: 'startEnrolment',
        src: 'startEnrolment',
        input: ({ context }) => ({ deps: context.deps, user: context.user! }),
        onDone: {
          target: 'awaitingEnrolment',
          actions: [assign({ check: ({ context, event }) => ({ ...context.check!, enrolling: event.output.factorId }) }), assign({ response: ({ event }) => ({ kind: 'page' as const, page: 'form' as const, data: event.output.page }) })],
        },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    awaitingEnrolment: awaitingCode('confirmingEnrolment'),
    confirmingEnrolment: {
      invoke: {
        id: 'confirmEnrolment',
        src: 'checkFactorCode',
        input: ({ context }) => ({
          deps: context.deps,
          userId: context.userId,
          challengeId: context.check!.challengeId,
          expiresAt: context.check!.expiresAt,
          code: context.code ?? '',
          enrolling: context.check!.enrolling,
        }),
        onDone: [
          { guard: 'codePassed', target: 'activatingFactor' },
          { guard: 'codeLocked', target: 'failed.secondFactor', actions: ['emitFailure', 'recordLock'] },
          { target: 'showingEnrolmentAgain', actions: 'emitFailure' },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    showingEnrolmentAgain: {
      invoke: {
        id: 'enrolmentPage',
        src: 'enrolmentPage',
        input: ({ context }) => ({ deps: context.deps, user: context.user!, factorId: context.check!.enrolling! }),
        onDone: { target: 'awaitingEnrolment', actions: 'showPage' },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    activatingFactor: {
      invoke: {
        id: 'activateFactor',
        src: 'activateFactor',
        input: ({ context }) => ({ deps: context.deps, userId: context.userId, factorId: context.check!.enrolling! }),
        onDone: {
          target: 'done',
          actions: emit(({ context }) => ({ type: 'factorEnrolled' as const, user: context.user!, factor: { id: context.check!.enrolling!, kind: 'totp' as const } })),
        },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    generatingCodes: {
      invoke: {
        id: 'replaceBackupCodes',
        src: 'replaceBackupCodes',
        input: ({ context }) => ({ deps: context.deps, userId: context.userId }),
        onDone: {
          target: 'showingCodes',
          actions: emit(({ context }) => ({ type: 'factorEnrolled' as const, user: context.user!, factor: { id: 'backup', kind: 'backup' as const } })),
        },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    removing: {
      invoke: {
        id: 'removeFactor',
        src: 'removeFactor',
        input: ({ context }) => ({ deps: context.deps, userId: context.userId, target: context.target ?? {} }),
        onDone: {
          target: 'done',
          actions: emit(({ context }) => ({ type: 'factorRemoved' as const, user: context.user!, factor: { ...(context.target?.id ? { id: context.target.id } : {}), kind: context.target?.kind ?? 'totp' } })),
        },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    // The codes are in the final state's output only: shown once, never sealed in a cookie.
    showingCodes: { type: 'final', output: ({ event, context }) => ({ outcome: 'codes' as const, codes: output<string[]>(event), redirect: context.callbackUrl }) },
    done: { type: 'final', output: ({ context }) => ({ outcome: 'done' as const, redirect: context.callbackUrl }) },
    signInRequired: { type: 'final', output: ({ context }) => ({ outcome: 'signIn' as const, redirect: context.callbackUrl }) },
    failed: {
      initial: 'callbackRoute',
      states: {
        accessDenied: { type: 'final', meta: { error: 'AccessDenied' } },
        secondFactor: { type: 'final', meta: { error: 'SecondFactorFailed' } },
        invalidRequest: { type: 'final', meta: { error: 'InvalidRequest' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

/**
 * The factor flow on the public contract. Started by its routes (`START`), and resumed only by the code form
 * (`POST {basePath}/factors/code`, CSRF-checked) with the typed `code` and the id of the session's user.
 */
export const factorsFlow = /* @__PURE__ */ defineFlow({
  machine: factorsMachine,
  version: 1,
  csrf: ['callback'],
  // The same code form as the sign-in stage's; the route adds the session's user to the event.
  entry: (route, deps, paused) => signInFlow.entry(route, deps, paused),
});
