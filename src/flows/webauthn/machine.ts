// The WebAuthn / passkey flow. GET webauthn-options/:id decides the ceremony (register or authenticate) and
// pauses with its challenge sealed in the flow cookie; POST callback/:id brings the browser's credential back.
// Registration: verify -> signIn callback -> create user, link account, store authenticator -> session.
// Authentication: find the authenticator -> verify -> store the counter -> find its user -> signIn callback -> session.
import { assign, emit, enqueueActions, fromPromise, setup } from 'xstate';
import type { Account, AdapterAuthenticator, AdapterUser, User } from '../core/types.js';
import { bodyString } from '../http/request.js';
import type { FlowDefinition } from './contract.js';
import { evidenceFrom, type FlowContextBase } from './context.js';
import type { FlowServices } from './services.js';
import { output, placeholder, record, sharedGuards, signInTail } from './shared.js';
import { checkSignIn, issueSession, type SignInDecision } from './steps.js';
import {
  authenticationOptions,
  chooseCeremony,
  credentialOf,
  findAuthenticator,
  findOwner,
  optionsRequestOf,
  registrantOf,
  registrationOptions,
  resolveSubject,
  storeRegistration,
  updateCounter,
  verifyAuthentication,
  verifyRegistration,
  type CeremonyOptions,
  type Choice,
  type CredentialOwner,
  type OptionsRequest,
  type RegisteredCredential,
  type Registrant,
  type StoredRegistration,
  type Subject,
} from './webauthn-steps.js';

export interface WebAuthnContext extends FlowContextBase {
  providerId: string;
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
  registered?: RegisteredCredential;
  authenticator?: AdapterAuthenticator;
}

/** A credential coming back. `at` is when it arrived, so that expiry is a pure decision of the machine. */
type CredentialEvent = { credential: unknown; callbackUrl: string; at: number };
export type WebAuthnEvent =
  | ({ type: 'OPTIONS' } & OptionsRequest)
  | ({ type: 'REGISTER' } & CredentialEvent)
  | ({ type: 'AUTHENTICATE' } & CredentialEvent);

type Emitted =
  | { type: 'signIn'; user: User; account: Account | null; isNewUser?: boolean }
  | { type: 'createUser'; user: User }
  | { type: 'linkAccount'; user: User; account: Account; profile: User };


/** What a ceremony's options step leaves in context while the flow waits (and nothing it should not keep). */
const pause = (action: 'register' | 'authenticate', out: CeremonyOptions) => ({
  challenge: out.challenge,
  expiresAt: out.expiresAt,
  request: undefined,
  subject: undefined,
  response: { kind: 'json' as const, body: { action, options: out.options } },
});

