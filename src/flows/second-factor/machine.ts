// Assurance: the one machine that raises a user toward two factors, in the manner of Ory Kratos's AAL. It checks an
// active factor (a code, a backup code or a passkey), or enrols an authenticator app, and changes the user's factors
// (new backup codes, removing one) behind a fresh check. The runtime starts it after the sign-in tail when the
// configuration has second factors (`signIn`), and the factor routes start it for a signed-in user (`stepUp`,
// `enrolTotp`, `backupCodes`, `remove`). It never writes a session: its output says what passed, and the runtime
// (sign-in) or the session gate (a signed-in user) records it.
import { randomUUID } from 'node:crypto';
import { assign, emit, fromPromise, setup } from 'xstate';
import type { Account, User } from '../../core/types.js';
import { AWAITING, type FlowDeps, type FlowFormPage, type FlowResponse, type FlowText, finalOutput } from '../runtime/contract.js';
import { defineStage, type FactorMethod, type StageOutput, type StagePurpose, type StageStart } from '../runtime/stage.js';
import type { SessionLevel } from '../../session/gate.js';
import { doneOutput as output, errorIs, recordFailure, type FailureEvidence } from '../runtime/context.js';
import { hasActiveFactor, removeFactor, replaceBackupCodes } from './account.js';
import { checkPasskeyFactor, passkeyAssertionOptions, type PendingAssertion } from './passkey.js';
import { credentialOf } from '../webauthn/steps.js';
import { assessFactors, type FactorState } from './assess.js';
import { activateFactor, checkFactorCode, codePage, enrolmentPageFor, FACTOR_TTL_MS, startTotpEnrolment, type CodeCheck } from './steps.js';

/** Why the machine runs: a sign-in that may need a second factor, or a signed-in user's request. */
export type SecondFactorPurpose = StagePurpose;

export type { FactorMethod };

/** How long a factor check counts as fresh for changing factors without typing another code. */
export const FRESH_CHECK_MS = 5 * 60_000;

/** What the machine starts with. */
export interface SecondFactorInput {
  deps: Pick<FlowDeps, 'req'>;
  callbackUrl: string;
}

/** The request that starts the machine (the stage contract's start). */
export type SecondFactorStart = StageStart;

/** What the browser sends to a paused machine; a signed-in user's requests carry the session's user id. */
type Answer =
  | { type: 'SUBMIT_CODE'; code: string; userId?: string }
  | { type: 'PASSKEY_OPTIONS'; userId?: string }
  | { type: 'SUBMIT_PASSKEY'; credential: unknown; userId?: string };

export interface SecondFactorContext {
  deps: Pick<FlowDeps, 'req'>;
  callbackUrl: string;
  purpose: SecondFactorPurpose;
  userId: string;
  user?: User;
  account?: Account;
  verifiedAt?: number;
  level?: SessionLevel;
  /** `remove`: the factor named; once loaded, what to delete (a backup code goes as the whole set). */
  target?: { id?: string; kind?: 'totp' | 'backup' };
  /**
   * The pending check: its id (attempts are counted under it in the database, never in the cookie), expiry, the
   * factor being enrolled, whether a passkey is offered and the assertion last asked for.
   */
  check?: { challengeId: string; expiresAt: number; enrolling?: string; passkey?: boolean; assertion?: PendingAssertion };
  /** How the check passed. */
  method?: FactorMethod;
  /** What changed: the user's factors (the other sessions end). */
  changed?: boolean;
  /** The typed code or the passkey assertion, within one request only (cleared before any pause). */
  code?: string;
  credential?: unknown;
  failure?: FailureEvidence;
  response?: FlowResponse;
}

/** How the machine ends well (the stage contract's output). */
export type SecondFactorOutput = StageOutput;

type Emitted =
  | { type: 'factorEnrolled'; user: User; factor: { id: string; kind: 'totp' | 'backup' } }
  | { type: 'factorRemoved'; user: User; factor: { id?: string; kind: string } }
  | { type: 'secondFactorFailed'; user: User; attempts: number; locked: boolean };

// What the pages say, by message id (shown in the reader's language).
const WRONG_PASSKEY = { message: 'factor.check.wrongPasskey' } as const;
const WRONG_FIRST_CODE = { message: 'factor.enrol.wrongCode' } as const;

/** The purposes that always ask for a check when the user has a factor; the others only when the last one is stale. */
const ALWAYS_CHECKED: ReadonlySet<SecondFactorPurpose> = new Set(['signIn', 'stepUp', 'remove']);

