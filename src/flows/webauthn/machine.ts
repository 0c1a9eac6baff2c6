// The WebAuthn / passkey flow. GET webauthn-options/:id decides the ceremony (register or authenticate) and
// pauses with its challenge sealed in the flow cookie; POST callback/:id brings the browser's credential back.
// Registration: verify -> authenticated, carrying the new passkey. Authentication: find the authenticator ->
// verify -> store the counter -> authenticated. The standard sign-in tail then finds the passkey's user, asks the
// signIn callback, stores a new passkey with its user (the passkey rules) and issues the session.
import { assign, fromPromise, setup } from 'xstate';
import { bodyString } from '../../core/request-context.js';
import type { AdapterAuthenticator } from '../../core/types.js';
import { AWAITING, defineFlow, type FlowDeps, type FlowInput, type FlowOutput, finalOutput } from '../runtime/contract.js';
import { baseContext, doneOutput, errorIs, recordFailure, type FlowContextBase } from '../runtime/context.js';
import type { NewPasskey } from '../signin/resolve.js';
import {
  authenticationOptions,
  chooseCeremony,
  credentialOf,
  findAuthenticator,
  findSessionUser,
  optionsRequestOf,
  registrantOf,
  registrationOptions,
  updateCounter,
  verifyAuthentication,
  verifyRegistration,
  type CeremonyOptions,
  type Choice,
  type OptionsRequest,
  type RegisteredCredential,
  type Registrant,
  type Subject,
} from './steps.js';

export interface WebAuthnContext extends FlowContextBase {
  /** The options request and who made it; dropped before the flow pauses. */
  request?: OptionsRequest;
  subject?: Subject;
  /** Sealed in the flow cookie: the challenge the browser must sign, and until when it is accepted (ms). */
  challenge?: string;
  expiresAt?: number;
  /** Registration only: whom the new passkey is for (decided when the options were made). */
  registrant?: Registrant;
  /** The browser's answer; only within the request that brought it. */
  credential?: unknown;
  authenticator?: AdapterAuthenticator;
  /** Registration only: the verified passkey the tail stores with its user. */
  passkey?: NewPasskey;
}

/**
 * A credential coming back. `at` is when it arrived, so that expiry is a pure decision of the machine;
 * `callbackUrl` is where the page that sent it wants to go (validated), which wins over the one of the options.
 */
type CredentialEvent = { credential: unknown; callbackUrl: string; at: number };
export type WebAuthnEvent =
  | ({ type: 'OPTIONS' } & OptionsRequest)
  | ({ type: 'REGISTER' } & CredentialEvent)
  | ({ type: 'AUTHENTICATE' } & CredentialEvent);

/** How a ceremony ends well: the identity for the sign-in tail, with the new passkey after a registration. */
export type WebAuthnOutput = Extract<FlowOutput, { outcome: 'authenticated' }> & { passkey?: NewPasskey };

type Deps = { deps: FlowDeps };
type Answer = Deps & { credential: unknown; challenge: string; expiresAt: number };

const output = doneOutput;

/** What a ceremony's options step leaves in context while the flow waits (and nothing it should not keep). */
const pause = (action: 'register' | 'authenticate', out: CeremonyOptions) => ({
  challenge: out.challenge,
  expiresAt: out.expiresAt,
  request: undefined,
  subject: undefined,
  response: { kind: 'json' as const, body: { action, options: out.options } },
});

