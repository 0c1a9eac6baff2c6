// The SAML 2.0 sign-in of an organization's connection (SP-initiated, HTTP-Redirect out, HTTP-POST back): build the
// AuthnRequest -> await the IdP's response at the ACS (the only persisted state; its flow cookie is SameSite=None so
// the IdP's cross-site POST carries it) -> check the response (guard, signature, audience, times, InResponseTo,
// issuer, destination) -> spend the assertion id once -> the address must be of the connection's verified domains ->
// authenticated. The standard sign-in tail then finds or makes the user, and the runtime joins the organization.
// A response with no flow of this browser waiting (IdP-initiated, or another browser's) is refused, unless the
// connection allows IdP-initiated sign-in: then it is checked the same way, must carry no InResponseTo, and its
// assertion id is as single-use.
import { assign, fromPromise, setup } from 'xstate';
import { AWAITING, defineFlow, type FlowDeps, type FlowInput, type FlowOutput, finalOutput } from '../runtime/contract.js';
import { baseContext, doneOutput, errorIs, expiredEvidence, recordFailure, type FlowContextBase } from '../runtime/context.js';
import { bodyString } from '../../core/request-context.js';
import { samlConnectionOf } from '../../sso/saml-provider.js';
import { SAML_FLOW_TTL_MS } from './options.js';
import type { PreparedSamlRequest } from './request.js';
import { admit, identityOf, prepare, spend, validate } from './steps.js';
import type { SamlAssertion } from './validate.js';

export interface SamlContext extends FlowContextBase {
  /** The AuthnRequest's ID: the only InResponseTo this flow takes. */
  requestId?: string;
  /** Sent with the request, must come back with the response. */
  relayState?: string;
  /** The posted response, in memory for one request only (dropped before anything could persist it). */
  samlResponse?: string;
  assertion?: SamlAssertion;
  /** When the response arrived (ms). */
  at?: number;
}

/** RESPONSE carries the time it arrived, so the expiry guard is a pure decision. */
export type SamlEvent = { type: 'START' } | { type: 'RESPONSE'; samlResponse?: string; relayState?: string; at: number; idpInitiated?: boolean };

