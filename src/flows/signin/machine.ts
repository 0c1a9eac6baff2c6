// The standard sign-in tail: every flow that proves who someone is ends here, built-in or custom. Find the
// account's owner -> ask the signIn callback -> resolve the user by the linking rules -> the second-factor stage
// (check an active factor by a code or a passkey, or enrol one when required; paused in its own flow cookie) -> issue
// the session.
// The runtime runs it when a flow's output is `authenticated`; it is the only machine that issues sessions.
import { randomUUID } from 'node:crypto';
import { assign, emit, enqueueActions, fromPromise, setup } from 'xstate';
import type { Account, AdapterUser, Profile, User } from '../../core/types.js';
import { AWAITING, defineFlow, type FlowDeps, type FlowFormPage, type FlowResponse, finalOutput } from '../runtime/contract.js';
import { activateFactor, checkFactorCode, codePage, enrolmentPageFor, FACTOR_TTL_MS, factorNeed, startTotpEnrolment, type CodeCheck, type FactorNeed } from '../factors/steps.js';
import { checkPasskeyFactor, passkeyAssertionOptions, passkeyOffered, type PendingAssertion } from '../factors/passkey.js';
import { credentialOf } from '../webauthn/steps.js';
import { doneOutput, errorIs, recordFailure, type FailureEvidence } from '../runtime/context.js';
import { checkSignIn, findOwner, issueSession, resolveUser, signInAllowed, signInRedirected, type Identity, type Resolution, type SignInDecision } from './steps.js';

export interface SignInContext {
  deps: FlowDeps;
  callbackUrl: string;
  identity: Identity;
  /** The account as stored: the identity's, unless the linking rules stored it under another key. */
  account: Account;
  owner?: AdapterUser | null;
  user?: User | AdapterUser;
  isNewUser?: boolean;
  redirectTo?: string;
  failure?: FailureEvidence;
  /**
   * The pending second-factor check: its id (attempts are counted under it), expiry, the factor being enrolled,
   * whether a passkey is offered and the assertion last asked for, and how it passed.
   */
  factor?: { challengeId: string; expiresAt: number; enrolling?: string; passkey?: boolean; assertion?: PendingAssertion; method?: 'otp' | 'backup' | 'passkey' };
  /** The typed code or the passkey assertion, within one request only (cleared before any pause). */
  code?: string;
  credential?: unknown;
  /** What a paused tail answers (the stage's page). */
  response?: FlowResponse;
}

/** The tail's input: the flow's deps and the identity it proved. */
export interface SignInInput {
  deps: FlowDeps;
  callbackUrl: string;
  identity: Identity;
}

/** What a finished tail outputs: the signed-in user, or a redirect the signIn callback asked for. */
export type SignInOutput =
  | { outcome: 'signedIn'; redirect: string; user: User; account: Account; profile?: Profile; isNewUser: boolean }
  | { outcome: 'redirected'; url: string };

type Emitted =
  | { type: 'signIn'; user: User; account: Account | null; profile?: Profile; isNewUser?: boolean }
  | { type: 'createUser'; user: User }
  | { type: 'updateUser'; user: User }
  | { type: 'linkAccount'; user: User; account: Account; profile: User }
  | { type: 'secondFactorFailed'; user: User; attempts: number; locked: boolean }
  | { type: 'factorEnrolled'; user: User; factor: { id: string; kind: 'totp' } };

const output = doneOutput;

