// The OAuth 2 / OpenID Connect flow: build the authorization request (discovering the provider first when needed)
// -> await the callback (the only persisted state) -> check the answer and exchange the code -> read the profile ->
// authenticated. The standard sign-in tail (signIn callback, the OAuth linking rules, the session) runs after it.
import { assign, fromPromise, setup } from 'xstate';
import { AuthError } from '../../core/errors.js';
import { AWAITING, defineFlow, type FlowDeps, type FlowInput, type FlowOutput, finalOutput } from '../runtime/contract.js';
import { baseContext, errorIs, errorOf, expiredEvidence, recordFailure, type FlowContextBase } from '../runtime/context.js';
import {
  callbackParams,
  exchangeCode,
  prepareAuthorization,
  readProfile,
  type OAuthChecks,
  type PreparedAuthorization,
  type ProfileResult,
  type TokenResult,
} from './steps.js';

/** How long a started OAuth sign-in may wait for the provider's callback. */
export const OAUTH_FLOW_TTL_MS = 15 * 60 * 1000;

export interface OAuthContext extends FlowContextBase, OAuthChecks {
  /** The sign-in request's authorization parameters; dropped before the flow pauses. */
  extraParams?: Record<string, string>;
  params?: Record<string, string>;
  tokens?: TokenResult;
}

/** CALLBACK carries the time it arrived, so that the expiry guard is a pure decision on the event and the context. */
export type OAuthEvent =
  | { type: 'START'; extraParams: Record<string, string> }
  | { type: 'CALLBACK'; params: Record<string, string>; at: number };

type CallbackInput = { deps: FlowDeps; params: Record<string, string>; checks: OAuthChecks };

const checksOf = (context: OAuthContext): OAuthChecks => ({ codeVerifier: context.codeVerifier, state: context.state, nonce: context.nonce });

export const oauthMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as OAuthContext,
    events: {} as OAuthEvent,
    input: {} as FlowInput,
    output: {} as FlowOutput,
  },
  actors: {
    prepare: fromPromise<PreparedAuthorization, { deps: FlowDeps; extraParams: Record<string, string> }>(({ input }) => prepareAuthorization(input.deps, input.extraParams)),
    exchange: fromPromise<TokenResult, CallbackInput>(({ input }) => exchangeCode(input.deps, input.params, input.checks)),
    readProfile: fromPromise<ProfileResult, { deps: FlowDeps; tokens: TokenResult; formUser?: string }>(({ input }) => readProfile(input.deps, input.tokens, input.formUser)),
  },
  guards: {
    flowExpired: ({ context, event }) => event.type === 'CALLBACK' && event.at - context.startedAt > OAUTH_FLOW_TTL_MS,
    /** The invoked actor failed with this error type (`{ type: 'errorIs', params: { type: 'InvalidCheck' } }`). */
    errorIs,
    /** The steps type every failure of theirs; anything else was thrown by the app's own code (its account()). */
    errorIsUntyped: ({ event }) => !(errorOf(event) instanceof AuthError),
  },
  actions: {
    recordError: assign(recordFailure),
    recordExpired: assign({ failure: ({ context, event }) => expiredEvidence('The sign-in', OAUTH_FLOW_TTL_MS, context, event) }),
  },
}).createMachine({
  id: 'oauth',
  initial: 'idle',
  context: ({ input }) => baseContext(input),
  output: finalOutput,
  states: {
    idle: {
      on: {
        START: { target: 'preparing', actions: assign({ extraParams: ({ event }) => event.extraParams }) },
      },
    },
    // Discovers the provider first when its endpoints are not all configured (once per provider: see oauth-server.ts).
    preparing: {
      invoke: {
        id: 'prepare',
        src: 'prepare',
        input: ({ context }) => ({ deps: context.deps, extraParams: context.extraParams ?? {} }),
        onDone: {
          target: 'awaitingCallback',
          actions: assign(({ event }) => ({
            codeVerifier: event.output.codeVerifier,
            state: event.output.state,
            nonce: event.output.nonce,
            extraParams: undefined,
            response: { kind: 'redirect' as const, url: event.output.url, crossSitePost: event.output.formPost },
          })),
        },
        onError: { target: 'failed.signInError', actions: 'recordError' },
      },
    },
    awaitingCallback: {
      tags: [AWAITING],
      on: {
        CALLBACK: [
          { guard: 'flowExpired', target: 'failed.invalidCheck', actions: 'recordExpired' },
          { target: 'exchanging', actions: assign({ params: ({ event }) => event.params }) },
        ],
      },
    },
    // Checks the authorization response (error=, state, iss) before the code is exchanged, then the tokens.
    exchanging: {
      invoke: {
        id: 'exchange',
        src: 'exchange',
        input: ({ context }) => ({ deps: context.deps, params: context.params ?? {}, checks: checksOf(context) }),
        onDone: { target: 'readingProfile', actions: assign({ tokens: ({ event }) => event.output }) },
        // A check of ours that failed (state, iss, nonce, tokens in the front channel, a refused code) is an attack
        // or a stale flow; anything else is the provider's failure (error=, invalid_client, down).
        onError: [
          { guard: { type: 'errorIs', params: { type: 'InvalidCheck' } }, target: 'failed.invalidCheck', actions: 'recordError' },
          { target: 'failed.callbackError', actions: 'recordError' },
        ],
      },
    },
    readingProfile: {
      invoke: {
        id: 'readProfile',
        src: 'readProfile',
        input: ({ context }) => ({ deps: context.deps, tokens: context.tokens ?? { tokens: {} }, formUser: context.params?.user }),
        onDone: {
          target: 'authenticated',
          actions: assign(({ event }) => ({ user: event.output.user, account: event.output.account, profile: event.output.profile, tokens: undefined })),
        },
        onError: [
          { guard: { type: 'errorIs', params: { type: 'OAuthProfileParseError' } }, target: 'failed.profileParse', actions: 'recordError' },
          // As Auth.js reports an untyped error in the callback route: the app's bug, not the provider's answer.
          { guard: 'errorIsUntyped', target: 'failed.callbackRoute', actions: 'recordError' },
          { target: 'failed.callbackError', actions: 'recordError' },
        ],
      },
    },
    authenticated: {
      type: 'final',
      output: ({ context }) => ({ outcome: 'authenticated' as const, user: context.user!, account: context.account!, profile: context.profile }),
    },
    failed: {
      initial: 'callbackRoute',
      states: {
        signInError: { type: 'final', meta: { error: 'OAuthSignInError' } },
        callbackError: { type: 'final', meta: { error: 'OAuthCallbackError' } },
        invalidCheck: { type: 'final', meta: { error: 'InvalidCheck' } },
        profileParse: { type: 'final', meta: { error: 'OAuthProfileParseError' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

/** The OAuth/OIDC providers' flow: started by POST signin/:id, resumed by GET or POST callback/:id. */
export const oauthFlow = /* @__PURE__ */ defineFlow({
  machine: oauthMachine,
  // 3: the context gained `providerId` (baseContext) and lost `owner`; the tail's states left the machine.
  version: 3,
  entry: (route, deps) => {
    if (route === 'signin' && deps.req.method === 'POST') {
      const { callbackUrl: _ignored, ...extraParams } = deps.req.query;
      return { resume: false, event: { type: 'START', extraParams } };
    }
    if (route === 'callback') return { resume: true, event: { type: 'CALLBACK', params: callbackParams(deps), at: Date.now() } };
    return null;
  },
});