export const webauthnMachine = setup({
  types: {
    context: {} as WebAuthnContext,
    events: {} as WebAuthnEvent,
    input: {} as { callbackUrl: string; providerId: string; startedAt: number },
    emitted: {} as Emitted,
  },
  actors: {
    resolveUser: placeholder<Subject, OptionsRequest>('resolveUser'),
    registrationOptions: placeholder<CeremonyOptions, Registrant>('registrationOptions'),
    authenticationOptions: placeholder<CeremonyOptions, { userId?: string }>('authenticationOptions'),
    verifyRegistration: placeholder<RegisteredCredential, { credential: unknown; challenge: string; expiresAt: number }>('verifyRegistration'),
    storeRegistration: placeholder<StoredRegistration, { registrant: Registrant; registered: RegisteredCredential }>('storeRegistration'),
    findAuthenticator: placeholder<AdapterAuthenticator | null, { credential: unknown }>('findAuthenticator'),
    verifyAuthentication: placeholder<{ newCounter: number }, { credential: unknown; challenge: string; expiresAt: number; authenticator: AdapterAuthenticator }>(
      'verifyAuthentication',
    ),
    updateCounter: placeholder<void, { credentialID: string; newCounter: number }>('updateCounter'),
    findOwner: placeholder<CredentialOwner, { authenticator: AdapterAuthenticator }>('findOwner'),
    checkSignIn: placeholder<SignInDecision, { user: User; account: Account }>('checkSignIn'),
    issueSession: placeholder<void, { user: User; account: Account | null; isNewUser?: boolean }>('issueSession'),
  },
  guards: {
    choiceIs: ({ context, event }, params: { choice: Choice }) => chooseCeremony(context.request ?? {}, output<Subject>(event)) === params.choice,
    answeredTooLate: ({ context, event }) => (event as unknown as CredentialEvent).at > (context.expiresAt ?? 0),
    authenticatorFound: ({ event }) => output<AdapterAuthenticator | null>(event) !== null,
    signedInAsAnother: ({ event }) => {
      const owner = output<CredentialOwner>(event);
      return owner.currentUserId !== undefined && owner.currentUserId !== String(owner.user.id);
    },
    // Written out (not spread) so xstate infers this machine's guard parameters for enqueueActions.
    errorIs: ({ event }, params: { type: string }) => sharedGuards.errorIs({ event }, params),
    signInAllowed: ({ event }) => sharedGuards.signInAllowed({ event }),
    signInRedirected: ({ event }) => sharedGuards.signInRedirected({ event }),
  },
  actions: {
    receive: assign(({ event }) => {
      const e = event as unknown as CredentialEvent;
      return { credential: e.credential, callbackUrl: e.callbackUrl };
    }),
    recordError: assign(record.error),
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
    recordOtherUser: assign({
      failure: ({ event }) => {
        const owner = output<CredentialOwner>(event);
        return { message: 'This passkey belongs to another user than the one signed in.', expected: owner.currentUserId, actual: String(owner.user.id) };
      },
    }),
    recordRefusal: assign(record.refusal),
    recordRedirect: assign(record.redirect),
    recordStored: enqueueActions(({ enqueue, event }) => {
      const stored = output<StoredRegistration>(event);
      if (stored.created) enqueue(emit({ type: 'createUser', user: stored.user }));
      enqueue(emit({ type: 'linkAccount', user: stored.user, account: stored.account, profile: stored.user }));
      enqueue(assign({ user: stored.user, account: stored.account, isNewUser: stored.created, credential: undefined, registered: undefined }));
    }),
  },
}).createMachine({
  id: 'webauthn',
  initial: 'idle',
  context: ({ input }) => ({ callbackUrl: input.callbackUrl, providerId: input.providerId, startedAt: input.startedAt }),
  states: {
    idle: {
      on: { OPTIONS: { target: 'resolvingUser', actions: assign({ request: ({ event }) => ({ action: event.action, email: event.email }) }) } },
    },
    resolvingUser: {
      invoke: {
        id: 'resolveUser',
        src: 'resolveUser',
        input: ({ context }) => context.request ?? {},
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
            input: ({ context }) => context.registrant!,
            onDone: { target: 'awaiting', actions: assign(({ event }) => pause('register', event.output)) },
            onError: { target: '#webauthn.failed.callbackRoute', actions: 'recordError' },
          },
        },
        awaiting: {
          tags: ['awaiting'],
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
            input: ({ context }) => ({ credential: context.credential, challenge: context.challenge!, expiresAt: context.expiresAt! }),
            onDone: {
              target: 'checkingSignIn',
              actions: assign(({ context, event }) => ({
                registered: event.output,
                user: { id: context.registrant!.userId, email: context.registrant!.email, name: context.registrant!.name },
                account: { provider: context.providerId, type: 'webauthn' as const, providerAccountId: event.output.credentialID },
              })),
            },
            onError: [
              { guard: { type: 'errorIs', params: { type: 'InvalidCheck' } }, target: '#webauthn.failed.invalidCheck', actions: 'recordError' },
              { target: '#webauthn.failed.webAuthnVerification', actions: 'recordError' },
            ],
          },
        },
        checkingSignIn: {
          invoke: {
            id: 'checkSignIn',
            src: 'checkSignIn',
            input: ({ context }) => ({ user: context.user!, account: context.account! }),
            onDone: [
              { guard: 'signInAllowed', target: 'storing' },
              { guard: 'signInRedirected', target: '#webauthn.redirected', actions: 'recordRedirect' },
              { target: '#webauthn.failed.accessDenied', actions: 'recordRefusal' },
            ],
            onError: { target: '#webauthn.failed.accessDenied', actions: 'recordError' },
          },
        },
        storing: {
          invoke: {
            id: 'storeRegistration',
            src: 'storeRegistration',
            input: ({ context }) => ({ registrant: context.registrant!, registered: context.registered! }),
            onDone: { target: '#webauthn.issuingSession', actions: 'recordStored' },
            onError: [
              { guard: { type: 'errorIs', params: { type: 'AccountNotLinked' } }, target: '#webauthn.failed.accountNotLinked', actions: 'recordError' },
              { target: '#webauthn.failed.callbackRoute', actions: 'recordError' },
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
            input: ({ context }) => ({ userId: context.subject?.sessionUser?.id }),
            onDone: { target: 'awaiting', actions: assign(({ event }) => pause('authenticate', event.output)) },
            onError: { target: '#webauthn.failed.callbackRoute', actions: 'recordError' },
          },
        },
        awaiting: {
          tags: ['awaiting'],
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
            input: ({ context }) => ({ credential: context.credential }),
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
            input: ({ context }) => ({ credential: context.credential, challenge: context.challenge!, expiresAt: context.expiresAt!, authenticator: context.authenticator! }),
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
            input: ({ context }) => ({ credentialID: context.authenticator!.credentialID, newCounter: context.authenticator!.counter }),
            onDone: 'findingOwner',
            onError: { target: '#webauthn.failed.callbackRoute', actions: 'recordError' },
          },
        },
        findingOwner: {
          invoke: {
            id: 'findOwner',
            src: 'findOwner',
            input: ({ context }) => ({ authenticator: context.authenticator! }),
            onDone: [
              { guard: 'signedInAsAnother', target: '#webauthn.failed.accountNotLinked', actions: 'recordOtherUser' },
              { target: 'checkingSignIn', actions: assign(({ event }) => ({ user: event.output.user, account: event.output.account, credential: undefined })) },
            ],
            onError: { target: '#webauthn.failed.callbackRoute', actions: 'recordError' },
          },
        },
        checkingSignIn: {
          invoke: {
            id: 'checkSignIn',
            src: 'checkSignIn',
            input: ({ context }) => ({ user: context.user!, account: context.account! }),
            onDone: [
              { guard: 'signInAllowed', target: '#webauthn.issuingSession' },
              { guard: 'signInRedirected', target: '#webauthn.redirected', actions: 'recordRedirect' },
              { target: '#webauthn.failed.accessDenied', actions: 'recordRefusal' },
            ],
            onError: { target: '#webauthn.failed.accessDenied', actions: 'recordError' },
          },
        },
      },
    },
    ...signInTail(),
    failed: {
      initial: 'callbackRoute',
      states: {
        invalidRequest: { type: 'final', meta: { error: 'InvalidRequest' } },
        accountNotLinked: { type: 'final', meta: { error: 'AccountNotLinked' } },
        invalidCheck: { type: 'final', meta: { error: 'InvalidCheck' } },
        webAuthnVerification: { type: 'final', meta: { error: 'WebAuthnVerificationError' } },
        accessDenied: { type: 'final', meta: { error: 'AccessDenied' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

/** The WebAuthn providers' flow: options by GET webauthn-options/:id, the credential by POST callback/:id (CSRF checked). */
export const webauthnFlow: FlowDefinition<typeof webauthnMachine> = {
  machine: webauthnMachine,
  version: 1,
  csrf: ['callback'],
  input: (s) => ({ callbackUrl: s.callbackUrl, providerId: s.provider.id, startedAt: Date.now() }),
  entry: (route, s) => {
    if (route === 'options' && s.req.method === 'GET') {
      const request = optionsRequestOf(s.req.query);
      return request ? { resume: false, event: { type: 'OPTIONS', ...request } } : null;
    }
    if (route === 'callback' && s.req.method === 'POST') {
      const action = bodyString(s.req, 'action');
      const type = action === 'register' ? 'REGISTER' : action === 'authenticate' ? 'AUTHENTICATE' : undefined;
      if (!type) return null;
      return { resume: true, event: { type, credential: credentialOf(s.req.body.data), callbackUrl: s.callbackUrl, at: Date.now() } };
    }
    return null;
  },
  implement: (s: FlowServices) => ({
    actors: {
      resolveUser: fromPromise<Subject, OptionsRequest>(({ input }) => resolveSubject(s, input)),
      registrationOptions: fromPromise<CeremonyOptions, Registrant>(({ input }) => registrationOptions(s, input)),
      authenticationOptions: fromPromise<CeremonyOptions, { userId?: string }>(({ input }) => authenticationOptions(s, input.userId)),
      verifyRegistration: fromPromise<RegisteredCredential, { credential: unknown; challenge: string; expiresAt: number }>(({ input }) => verifyRegistration(s, input)),
      storeRegistration: fromPromise<StoredRegistration, { registrant: Registrant; registered: RegisteredCredential }>(({ input }) => storeRegistration(s, input)),
      findAuthenticator: fromPromise<AdapterAuthenticator | null, { credential: unknown }>(({ input }) => findAuthenticator(s, input.credential)),
      verifyAuthentication: fromPromise<{ newCounter: number }, { credential: unknown; challenge: string; expiresAt: number; authenticator: AdapterAuthenticator }>(
        ({ input }) => verifyAuthentication(s, input),
      ),
      updateCounter: fromPromise<void, { credentialID: string; newCounter: number }>(({ input }) => updateCounter(s, input)),
      findOwner: fromPromise<CredentialOwner, { authenticator: AdapterAuthenticator }>(({ input }) => findOwner(s, input.authenticator)),
      checkSignIn: fromPromise<SignInDecision, { user: User; account: Account }>(({ input }) => checkSignIn(s, input)),
      issueSession: fromPromise<void, { user: User | AdapterUser; account: Account | null; isNewUser?: boolean }>(({ input }) => issueSession(s, input)),
    },
  }),
};