export const signInMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as SignInContext,
    events: {} as { type: 'START' } | { type: 'SUBMIT_CODE'; code: string } | { type: 'PASSKEY_OPTIONS' } | { type: 'SUBMIT_PASSKEY'; credential: unknown },
    input: {} as SignInInput,
    emitted: {} as Emitted,
    output: {} as SignInOutput,
  },
  actors: {
    findOwner: fromPromise<AdapterUser | null, { deps: FlowDeps; identity: Identity }>(({ input }) => findOwner(input.deps, input.identity)),
    checkSignIn: fromPromise<SignInDecision, { deps: FlowDeps; identity: Identity; owner: AdapterUser | null }>(({ input }) => {
      const { identity, owner } = input;
      return checkSignIn(input.deps, {
        user: owner ?? identity.user,
        account: identity.account,
        ...(identity.profile ? { profile: identity.profile } : {}),
        ...(identity.credentials ? { credentials: identity.credentials } : {}),
      });
    }),
    resolveUser: fromPromise<Resolution, { deps: FlowDeps; identity: Identity; owner: AdapterUser | null }>(({ input }) => resolveUser(input.deps, input.identity, input.owner)),
    factorNeed: fromPromise<{ need: FactorNeed; passkey: boolean }, { deps: FlowDeps; user: User; account: Account }>(async ({ input: { deps, user, account } }) => {
      const need = await factorNeed(deps, user, account);
      return { need, passkey: need === 'verify' && (await passkeyOffered(deps, String(user.id), account)) };
    }),
    checkFactorCode: fromPromise<CodeCheck, { deps: FlowDeps; userId: string; challengeId: string; expiresAt: number; code: string; enrolling?: string }>(
      ({ input: { deps, ...params } }) => checkFactorCode(deps, params),
    ),
    passkeyOptions: fromPromise<{ options: unknown } & PendingAssertion, { deps: FlowDeps; userId: string }>(({ input }) => passkeyAssertionOptions(input.deps, input.userId)),
    checkPasskey: fromPromise<CodeCheck, { deps: FlowDeps; userId: string; challengeId: string; expiresAt: number; credential: unknown; assertion?: PendingAssertion }>(
      ({ input: { deps, ...params } }) => checkPasskeyFactor(deps, params),
    ),
    startEnrolment: fromPromise<{ factorId: string; page: FlowFormPage }, { deps: FlowDeps; user: User }>(({ input }) => startTotpEnrolment(input.deps, input.user)),
    enrolmentPage: fromPromise<FlowFormPage, { deps: FlowDeps; user: User; factorId: string }>(({ input }) =>
      enrolmentPageFor(input.deps, input.user, input.factorId, 'That code did not match. Check the time on your phone and try the next code.'),
    ),
    activateFactor: fromPromise<void, { deps: FlowDeps; userId: string; factorId: string }>(({ input }) => activateFactor(input.deps, input.userId, input.factorId)),
    issueSession: fromPromise<void, { deps: FlowDeps; user: User; account: Account; profile?: Profile; isNewUser: boolean; factor?: 'otp' | 'backup' | 'passkey' }>(({ input }) =>
      issueSession(input.deps, { user: input.user, account: input.account, profile: input.profile, isNewUser: input.isNewUser, factor: input.factor }),
    ),
  },
  guards: {
    signInAllowed,
    signInRedirected,
    errorIs,
    mustVerify: ({ event }) => output<{ need: FactorNeed }>(event).need === 'verify',
    mustEnrol: ({ event }) => output<{ need: FactorNeed }>(event).need === 'enrol',
    passkeyOffered: ({ context }) => context.factor?.passkey === true,
    codePassed: ({ event }) => output<CodeCheck>(event).result === 'passed',
    codeLocked: ({ event }) => output<CodeCheck>(event).result === 'locked',
    pendingExpired: ({ context }) => Date.now() >= (context.factor?.expiresAt ?? 0),
  },
  actions: {
    recordError: assign(recordFailure),
    recordRefusal: assign({ failure: () => ({ message: 'The signIn callback refused the sign-in.', expected: true, actual: false }) }),
    recordRedirect: assign({ redirectTo: ({ event }) => output<{ redirect: string }>(event).redirect }),
    recordResolution: assign(({ event }) => {
      const r = output<Resolution>(event);
      return { user: r.user, isNewUser: r.isNewUser, ...(r.account ? { account: r.account } : {}) };
    }),
    openChallenge: assign({
      factor: ({ event }) => ({ challengeId: randomUUID(), expiresAt: Date.now() + FACTOR_TTL_MS, ...(output<{ passkey: boolean }>(event).passkey ? { passkey: true } : {}) }),
    }),
    // What a paused tail keeps is sealed in a cookie: not the submitted form (a password), not the typed code, not
    // the new passkey (stored already) or the owner row; the user and account the session will be for stay.
    forgetRequestData: assign(({ context }) => ({
      identity: { user: context.identity.user, account: context.identity.account, ...(context.identity.profile ? { profile: context.identity.profile } : {}) },
      owner: undefined,
      code: undefined,
      credential: undefined,
    })),
    askForCode: assign({ response: ({ context }, params: { error?: string }) => ({ kind: 'page' as const, page: 'form' as const, data: codePage(params?.error, context.factor?.passkey) }) }),
    // The options go to the page's script; their challenge is sealed with the pending sign-in (a newer one replaces it).
    offerPasskey: assign(({ context, event }) => {
      const { options, challenge, expiresAt } = output<{ options: unknown } & PendingAssertion>(event);
      return { factor: { ...context.factor!, assertion: { challenge, expiresAt } }, response: { kind: 'json' as const, body: { action: 'authenticate', options } } };
    }),
    refusePasskey: assign({ response: () => ({ kind: 'json' as const, status: 400, body: { error: 'InvalidRequest', message: 'This sign-in has no passkey to verify with.' } }) }),
    recordCredential: assign({ credential: ({ event }) => (event as { credential?: unknown }).credential }),
    showEnrolment: assign({ response: ({ event }) => ({ kind: 'page' as const, page: 'form' as const, data: output<{ page: FlowFormPage }>(event).page }) }),
    recordCode: assign({ code: ({ event }) => (event as { code?: string }).code ?? '' }),
    recordMethod: assign({ factor: ({ context, event }) => ({ ...context.factor!, method: (output<CodeCheck>(event) as { method: 'otp' | 'backup' | 'passkey' }).method }) }),
    recordExpiry: assign({ failure: () => ({ message: 'The second-factor check expired.', expected: 'a check within 10 minutes', actual: 'expired' }) }),
    recordLock: assign({ failure: ({ event }) => ({ message: 'Too many wrong codes at the second-factor check.', actual: (output<CodeCheck>(event) as { attempts: number }).attempts }) }),
    emitFactorFailure: emit(({ context, event }) => {
      const check = output<CodeCheck>(event) as { result: 'wrong' | 'locked'; attempts: number };
      return { type: 'secondFactorFailed' as const, user: context.user as User, attempts: check.attempts, locked: check.result === 'locked' };
    }),
    emitEnrolled: emit(({ context }) => ({ type: 'factorEnrolled' as const, user: context.user as User, factor: { id: context.factor!.enrolling!, kind: 'totp' as const } })),
    emitResolutionEvents: enqueueActions(({ enqueue, event, context }) => {
      const r = output<Resolution>(event);
      if (r.created) enqueue(emit({ type: 'createUser', user: r.user }));
      if (r.updated) enqueue(emit({ type: 'updateUser', user: r.user }));
      if (r.linked) enqueue(emit({ type: 'linkAccount', user: r.user, account: r.account ?? context.account, profile: context.identity.user }));
    }),
  },
}).createMachine({
  id: 'signin',
  initial: 'idle',
  context: ({ input }) => ({ deps: input.deps, callbackUrl: input.callbackUrl, identity: input.identity, account: input.identity.account }),
  output: finalOutput<SignInOutput>,
  states: {
    idle: { on: { START: 'findingOwner' } },
    findingOwner: {
      invoke: {
        id: 'findOwner',
        src: 'findOwner',
        input: ({ context }) => ({ deps: context.deps, identity: context.identity }),
        onDone: { target: 'checkingSignIn', actions: assign({ owner: ({ event }) => event.output }) },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    checkingSignIn: {
      invoke: {
        id: 'checkSignIn',
        src: 'checkSignIn',
        input: ({ context }) => ({ deps: context.deps, identity: context.identity, owner: context.owner ?? null }),
        onDone: [
          { guard: 'signInAllowed', target: 'resolvingUser' },
          { guard: 'signInRedirected', target: 'redirected', actions: 'recordRedirect' },
          { target: 'failed.accessDenied', actions: 'recordRefusal' },
        ],
        onError: { target: 'failed.accessDenied', actions: 'recordError' },
      },
    },
    resolvingUser: {
      invoke: {
        id: 'resolveUser',
        src: 'resolveUser',
        input: ({ context }) => ({ deps: context.deps, identity: context.identity, owner: context.owner ?? null }),
        onDone: { target: 'checkingFactors', actions: ['recordResolution', 'emitResolutionEvents'] },
        onError: [
          { guard: { type: 'errorIs', params: { type: 'OAuthAccountNotLinked' } }, target: 'failed.oauthAccountNotLinked', actions: 'recordError' },
          { guard: { type: 'errorIs', params: { type: 'AccountNotLinked' } }, target: 'failed.accountNotLinked', actions: 'recordError' },
          { target: 'failed.callbackRoute', actions: 'recordError' },
        ],
      },
    },
    checkingFactors: {
      invoke: {
        id: 'factorNeed',
        src: 'factorNeed',
        input: ({ context }) => ({ deps: context.deps, user: context.user as User, account: context.account }),
        onDone: [
          { guard: 'mustVerify', target: 'awaitingFactor', actions: ['openChallenge', { type: 'askForCode', params: {} }] },
          { guard: 'mustEnrol', target: 'enrolling', actions: 'openChallenge' },
          { target: 'issuingSession' },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    awaitingFactor: {
      tags: [AWAITING],
      entry: 'forgetRequestData',
      on: {
        SUBMIT_CODE: [
          { guard: 'pendingExpired', target: 'failed.secondFactor', actions: 'recordExpiry' },
          { target: 'verifyingCode', actions: 'recordCode' },
        ],
        PASSKEY_OPTIONS: [
          { guard: 'pendingExpired', target: 'failed.secondFactor', actions: 'recordExpiry' },
          { guard: 'passkeyOffered', target: 'preparingPasskey' },
          { actions: 'refusePasskey' },
        ],
        SUBMIT_PASSKEY: [
          { guard: 'pendingExpired', target: 'failed.secondFactor', actions: 'recordExpiry' },
          { target: 'verifyingPasskey', actions: 'recordCredential' },
        ],
      },
    },
    preparingPasskey: {
      invoke: {
        id: 'passkeyOptions',
        src: 'passkeyOptions',
        input: ({ context }) => ({ deps: context.deps, userId: String(context.user!.id) }),
        onDone: { target: 'awaitingFactor', actions: 'offerPasskey' },
        onError: [
          // The user's passkeys were removed since the page was shown: the code form still works.
          { guard: { type: 'errorIs', params: { type: 'InvalidCheck' } }, target: 'awaitingFactor', actions: 'refusePasskey' },
          { target: 'failed.callbackRoute', actions: 'recordError' },
        ],
      },
    },
    verifyingPasskey: {
      invoke: {
        id: 'checkPasskey',
        src: 'checkPasskey',
        input: ({ context }) => ({
          deps: context.deps,
          userId: String(context.user!.id),
          challengeId: context.factor!.challengeId,
          expiresAt: context.factor!.expiresAt,
          credential: context.credential,
          assertion: context.factor!.assertion,
        }),
        onDone: [
          { guard: 'codePassed', target: 'issuingSession', actions: 'recordMethod' },
          { guard: 'codeLocked', target: 'failed.secondFactor', actions: ['emitFactorFailure', 'recordLock'] },
          { target: 'awaitingFactor', actions: ['emitFactorFailure', { type: 'askForCode', params: { error: 'That passkey could not be verified. Try again, or enter a code.' } }] },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    verifyingCode: {
      invoke: {
        id: 'checkFactorCode',
        src: 'checkFactorCode',
        input: ({ context }) => ({ deps: context.deps, userId: String(context.user!.id), challengeId: context.factor!.challengeId, expiresAt: context.factor!.expiresAt, code: context.code ?? '' }),
        onDone: [
          { guard: 'codePassed', target: 'issuingSession', actions: 'recordMethod' },
          { guard: 'codeLocked', target: 'failed.secondFactor', actions: ['emitFactorFailure', 'recordLock'] },
          { target: 'awaitingFactor', actions: ['emitFactorFailure', { type: 'askForCode', params: { error: 'That code did not match. Try again.' } }] },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    enrolling: {
      invoke: {
        id: 'startEnrolment',
        src: 'startEnrolment',
        input: ({ context }) => ({ deps: context.deps, user: context.user as User }),
        onDone: {
          target: 'awaitingEnrolment',
          actions: [assign({ factor: ({ context, event }) => ({ ...context.factor!, enrolling: event.output.factorId }) }), 'showEnrolment'],
        },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    awaitingEnrolment: {
      tags: [AWAITING],
      entry: 'forgetRequestData',
      on: {
        SUBMIT_CODE: [
          { guard: 'pendingExpired', target: 'failed.secondFactor', actions: 'recordExpiry' },
          { target: 'confirmingEnrolment', actions: 'recordCode' },
        ],
      },
    },
    confirmingEnrolment: {
      invoke: {
        id: 'confirmEnrolment',
        src: 'checkFactorCode',
        input: ({ context }) => ({
          deps: context.deps,
          userId: String(context.user!.id),
          challengeId: context.factor!.challengeId,
          expiresAt: context.factor!.expiresAt,
          code: context.code ?? '',
          enrolling: context.factor!.enrolling,
        }),
        onDone: [
          { guard: 'codePassed', target: 'activatingFactor', actions: 'recordMethod' },
          { guard: 'codeLocked', target: 'failed.secondFactor', actions: ['emitFactorFailure', 'recordLock'] },
          { target: 'showingEnrolmentAgain', actions: 'emitFactorFailure' },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    showingEnrolmentAgain: {
      invoke: {
        id: 'enrolmentPage',
        src: 'enrolmentPage',
        input: ({ context }) => ({ deps: context.deps, user: context.user as User, factorId: context.factor!.enrolling! }),
        onDone: { target: 'awaitingEnrolment', actions: assign({ response: ({ event }) => ({ kind: 'page' as const, page: 'form' as const, data: event.output }) }) },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    activatingFactor: {
      invoke: {
        id: 'activateFactor',
        src: 'activateFactor',
        input: ({ context }) => ({ deps: context.deps, userId: String(context.user!.id), factorId: context.factor!.enrolling! }),
        onDone: { target: 'issuingSession', actions: 'emitEnrolled' },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    issuingSession: {
      invoke: {
        id: 'issueSession',
        src: 'issueSession',
        input: ({ context }) => ({
          deps: context.deps,
          user: context.user!,
          account: context.account,
          profile: context.identity.profile,
          isNewUser: context.isNewUser === true,
          // How the session was verified (amr): the second factor passed, if the stage asked for one.
          factor: context.factor?.method,
        }),
        onDone: 'done',
        onError: [
          { guard: { type: 'errorIs', params: { type: 'AccessDenied' } }, target: 'failed.accessDenied', actions: 'recordError' },
          { target: 'failed.callbackRoute', actions: 'recordError' },
        ],
      },
    },
    done: {
      type: 'final',
      entry: emit(({ context }) => ({
        type: 'signIn' as const,
        user: context.user as User,
        account: context.account,
        profile: context.identity.profile,
        isNewUser: context.isNewUser,
      })),
      output: ({ context }) => ({
        outcome: 'signedIn' as const,
        redirect: context.callbackUrl,
        user: context.user as User,
        account: context.account,
        profile: context.identity.profile,
        isNewUser: context.isNewUser === true,
      }),
    },
    redirected: { type: 'final', output: ({ context }) => ({ outcome: 'redirected' as const, url: context.redirectTo! }) },
    failed: {
      initial: 'callbackRoute',
      states: {
        accessDenied: { type: 'final', meta: { error: 'AccessDenied' } },
        oauthAccountNotLinked: { type: 'final', meta: { error: 'OAuthAccountNotLinked' } },
        accountNotLinked: { type: 'final', meta: { error: 'AccountNotLinked' } },
        secondFactor: { type: 'final', meta: { error: 'SecondFactorFailed' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

/**
 * The tail as a flow: started by the runtime after an `authenticated` flow, and entered from a route only when it
 * paused at the second-factor stage: `POST {basePath}/second-factor` (CSRF-checked) with the typed `code`, or with a
 * passkey assertion (`action=authenticate`, `data`), and `GET {basePath}/second-factor?action=authenticate` for the
 * passkey's options.
 */
export const signInFlow = /* @__PURE__ */ defineFlow({
  machine: signInMachine,
  version: 3,
  csrf: ['callback'],
  entry: (route, deps, paused) => {
    const { method, body, query } = deps.req;
    if (route !== 'callback' || !paused) return null;
    if (method === 'GET') return query.action === 'authenticate' ? { resume: true, event: { type: 'PASSKEY_OPTIONS' } } : null;
    if (method !== 'POST') return null;
    if (body.action === 'authenticate') return { resume: true, event: { type: 'SUBMIT_PASSKEY', credential: credentialOf(body.data) } };
    return { resume: true, event: { type: 'SUBMIT_CODE', code: typeof body.code === 'string' ? body.code : '' } };
  },
});