/** How long (ms) a verification counts as fresh for this request's level. */
const freshFor = (level: SessionLevel | undefined) => (level?.maxAge !== undefined ? Math.min(level.maxAge * 1000, FRESH_CHECK_MS) : FRESH_CHECK_MS);

const stateOf = (event: unknown) => output<FactorState>(event);

/** An answer to a paused check: refused from another user's session, dead when late, else on to `then`. */
function answer<T extends string, A extends string>(then: T, action: A) {
  return [
    { guard: 'otherUser' as const, target: 'failed.accessDenied', actions: 'recordOtherUser' as const },
    { guard: 'pendingExpired' as const, target: 'failed.expired', actions: 'recordExpiry' as const },
    { target: then, actions: action },
  ];
}

/** What every check of an answer works on: the user and the pending check (its attempts are counted under its id). */
function pendingCheck(context: SecondFactorContext) {
  return { deps: context.deps, userId: context.userId, challengeId: context.check!.challengeId, expiresAt: context.check!.expiresAt };
}

export const secondFactorMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as SecondFactorContext,
    events: {} as SecondFactorStart | Answer,
    input: {} as SecondFactorInput,
    emitted: {} as Emitted,
    output: {} as SecondFactorOutput,
  },
  actors: {
    assess: fromPromise<FactorState, { deps: Pick<FlowDeps, 'req'>; purpose: SecondFactorPurpose; userId: string; user?: User; account?: Account }>(({ input: { deps, ...params } }) =>
      assessFactors(deps, params),
    ),
    checkFactorCode: fromPromise<CodeCheck, { deps: Pick<FlowDeps, 'req'>; userId: string; challengeId: string; expiresAt: number; code: string; enrolling?: string }>(
      ({ input: { deps, ...params } }) => checkFactorCode(deps, params),
    ),
    passkeyOptions: fromPromise<{ options: unknown } & PendingAssertion, { deps: Pick<FlowDeps, 'req'>; userId: string }>(({ input }) => passkeyAssertionOptions(input.deps, input.userId)),
    checkPasskey: fromPromise<CodeCheck, { deps: Pick<FlowDeps, 'req'>; userId: string; challengeId: string; expiresAt: number; credential: unknown; assertion?: PendingAssertion }>(
      ({ input: { deps, ...params } }) => checkPasskeyFactor(deps, params),
    ),
    startEnrolment: fromPromise<{ factorId: string; page: FlowFormPage }, { deps: Pick<FlowDeps, 'req'>; user: User }>(({ input }) => startTotpEnrolment(input.deps, input.user)),
    enrolmentPage: fromPromise<FlowFormPage, { deps: Pick<FlowDeps, 'req'>; user: User; factorId: string }>(({ input }) => enrolmentPageFor(input.deps, input.user, input.factorId, WRONG_FIRST_CODE)),
    activateFactor: fromPromise<void, { deps: Pick<FlowDeps, 'req'>; userId: string; factorId: string }>(({ input }) => activateFactor(input.deps, input.userId, input.factorId)),
    replaceBackupCodes: fromPromise<string[], { deps: Pick<FlowDeps, 'req'>; userId: string }>(({ input }) => replaceBackupCodes(input.deps, input.userId)),
    removeFactor: fromPromise<boolean, { deps: Pick<FlowDeps, 'req'>; userId: string; target: { id?: string; kind?: 'totp' | 'backup' } }>(({ input }) => removeFactor(input.deps, input.userId, input.target)),
  },
  guards: {
    errorIs,
    // A signed-in user's paused request is answered only from the session that started it (a sealed cookie carried
    // into another user's browser, or kept across a sign-out, is refused). A sign-in has no session yet.
    otherUser: ({ context, event }) => context.purpose !== 'signIn' && (event as { userId?: string }).userId !== context.userId,
    pendingExpired: ({ context }) => Date.now() >= (context.check?.expiresAt ?? 0),
    unknownTarget: ({ context, event }) => context.purpose === 'remove' && !stateOf(event).factors.some((f) => f.id === context.target?.id),
    stepUpWithoutFactor: ({ context, event }) => context.purpose === 'stepUp' && !hasActiveFactor(stateOf(event)),
    mustCheck: ({ context, event }) =>
      hasActiveFactor(stateOf(event)) && (ALWAYS_CHECKED.has(context.purpose) || context.verifiedAt === undefined || Date.now() - context.verifiedAt > freshFor(context.level)),
    mustEnrol: ({ context, event }) => context.purpose === 'signIn' && stateOf(event).required,
    passkeyOffered: ({ context }) => context.check?.passkey === true,
    codePassed: ({ event }) => output<CodeCheck>(event).result === 'passed',
    codeLocked: ({ event }) => output<CodeCheck>(event).result === 'locked',
    purposeIs: ({ context }, params: { purpose: SecondFactorPurpose }) => context.purpose === params.purpose,
  },
  actions: {
    recordError: assign(recordFailure),
    recordStart: assign(({ event }) => {
      const e = event as SecondFactorStart;
      return {
        purpose: e.purpose,
        userId: e.userId,
        ...(e.user ? { user: e.user } : {}),
        ...(e.account ? { account: e.account } : {}),
        ...(e.verifiedAt !== undefined ? { verifiedAt: e.verifiedAt } : {}),
        ...(e.level?.maxAge !== undefined ? { level: { maxAge: e.level.maxAge } } : {}),
        ...(e.factorId ? { target: { id: e.factorId } } : {}),
      };
    }),
    recordFactors: assign(({ context, event }) => {
      const state = stateOf(event);
      const factor = state.factors.find((f) => f.id === context.target?.id);
      return {
        user: state.user,
        // A backup code is removed as a set: one left alone would still sign in.
        ...(factor ? { target: factor.kind === 'backup' ? { kind: 'backup' as const } : { id: factor.id, kind: 'totp' as const } } : {}),
      };
    }),
    openCheck: assign({
      check: ({ event }) => ({ challengeId: randomUUID(), expiresAt: Date.now() + FACTOR_TTL_MS, ...(stateOf(event)?.passkey ? { passkey: true } : {}) }),
    }),
    // A wrong code: the page again, saying how many tries are left before this sign-in stops.
    askAfterWrongCode: assign({
      response: ({ context, event }) => {
        // (The model test walks the graph without a request: the default then.)
        const max = context.deps?.req?.config?.secondFactor?.maxAttempts ?? 5;
        const left = Math.max(1, max - (output<CodeCheck>(event) as { attempts: number }).attempts);
        const error: FlowText = left === 1 ? { message: 'factor.check.wrongCodeLast' } : { message: 'factor.check.wrongCodeLeft', values: { count: left } };
        return { kind: 'page' as const, page: 'form' as const, data: codePage(context.purpose, error, context.check?.passkey) };
      },
    }),
    askForCode: assign({
      response: ({ context }, params: { error?: FlowText }) => ({ kind: 'page' as const, page: 'form' as const, data: codePage(context.purpose, params?.error, context.check?.passkey) }),
    }),
    // The options go to the page's script; their challenge is sealed with the pending check (a newer one replaces it).
    offerPasskey: assign(({ context, event }) => {
      const { options, challenge, expiresAt } = output<{ options: unknown } & PendingAssertion>(event);
      return { check: { ...context.check!, assertion: { challenge, expiresAt } }, response: { kind: 'json' as const, body: { action: 'authenticate', options } } };
    }),
    refusePasskey: assign({ response: () => ({ kind: 'json' as const, status: 400, body: { error: 'InvalidRequest', message: 'This check has no passkey to verify with.' } }) }),
    showPage: assign({ response: ({ event }) => ({ kind: 'page' as const, page: 'form' as const, data: output<FlowFormPage>(event) }) }),
    showEnrolment: assign(({ context, event }) => {
      const started = output<{ factorId: string; page: FlowFormPage }>(event);
      return { check: { ...context.check!, enrolling: started.factorId }, response: { kind: 'page' as const, page: 'form' as const, data: started.page } };
    }),
    recordCode: assign({ code: ({ event }) => (event as { code?: string }).code ?? '' }),
    recordCredential: assign({ credential: ({ event }) => (event as { credential?: unknown }).credential }),
    recordMethod: assign({ method: ({ event }) => (output<CodeCheck>(event) as { method: FactorMethod }).method }),
    recordChange: assign({ changed: true }),
    // What a paused machine keeps is sealed in a cookie: never the typed code or the assertion, nor the first
    // factor's account (read by `assess` only; a sign-in's runtime carries it to the session itself).
    forgetAnswer: assign({ code: undefined, credential: undefined, account: undefined }),
    recordOtherUser: assign({ failure: ({ context, event }) => ({ message: 'The factor check belongs to another session.', expected: context.userId, actual: (event as { userId?: string }).userId ?? null }) }),
    recordExpiry: assign({ failure: () => ({ message: 'The factor check expired.', expected: 'a check within 10 minutes', actual: 'expired' }) }),
    recordLock: assign({ failure: ({ event }) => ({ message: 'Too many wrong codes at the factor check.', actual: (output<CodeCheck>(event) as { attempts: number }).attempts }) }),
    recordUnknown: assign({ failure: ({ context }) => ({ message: 'The user has no such factor.', actual: context.target?.id ?? null }) }),
    emitFailure: emit(({ context, event }) => {
      const check = output<CodeCheck>(event) as { result: 'wrong' | 'locked'; attempts: number };
      return { type: 'secondFactorFailed' as const, user: context.user as User, attempts: check.attempts, locked: check.result === 'locked' };
    }),
    emitEnrolled: emit(({ context }) => ({ type: 'factorEnrolled' as const, user: context.user as User, factor: { id: context.check!.enrolling!, kind: 'totp' as const } })),
    emitCodes: emit(({ context }) => ({ type: 'factorEnrolled' as const, user: context.user as User, factor: { id: 'backup', kind: 'backup' as const } })),
    emitRemoved: emit(({ context }) => ({
      type: 'factorRemoved' as const,
      user: context.user as User,
      factor: { ...(context.target?.id ? { id: context.target.id } : {}), kind: context.target?.kind ?? 'totp' },
    })),
  },
}).createMachine({
  id: 'second-factor',
  initial: 'idle',
  context: ({ input }) => ({ deps: input.deps, callbackUrl: input.callbackUrl, purpose: 'stepUp', userId: '' }),
  output: finalOutput<SecondFactorOutput>,
  states: {
    idle: { on: { START: { target: 'assessing', actions: 'recordStart' } } },
    assessing: {
      invoke: {
        id: 'assess',
        src: 'assess',
        input: ({ context }) => ({ deps: context.deps, purpose: context.purpose, userId: context.userId, user: context.user, account: context.account }),
        onDone: [
          { guard: 'unknownTarget', target: 'failed.invalidRequest', actions: 'recordUnknown' },
          { guard: 'stepUpWithoutFactor', target: 'signInRequired', actions: 'recordFactors' },
          { guard: 'mustCheck', target: 'awaitingCheck', actions: ['recordFactors', 'openCheck', { type: 'askForCode', params: {} }] },
          { guard: 'mustEnrol', target: 'enrolling', actions: ['recordFactors', 'openCheck'] },
          { target: 'choosing', actions: 'recordFactors' },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    awaitingCheck: {
      tags: [AWAITING],
      entry: 'forgetAnswer',
      on: {
        SUBMIT_CODE: answer('verifyingCode', 'recordCode'),
        PASSKEY_OPTIONS: [
          { guard: 'otherUser', target: 'failed.accessDenied', actions: 'recordOtherUser' },
          { guard: 'pendingExpired', target: 'failed.expired', actions: 'recordExpiry' },
          { guard: 'passkeyOffered', target: 'preparingPasskey' },
          { actions: 'refusePasskey' },
        ],
        SUBMIT_PASSKEY: answer('verifyingPasskey', 'recordCredential'),
      },
    },
    preparingPasskey: {
      invoke: {
        id: 'passkeyOptions',
        src: 'passkeyOptions',
        input: ({ context }) => ({ deps: context.deps, userId: context.userId }),
        onDone: { target: 'awaitingCheck', actions: 'offerPasskey' },
        onError: [
          // The user's passkeys were removed since the page was shown: the code form still works.
          { guard: { type: 'errorIs', params: { type: 'InvalidCheck' } }, target: 'awaitingCheck', actions: 'refusePasskey' },
          { target: 'failed.callbackRoute', actions: 'recordError' },
        ],
      },
    },
    verifyingPasskey: {
      invoke: {
        id: 'checkPasskey',
        src: 'checkPasskey',
        input: ({ context }) => ({ ...pendingCheck(context), credential: context.credential, assertion: context.check!.assertion }),
        onDone: [
          { guard: 'codePassed', target: 'choosing', actions: 'recordMethod' },
          { guard: 'codeLocked', target: 'failed.secondFactor', actions: ['emitFailure', 'recordLock'] },
          { target: 'awaitingCheck', actions: ['emitFailure', { type: 'askForCode', params: { error: WRONG_PASSKEY } }] },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    verifyingCode: {
      invoke: {
        id: 'checkFactorCode',
        src: 'checkFactorCode',
        input: ({ context }) => ({ ...pendingCheck(context), code: context.code ?? '' }),
        onDone: [
          { guard: 'codePassed', target: 'choosing', actions: 'recordMethod' },
          { guard: 'codeLocked', target: 'failed.secondFactor', actions: ['emitFailure', 'recordLock'] },
          { target: 'awaitingCheck', actions: ['emitFailure', 'askAfterWrongCode'] },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    // The level is reached (or none was asked for): what the user came for, if anything more.
    choosing: {
      always: [
        { guard: { type: 'purposeIs', params: { purpose: 'enrolTotp' } }, target: 'enrolling', actions: 'openCheck' },
        { guard: { type: 'purposeIs', params: { purpose: 'backupCodes' } }, target: 'generatingCodes' },
        { guard: { type: 'purposeIs', params: { purpose: 'remove' } }, target: 'removing' },
        { target: 'passed' },
      ],
    },
    enrolling: {
      invoke: {
        id: 'startEnrolment',
        src: 'startEnrolment',
        input: ({ context }) => ({ deps: context.deps, user: context.user as User }),
        onDone: { target: 'awaitingEnrolment', actions: 'showEnrolment' },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    awaitingEnrolment: {
      tags: [AWAITING],
      entry: 'forgetAnswer',
      on: {
        SUBMIT_CODE: answer('confirmingEnrolment', 'recordCode'),
      },
    },
    confirmingEnrolment: {
      invoke: {
        id: 'confirmEnrolment',
        src: 'checkFactorCode',
        input: ({ context }) => ({ ...pendingCheck(context), code: context.code ?? '', enrolling: context.check!.enrolling }),
        onDone: [
          // Confirming an app with a code it shows is a factor check too.
          { guard: 'codePassed', target: 'activatingFactor', actions: 'recordMethod' },
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
        input: ({ context }) => ({ deps: context.deps, user: context.user as User, factorId: context.check!.enrolling! }),
        onDone: { target: 'awaitingEnrolment', actions: 'showPage' },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    activatingFactor: {
      invoke: {
        id: 'activateFactor',
        src: 'activateFactor',
        input: ({ context }) => ({ deps: context.deps, userId: context.userId, factorId: context.check!.enrolling! }),
        onDone: { target: 'passed', actions: ['emitEnrolled', 'recordChange'] },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    generatingCodes: {
      invoke: {
        id: 'replaceBackupCodes',
        src: 'replaceBackupCodes',
        input: ({ context }) => ({ deps: context.deps, userId: context.userId }),
        onDone: { target: 'showingCodes', actions: 'emitCodes' },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    removing: {
      invoke: {
        id: 'removeFactor',
        src: 'removeFactor',
        input: ({ context }) => ({ deps: context.deps, userId: context.userId, target: context.target ?? {} }),
        onDone: { target: 'passed', actions: ['emitRemoved', 'recordChange'] },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    passed: {
      type: 'final',
      output: ({ context }) => ({ outcome: 'passed' as const, ...(context.method ? { method: context.method } : {}), changed: context.changed === true, redirect: context.callbackUrl }),
    },
    // The codes are in the final state's output only: shown once, never sealed in a cookie.
    showingCodes: {
      type: 'final',
      output: ({ context, event }) => ({ outcome: 'codes' as const, codes: output<string[]>(event), ...(context.method ? { method: context.method } : {}), redirect: context.callbackUrl }),
    },
    signInRequired: { type: 'final', output: ({ context }) => ({ outcome: 'signIn' as const, redirect: context.callbackUrl }) },
    failed: {
      initial: 'callbackRoute',
      states: {
        accessDenied: { type: 'final', meta: { error: 'AccessDenied' } },
        secondFactor: { type: 'final', meta: { error: 'SecondFactorFailed' } },
        // The check waited too long: no code was wrong, so the page says so (not "too many wrong codes").
        expired: { type: 'final', meta: { error: 'SecondFactorExpired' } },
        invalidRequest: { type: 'final', meta: { error: 'InvalidRequest' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

/**
 * The machine as the second-factor stage. Started by the runtime (`START`); a paused check is answered from
 * `POST {basePath}/second-factor` (CSRF-checked) with the typed `code`, or a passkey assertion (`action=authenticate`,
 * `data`), and from `GET {basePath}/second-factor?action=authenticate` for a passkey's options. The runtime adds the
 * signed-in session's user id to the answer for a signed-in user's request.
 */
export const secondFactorStage = /* @__PURE__ */ defineStage({
  name: 'second-factor',
  machine: secondFactorMachine,
  version: 1,
  answer: (req) => {
    const { method, body, query } = req;
    if (method === 'GET') return query.action === 'authenticate' ? { type: 'PASSKEY_OPTIONS' } : null;
    if (method !== 'POST') return null;
    if (body.action === 'authenticate') return { type: 'SUBMIT_PASSKEY', credential: credentialOf(body.data) };
    return { type: 'SUBMIT_CODE', code: typeof body.code === 'string' ? body.code : '' };
  },
});
