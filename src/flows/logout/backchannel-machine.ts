// Back-channel logout (OpenID Connect Back-Channel Logout 1.0) as a machine: the provider POSTs a logout token;
// it is verified (signature against the provider's JWKS, iss, aud, iat, the logout event, sid or sub, no nonce),
// its jti is recorded once across instances (a replay is refused), and the sessions it names are ended.
import { assign, fromPromise, setup } from 'xstate';
import { doneOutput, recordFailure, type FailureEvidence } from '../runtime/context.js';
import { endNamedSessions, useJti, verifyLogoutToken, type LogoutClaims, type LogoutDeps } from './backchannel-steps.js';

export interface BackchannelLogoutContext {
  deps: LogoutDeps;
  claims?: LogoutClaims;
  /** How many users' sessions were ended. */
  ended?: number;
  failure?: FailureEvidence;
}

export type BackchannelLogoutEvent = { type: 'LOGOUT_TOKEN'; token: unknown };

export const backchannelLogoutMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as BackchannelLogoutContext,
    events: {} as BackchannelLogoutEvent,
    input: {} as { deps: LogoutDeps },
    output: {} as { ended: number },
  },
  actors: {
    verifyLogoutToken: fromPromise(({ input }: { input: { deps: LogoutDeps; token: unknown } }) => verifyLogoutToken(input.deps, input.token)),
    useJti: fromPromise(({ input }: { input: { deps: LogoutDeps; claims: LogoutClaims } }) => useJti(input.deps, input.claims)),
    endSessions: fromPromise(({ input }: { input: { deps: LogoutDeps; claims: LogoutClaims } }) => endNamedSessions(input.deps, input.claims)),
  },
  guards: {
    firstUse: ({ event }) => doneOutput<boolean>(event) === true,
  },
  actions: {
    recordError: assign(recordFailure),
    recordReplay: assign({ failure: ({ context }) => ({ message: 'Logout token refused: its jti was used before (a replay).', expected: 'an unused jti', actual: context.claims?.jti }) }),
  },
}).createMachine({
  id: 'backchannelLogout',
  initial: 'idle',
  context: ({ input }) => ({ deps: input.deps }),
  output: ({ context }) => ({ ended: context.ended ?? 0 }),
  states: {
    idle: {
      on: { LOGOUT_TOKEN: 'verifying' },
    },
    verifying: {
      invoke: {
        id: 'verifyLogoutToken',
        src: 'verifyLogoutToken',
        input: ({ context, event }) => ({ deps: context.deps, token: (event as BackchannelLogoutEvent).token }),
        onDone: { target: 'recordingJti', actions: assign({ claims: ({ event }) => event.output }) },
        onError: { target: 'failed.invalidToken', actions: 'recordError' },
      },
    },
    recordingJti: {
      invoke: {
        id: 'useJti',
        src: 'useJti',
        input: ({ context }) => ({ deps: context.deps, claims: context.claims! }),
        onDone: [{ guard: 'firstUse', target: 'ending' }, { target: 'failed.replayed', actions: 'recordReplay' }],
        onError: { target: 'failed.unavailable', actions: 'recordError' },
      },
    },
    ending: {
      invoke: {
        id: 'endSessions',
        src: 'endSessions',
        input: ({ context }) => ({ deps: context.deps, claims: context.claims! }),
        onDone: { target: 'loggedOut', actions: assign({ ended: ({ event }) => event.output }) },
        onError: { target: 'failed.unavailable', actions: 'recordError' },
      },
    },
    loggedOut: { type: 'final' },
    failed: {
      initial: 'invalidToken',
      states: {
        invalidToken: { type: 'final', meta: { error: 'InvalidCheck' } },
        replayed: { type: 'final', meta: { error: 'InvalidCheck' } },
        unavailable: { type: 'final', meta: { error: 'AdapterError' } },
      },
    },
  },
});