export const webauthnMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as WebAuthnContext,
    events: {} as WebAuthnEvent,
    input: {} as FlowInput,
    output: {} as WebAuthnOutput,
  },
  actors: {
    findSessionUser: fromPromise<Subject, Deps>(({ input }) => findSessionUser(input.deps)),
    registrationOptions: fromPromise<CeremonyOptions, Deps & { registrant: Registrant }>(({ input }) => registrationOptions(input.deps, input.registrant)),
    authenticationOptions: fromPromise<CeremonyOptions, Deps & { userId?: string }>(({ input }) => authenticationOptions(input.deps, input.userId)),
    verifyRegistration: fromPromise<RegisteredCredential, Answer>(({ input }) => verifyRegistration(input.deps, input)),
    findAuthenticator: fromPromise<AdapterAuthenticator | null, Deps & { credential: unknown }>(({ input }) => findAuthenticator(input.deps, input.credential)),
    verifyAuthentication: fromPromise<{ newCounter: number }, Answer & { authenticator: AdapterAuthenticator }>(({ input }) => verifyAuthentication(input.deps, input)),
    updateCounter: fromPromise<void, Deps & { credentialID: string; newCounter: number }>(({ input }) => updateCounter(input.deps, input)),
  },
  guards: {
    choiceIs: ({ context, event }, params: { choice: Choice }) => chooseCeremony(context.request ?? {}, output<Subject>(event)) === params.choice,
    answeredTooLate: ({ context, event }) => (event as unknown as CredentialEvent).at > (context.expiresAt ?? 0),
    authenticatorFound: ({ event }) => output<AdapterAuthenticator | null>(event) !== null,
    errorIs,
  },
  actions: {
    receive: assign(({ event }) => {
      const e = event as unknown as CredentialEvent;
      return { credential: e.credential, callbackUrl: e.callbackUrl };
    }),
    recordError: assign(recordFailure),
    recordInvalidRequest: assign({
      failure: ({ context, event }) => ({
        message: output<Subject>(event).sessionUser
          ? 'A signed-in user must say whether to register or to authenticate.'
          : 'Registering a passkey needs an e-mail address.',
        actual: context.request,
      }),
    }),
    recordTooLate: assign({
      failure: ({ context, event }) => ({
        message: 'The passkey challenge expired; please try again.',
        expected: `at or before ${new Date(context.expiresAt ?? 0).toISOString()}`,
        actual: new Date((event as unknown as CredentialEvent).at).toISOString(),
      }),
    }),
    recordUnknownCredential: assign({
      failure: ({ context }) => ({ message: 'No stored authenticator has this credential id.', actual: (context.credential as { id?: unknown } | undefined)?.id }),
    }),
  },
}).createMachine({
  id: 'webauthn',
  initial: 'idle',
  context: ({ input }) => baseContext(input),
  output: finalOutput<WebAuthnOutput>,
  states: {
    idle: {
      on: { OPTIONS: { target: 'choosingCeremony', actions: assign({ request: ({ event }) => ({ action: event.action, email: event.email }) }) } },
    },
    choosingCeremony: {
      invoke: {
        id: 'findSessionUser',
        src: 'findSessionUser',
        input: ({ context }) => ({ deps: context.deps }),
        onDone: [
          { guard: { type: 'choiceIs', params: { choice: 'authenticate' } }, target: 'authentication', actions: assign({ subject: ({ event }) => event.output }) },
          {
            guard: { type: 'choiceIs', params: { choice: 'register' } },
            target: 'registration',
            actions: assign(({ context, event }) => ({ subject: event.output, registrant: registrantOf(context.request ?? {}, event.output) })),
          },
          { target: 'failed.invalidRequest', actions: 'recordInvalidRequest' },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    registration: {
      initial: 'preparing',
      states: {
        preparing: {
          invoke: {
            id: 'registrationOptions',
            src: 'registrationOptions',
            input: ({ context }) => ({ deps: context.deps, registrant: context.registrant! }),
            onDone: { target: 'awaiting', actions: assign(({ event }) => pause('register', event.output)) },
            onError: { target: '#webauthn.failed.callbackRoute', actions: 'recordError' },
          },
        },
        awaiting: {
          tags: [AWAITING],
          on: {
            REGISTER: [
              { guard: 'answeredTooLate', target: '#webauthn.failed.invalidCheck', actions: 'recordTooLate' },
              { target: 'verifying', actions: 'receive' },
            ],
          },
        },
        verifying: {
          invoke: {
            id: 'verifyRegistration',
            src: 'verifyRegistration',
            input: ({ context }) => ({ deps: context.deps, credential: context.credential, challenge: context.challenge!, expiresAt: context.expiresAt! }),
            onDone: {
              target: '#webauthn.authenticated',
              // The user is whom the options were made for (none yet when signed out); the tail checks it still is.
              actions: assign(({ context, event }) => ({
                credential: undefined,
                user: { id: context.registrant!.userId, email: context.registrant!.email, name: context.registrant!.name },
                account: { provider: context.providerId, type: 'webauthn' as const, providerAccountId: event.output.credentialID },
                passkey: { credential: event.output, forUserId: context.registrant!.userId },
              })),
            },
            onError: [
              { guard: { type: 'errorIs', params: { type: 'InvalidCheck' } }, target: '#webauthn.failed.invalidCheck', actions: 'recordError' },
              { target: '#webauthn.failed.webAuthnVerification', actions: 'recordError' },
            ],
          },
        },
      },
    },
    authentication: {
      initial: 'preparing',
      states: {
        preparing: {
          invoke: {
            id: 'authenticationOptions',
            src: 'authenticationOptions',
            // Signed out, nobody's credentials are listed (discoverable credentials): the answer tells no address apart.
            input: ({ context }) => ({ deps: context.deps, userId: context.subject?.sessionUser?.id }),
            onDone: { target: 'awaiting', actions: assign(({ event }) => pause('authenticate', event.output)) },
            onError: { target: '#webauthn.failed.callbackRoute', actions: 'recordError' },
          },
        },
        awaiting: {
          tags: [AWAITING],
          on: {
            AUTHENTICATE: [
              { guard: 'answeredTooLate', target: '#webauthn.failed.invalidCheck', actions: 'recordTooLate' },
              { target: 'findingAuthenticator', actions: 'receive' },
            ],
          },
        },
        findingAuthenticator: {
          invoke: {
            id: 'findAuthenticator',
            src: 'findAuthenticator',
            input: ({ context }) => ({ deps: context.deps, credential: context.credential }),
            onDone: [
              { guard: 'authenticatorFound', target: 'verifying', actions: assign({ authenticator: ({ event }) => event.output ?? undefined }) },
              { target: '#webauthn.failed.webAuthnVerification', actions: 'recordUnknownCredential' },
            ],
            onError: [
              { guard: { type: 'errorIs', params: { type: 'WebAuthnVerificationError' } }, target: '#webauthn.failed.webAuthnVerification', actions: 'recordError' },
              { target: '#webauthn.failed.callbackRoute', actions: 'recordError' },
            ],
          },
        },
        verifying: {
          invoke: {
            id: 'verifyAuthentication',
            src: 'verifyAuthentication',
            input: ({ context }) => ({
              deps: context.deps,
              credential: context.credential,
              challenge: context.challenge!,
              expiresAt: context.expiresAt!,
              authenticator: context.authenticator!,
            }),
            onDone: { target: 'updatingCounter', actions: assign({ authenticator: ({ context, event }) => ({ ...context.authenticator!, counter: event.output.newCounter }) }) },
            onError: [
              { guard: { type: 'errorIs', params: { type: 'InvalidCheck' } }, target: '#webauthn.failed.invalidCheck', actions: 'recordError' },
              { guard: { type: 'errorIs', params: { type: 'WebAuthnVerificationError' } }, target: '#webauthn.failed.webAuthnVerification', actions: 'recordError' },
              { target: '#webauthn.failed.callbackRoute', actions: 'recordError' },
            ],
          },
        },
        updatingCounter: {
          invoke: {
            id: 'updateCounter',
            src: 'updateCounter',
            input: ({ context }) => ({ deps: context.deps, credentialID: context.authenticator!.credentialID, newCounter: context.authenticator!.counter }),
            // The account the authenticator was stored under: the tail finds its user (and refuses another's).
            onDone: {
              target: '#webauthn.authenticated',
              actions: assign(({ context }) => ({
                credential: undefined,
                user: { id: context.authenticator!.userId },
                account: { provider: context.providerId, type: 'webauthn' as const, providerAccountId: context.authenticator!.providerAccountId },
              })),
            },
            onError: { target: '#webauthn.failed.callbackRoute', actions: 'recordError' },
          },
        },
      },
    },
    authenticated: {
      type: 'final',
      output: ({ context }) => ({
        outcome: 'authenticated' as const,
        user: context.user!,
        account: context.account!,
        ...(context.passkey ? { passkey: context.passkey } : {}),
      }),
    },
    failed: {
      initial: 'callbackRoute',
      states: {
        invalidRequest: { type: 'final', meta: { error: 'InvalidRequest' } },
        invalidCheck: { type: 'final', meta: { error: 'InvalidCheck' } },
        webAuthnVerification: { type: 'final', meta: { error: 'WebAuthnVerificationError' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

/**
 * The WebAuthn providers' flow: options by GET webauthn-options/:id (or, adding a passkey to the signed-in user, by
 * POST link/:id), the credential by POST callback/:id (CSRF checked). A callback always resumes: without this provider's flow cookie it is refused as an InvalidCheck.
 *
 * @example
 * const entry = webauthnFlow.entry('options', deps, false) // { resume: false, event: { type: 'OPTIONS', action: 'authenticate' } }
 */
export const webauthnFlow = /* @__PURE__ */ defineFlow({
  machine: webauthnMachine,
  version: 2,
  csrf: ['callback'],
  entry: (route, deps) => {
    // POST link/:id (signed in, recently, CSRF-checked by the route): a new passkey for that user, through the link stage.
    if (route === 'link' && deps.req.method === 'POST') return { resume: false, event: { type: 'OPTIONS', action: 'register' } };
    if (route === 'options' && deps.req.method === 'GET') {
      const request = optionsRequestOf(deps.req.query);
      return request ? { resume: false, event: { type: 'OPTIONS', ...request } } : null;
    }
    if (route === 'callback' && deps.req.method === 'POST') {
      const action = bodyString(deps.req, 'action');
      const type = action === 'register' ? 'REGISTER' : action === 'authenticate' ? 'AUTHENTICATE' : undefined;
      if (!type) return null;
      return { resume: true, event: { type, credential: credentialOf(deps.req.body.data), callbackUrl: deps.callbackUrl, at: Date.now() } };
    }
    return null;
  },
});
