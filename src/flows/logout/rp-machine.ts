// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0) as a machine, opt-in per provider: at sign-out, find
// the user's ID token and the provider's end_session_endpoint; send the browser there with id_token_hint,
// post_logout_redirect_uri and a fresh state (kept in the flow store), and pause; when the provider sends it back,
// the state must match and is taken from the store, so a state passes once: a replayed return is refused.
// Without an endpoint or an ID token, sign-out is local only. The local session is ended by the route either way.
import { randomBytes } from 'node:crypto';
import { assign, fromPromise, setup } from 'xstate';
import { AWAITING, type FlowResponse } from '../runtime/contract.js';
import { doneOutput, recordFailure, type FailureEvidence } from '../runtime/context.js';
import { findEndSession, keepState, takeState, type EndSession, type RpLogoutDeps } from './rp-steps.js';

export interface RpLogoutInput {
  deps: RpLogoutDeps;
  /** Where the browser goes after sign-out (validated by the route). */
  callbackUrl: string;
  startedAt: number;
}

export interface RpLogoutContext {
  deps: RpLogoutDeps;
  callbackUrl: string;
  startedAt: number;
  state?: string;
  response?: FlowResponse;
  failure?: FailureEvidence;
}

export type RpLogoutEvent = { type: 'SIGN_OUT' } | { type: 'RETURN'; state: unknown; now: number };

/** How long the provider may take to send the browser back. */
export const RP_LOGOUT_TTL_MS = 15 * 60_000;

export const rpLogoutMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as RpLogoutContext,
    events: {} as RpLogoutEvent,
    input: {} as RpLogoutInput,
    output: {} as { outcome: 'redirected'; url: string },
  },
  actors: {
    findEndSession: fromPromise(({ input }: { input: { deps: RpLogoutDeps } }) => findEndSession(input.deps)),
    keepState: fromPromise(({ input }: { input: { deps: RpLogoutDeps; state: string } }) => keepState(input.deps, input.state, RP_LOGOUT_TTL_MS)),
    takeState: fromPromise(({ input }: { input: { deps: RpLogoutDeps; state: string } }) => takeState(input.deps, input.state)),
  },
  guards: {
    nothingToEnd: ({ event }) => doneOutput<EndSession | null>(event) === null,
    stateMatches: ({ context, event }) => event.type === 'RETURN' && typeof event.state === 'string' && event.state === context.state,
    expired: ({ context, event }) => event.type === 'RETURN' && event.now - context.startedAt > RP_LOGOUT_TTL_MS,
    taken: ({ event }) => doneOutput<boolean>(event) === true,
  },
  actions: {
    recordError: assign(recordFailure),
    redirectToProvider: assign(({ event }) => {
      const end = doneOutput<EndSession>(event);
      const state = randomBytes(24).toString('base64url');
      const url = new URL(end.endpoint);
      url.searchParams.set('id_token_hint', end.idToken);
      url.searchParams.set('post_logout_redirect_uri', end.postLogoutRedirectUri);
      url.searchParams.set('client_id', end.clientId);
      url.searchParams.set('state', state);
      return { state, response: { kind: 'redirect' as const, url: url.href } };
    }),
    recordMismatch: assign({ failure: ({ context, event }) => ({ message: 'The provider sent the browser back with another state.', expected: context.state, actual: event.type === 'RETURN' ? event.state : undefined }) }),
    recordExpired: assign({ failure: () => ({ message: 'The provider took too long to send the browser back.' }) }),
    recordReplay: assign({ failure: () => ({ message: 'This sign-out already came back from the provider: a state passes once.', expected: 'a state not used yet', actual: 'used' }) }),
  },
}).createMachine({
  id: 'rpLogout',
  initial: 'idle',
  context: ({ input }) => ({ deps: input.deps, callbackUrl: input.callbackUrl, startedAt: input.startedAt }),
  output: ({ context }) => ({ outcome: 'redirected', url: context.callbackUrl }),
  states: {
    idle: {
      on: { SIGN_OUT: 'resolving' },
    },
    resolving: {
      invoke: {
        id: 'findEndSession',
        src: 'findEndSession',
        input: ({ context }) => ({ deps: context.deps }),
        onDone: [{ guard: 'nothingToEnd', target: 'localOnly' }, { target: 'keepingState', actions: 'redirectToProvider' }],
        // The provider's metadata could not be read: the local sign-out still happens (the route logs this).
        onError: { target: 'localOnly', actions: 'recordError' },
      },
    },
    keepingState: {
      invoke: {
        id: 'keepState',
        src: 'keepState',
        input: ({ context }) => ({ deps: context.deps, state: context.state! }),
        onDone: 'atProvider',
        // A state that cannot be kept could never be checked: the sign-out stays local (the route logs this).
        onError: { target: 'localOnly', actions: 'recordError' },
      },
    },
    atProvider: {
      tags: [AWAITING],
      on: {
        RETURN: [
          { guard: 'expired', target: 'failed.expired', actions: 'recordExpired' },
          { guard: 'stateMatches', target: 'takingState' },
          { target: 'failed.stateMismatch', actions: 'recordMismatch' },
        ],
      },
    },
    takingState: {
      invoke: {
        id: 'takeState',
        src: 'takeState',
        input: ({ context }) => ({ deps: context.deps, state: context.state! }),
        onDone: [{ guard: 'taken', target: 'returned' }, { target: 'failed.replayed', actions: 'recordReplay' }],
        onError: { target: 'failed.unavailable', actions: 'recordError' },
      },
    },
    localOnly: { type: 'final' },
    returned: { type: 'final' },
    failed: {
      initial: 'stateMismatch',
      states: {
        stateMismatch: { type: 'final', meta: { error: 'InvalidCheck' } },
        expired: { type: 'final', meta: { error: 'InvalidCheck' } },
        replayed: { type: 'final', meta: { error: 'InvalidCheck' } },
        // The store could not take the state (the store's error is reported as itself).
        unavailable: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});