export const samlMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as SamlContext,
    events: {} as SamlEvent,
    input: {} as FlowInput,
    output: {} as FlowOutput,
  },
  actors: {
    prepare: fromPromise<PreparedSamlRequest, { deps: FlowDeps }>(({ input }) => prepare(input.deps)),
    validate: fromPromise<SamlAssertion, { deps: FlowDeps; samlResponse?: string; requestId?: string }>(({ input }) =>
      validate(input.deps, { samlResponse: input.samlResponse, requestId: input.requestId }),
    ),
    spend: fromPromise<'fresh' | 'replayed', { deps: FlowDeps; assertion: SamlAssertion; at: number }>(({ input }) => spend(input.deps, input.assertion, input.at)),
    admit: fromPromise<void, { deps: FlowDeps; assertion: SamlAssertion }>(({ input }) => admit(input.deps, input.assertion)),
  },
  guards: {
    /** A response with no flow waiting, to a connection that takes IdP-initiated sign-in (decided at entry). */
    idpInitiatedAllowed: ({ event }) => event.type === 'RESPONSE' && event.idpInitiated === true,
    flowExpired: ({ context, event }) => event.type === 'RESPONSE' && event.at - context.startedAt > SAML_FLOW_TTL_MS,
    relayStateWrong: ({ context, event }) => event.type === 'RESPONSE' && event.relayState !== context.relayState,
    replayed: ({ event }) => doneOutput<string>(event) === 'replayed',
    errorIs,
  },
  actions: {
    recordError: assign(recordFailure),
    recordUnsolicited: assign({
      failure: () => ({ message: 'No SAML sign-in of this browser waits for this response (IdP-initiated sign-in is refused, and another browser’s request is not this one).', expected: 'a flow cookie', actual: null }),
    }),
    recordExpired: assign({ failure: ({ context, event }) => expiredEvidence('The SAML sign-in', SAML_FLOW_TTL_MS, context, event) }),
    recordRelayState: assign({ failure: () => ({ message: 'The RelayState is not the one this sign-in sent.', expected: 'this flow’s RelayState', actual: 'another or none' }) }),
    recordReplay: assign({ failure: ({ context }) => ({ message: 'This assertion was used before.', expected: 'an assertion never seen', actual: context.assertion?.id.slice(0, 100) }) }),
  },
}).createMachine({
  id: 'saml',
  initial: 'idle',
  context: ({ input }) => baseContext(input),
  output: finalOutput,
  states: {
    idle: {
      on: {
        START: 'preparing',
        // No flow cookie: an IdP-initiated response, or one meant for another browser's request. Taken only when the
        // connection allows IdP-initiated sign-in, and then checked to carry no InResponseTo at all.
        RESPONSE: [
          { guard: 'idpInitiatedAllowed', target: 'validating', actions: assign(({ event }) => ({ samlResponse: event.samlResponse, at: event.at })) },
          { target: 'failed.unsolicited', actions: 'recordUnsolicited' },
        ],
      },
    },
    preparing: {
      invoke: {
        id: 'prepare',
        src: 'prepare',
        input: ({ context }) => ({ deps: context.deps }),
        onDone: {
          target: 'awaitingResponse',
          actions: assign(({ event }) => ({
            requestId: event.output.requestId,
            relayState: event.output.relayState,
            // The IdP comes back by a cross-site POST: the flow cookie must be SameSite=None to come with it.
            response: { kind: 'redirect' as const, url: event.output.url, crossSitePost: true },
          })),
        },
        onError: { target: 'failed.signInError', actions: 'recordError' },
      },
    },
    awaitingResponse: {
      tags: [AWAITING],
      on: {
        RESPONSE: [
          { guard: 'flowExpired', target: 'failed.expired', actions: 'recordExpired' },
          { guard: 'relayStateWrong', target: 'failed.refused', actions: 'recordRelayState' },
          { target: 'validating', actions: assign(({ event }) => ({ samlResponse: event.samlResponse, at: event.at })) },
        ],
      },
    },
    validating: {
      invoke: {
        id: 'validate',
        src: 'validate',
        input: ({ context }) => ({ deps: context.deps, samlResponse: context.samlResponse, requestId: context.requestId }),
        onDone: { target: 'spending', actions: assign({ assertion: ({ event }) => event.output, samlResponse: undefined }) },
        onError: [
          { guard: { type: 'errorIs', params: { type: 'SamlResponseRefused' } }, target: 'failed.refused', actions: ['recordError', assign({ samlResponse: undefined })] },
          { target: 'failed.callbackRoute', actions: ['recordError', assign({ samlResponse: undefined })] },
        ],
      },
    },
    // One use per assertion, on every instance sharing the flow store.
    spending: {
      invoke: {
        id: 'spend',
        src: 'spend',
        input: ({ context }) => ({ deps: context.deps, assertion: context.assertion!, at: context.at ?? Date.now() }),
        onDone: [{ guard: 'replayed', target: 'failed.replayed', actions: 'recordReplay' }, { target: 'admitting' }],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    // Before anyone is found or made: the address must be of a verified domain routed to this connection.
    admitting: {
      invoke: {
        id: 'admit',
        src: 'admit',
        input: ({ context }) => ({ deps: context.deps, assertion: context.assertion! }),
        onDone: { target: 'authenticated' },
        onError: [
          { guard: { type: 'errorIs', params: { type: 'SsoAddressRefused' } }, target: 'failed.addressRefused', actions: 'recordError' },
          { target: 'failed.callbackRoute', actions: 'recordError' },
        ],
      },
    },
    authenticated: {
      type: 'final',
      output: ({ context }) => ({ outcome: 'authenticated' as const, ...identityOf(context.providerId, context.assertion!), amr: ['oauth' as const] }),
    },
    failed: {
      initial: 'callbackRoute',
      states: {
        signInError: { type: 'final', meta: { error: 'OAuthSignInError' } },
        unsolicited: { type: 'final', meta: { error: 'SamlResponseRefused' } },
        expired: { type: 'final', meta: { error: 'SamlResponseRefused' } },
        refused: { type: 'final', meta: { error: 'SamlResponseRefused' } },
        replayed: { type: 'final', meta: { error: 'SamlResponseRefused' } },
        addressRefused: { type: 'final', meta: { error: 'SsoAddressRefused' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

/**
 * The SAML connections' flow: started by "Continue with SSO" (route `signin`, POST), answered at the ACS (route
 * `callback`, the IdP's POST of `SAMLResponse` and `RelayState`; no CSRF token can come from the IdP, the flow
 * cookie's RelayState and request id bind it instead).
 */
export const samlFlow = /* @__PURE__ */ defineFlow({
  machine: samlMachine,
  version: 1,
  entry: (route, deps, paused) => {
    const { req } = deps;
    if (route === 'signin' && req.method === 'POST') return { resume: false, event: { type: 'START' } };
    if (route === 'callback' && req.method === 'POST') {
      const idpInitiated = !paused && samlConnectionOf(deps.provider)?.allowIdpInitiated === true;
      return { resume: paused, event: { type: 'RESPONSE', samlResponse: bodyString(req, 'SAMLResponse'), relayState: bodyString(req, 'RelayState'), at: Date.now(), idpInitiated } };
    }
    return null;
  },
});
