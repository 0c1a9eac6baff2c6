// The e-mail (magic link) flow. Request: normalise the address -> signIn callback -> store a hashed token ->
// send the link -> verify-request page. Callback: open the link -> look the token up (without using it) ->
// confirmation page (the only persisted state; GET consumes nothing) -> confirm -> consume the token -> create or
// verify the user -> signIn -> session.
import { assign, emit, fromPromise, not, setup } from 'xstate';
import type { Account, AdapterUser, User } from '../core/types.js';
import { csrf } from '../http/csrf.js';
import { flowCookieName } from '../flows/runtime/cookie.js';
import { renderConfirmEmail } from '../http/pages/confirm-email.js';
import { bodyString, pageNonce } from '../http/request.js';
import { asciiEmailDomain } from '../core/email-address.js';
import { normalizeEmailAddress } from '../providers/email.js';
import type { FlowDefinition } from './contract.js';
import { evidenceFrom, type FlowContextBase } from './context.js';
import {
  consumeToken,
  createEmailUser,
  peekToken,
  emailProviderOf,
  findUser,
  issueEmailSession,
  markVerified,
  MAX_LINK_PARAM,
  revokeToken,
  sendLink,
  storeToken,
} from './email-steps.js';
import type { FlowServices } from './services.js';
import { output, placeholder, record, sharedGuards, signInTail, type Actor } from './shared.js';
import { checkSignIn, type SignInDecision } from './steps.js';

export interface EmailContext extends FlowContextBase {
  providerId: string;
  /** Whether opening the link shows the confirmation page (the provider's `confirm`). */
  confirm: boolean;
  /** The normalised address (request), or the link's address (callback). */
  email?: string;
  /**
   * The raw token: in memory while a request sends it; sealed in the flow cookie while the confirmation page
   * waits. Never stored anywhere else (the database holds its hash).
   */
  token?: string;
  /** When the stored token expires (ms). */
  expires?: number;
  /** A stored, unexpired token backs the opened link: only then does the confirmation page name its address. */
  linkChecked?: boolean;
  /** The stored user with this address, when there is one. */
  owner?: AdapterUser | null;
  /** Where the browser goes once the link is sent (the verify-request page). */
  verifyRequestUrl: string;
}

export type EmailEvent =
  | { type: 'REQUEST'; email: string }
  | { type: 'OPEN_LINK'; token?: string; email?: string }
  | { type: 'CONFIRM' };

type Emitted =
  | { type: 'signIn'; user: User; account: Account | null; isNewUser?: boolean }
  | { type: 'createUser'; user: User }
  | { type: 'updateUser'; user: User };

type Errored = { error: unknown };

/** The account an e-mail sign-in presents: the address is the account. */
function emailAccount(context: EmailContext, user: User): Account {
  return { provider: context.providerId, type: 'email', providerAccountId: context.email!, ...(user.id ? { userId: String(user.id) } : {}) };
}

export const emailMachine = setup({
  types: {
    context: {} as EmailContext,
    events: {} as EmailEvent,
    input: {} as { callbackUrl: string; providerId: string; startedAt: number; confirm: boolean; verifyRequestUrl: string },
    emitted: {} as Emitted,
  },
  actors: {
    normalize: placeholder('normalize') as Actor<string, { email: string }>,
    findUser: placeholder('findUser') as Actor<AdapterUser | null, { email: string }>,
    checkSignIn: placeholder('checkSignIn') as Actor<SignInDecision, { user: User; account: Account; verificationRequest: boolean }>,
    storeToken: placeholder('storeToken') as Actor<{ token: string; expires: number }, { email: string }>,
    sendLink: placeholder('sendLink') as Actor<void, { email: string; token: string; expires: number }>,
    revokeToken: placeholder('revokeToken') as Actor<void, { email: string; token: string }>,
    peekToken: placeholder('peekToken') as Actor<{ expires: number } | null | 'unchecked', { email: string; token: string }>,
    consumeToken: placeholder('consumeToken') as Actor<{ expires: number } | null, { email: string; token: string }>,
    createUser: placeholder('createUser') as Actor<AdapterUser, { email: string }>,
    markVerified: placeholder('markVerified') as Actor<AdapterUser, { user: AdapterUser }>,
    issueSession: placeholder('issueSession') as Actor<void, { user: User; account: Account | null; isNewUser?: boolean }>,
  },
  guards: {
    linkComplete: ({ event }) => {
      const { token, email } = event as Extract<EmailEvent, { type: 'OPEN_LINK' }>;
      const ok = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= MAX_LINK_PARAM;
      return ok(token) && ok(email);
    },
    confirmRequired: ({ context }) => context.confirm,
    userFound: ({ event }) => output<AdapterUser | null>(event) !== null,
    // The adapter cannot look a token up without using it (an Auth.js adapter): the page names no address.
    linkUnchecked: ({ event }) => output<unknown>(event) === 'unchecked',
    tokenFound: ({ event }) => output<{ expires: number } | null>(event) !== null,
    tokenExpired: ({ event }) => output<{ expires: number }>(event).expires <= Date.now(),
    ...sharedGuards,
  },
  actions: {
    recordError: assign(record.error),
    recordRefusal: assign(record.refusal),
    recordRedirect: assign(record.redirect),
    // The mail error stays the evidence; a failed revocation is added to it, not put in its place.
    recordNotRevoked: assign({
      failure: ({ context, event }) => ({ ...context.failure, expected: 'the unsent token revoked', actual: `still stored: ${evidenceFrom((event as unknown as Errored).error).message ?? 'unknown error'}` }),
    }),
    recordLinkUnknown: assign({
      token: undefined,
      failure: () => ({ message: 'No stored token matches this link: it was used already, or is for another address.', expected: 'a stored token for this address', actual: null }),
    }),
    recordLinkExpired: assign(({ event }) => ({
      token: undefined,
      failure: { message: 'The sign-in link has expired.', expected: `before ${new Date(output<{ expires: number }>(event).expires).toISOString()}`, actual: new Date().toISOString() },
    })),
    /** Puts the confirmation page in `response`; provided per request (it needs the CSRF token and the theme). */
    presentConfirmation: () => {},
  },
}).createMachine({
  id: 'email',
  initial: 'idle',
  context: ({ input }) => ({ ...input }),
  states: {
    idle: {
      on: {
        REQUEST: { target: 'normalizing', actions: assign({ email: ({ event }) => event.email }) },
        OPEN_LINK: [
          {
            guard: not('linkComplete'),
            target: 'failed.linkMalformed',
            actions: assign({ failure: () => ({ message: 'The sign-in link lacks its token or address.', expected: 'token and email', actual: 'missing or oversized' }) }),
          },
          { guard: 'confirmRequired', target: 'checkingLink', actions: assign(({ event }) => ({ token: event.token, email: event.email })) },
          { target: 'consumingToken', actions: assign(({ event }) => ({ token: event.token, email: event.email })) },
        ],
        CONFIRM: {
          target: 'failed.confirmationExpired',
          actions: assign({
            failure: () => ({ message: 'No opened sign-in link waits for confirmation in this browser; open the link in the e-mail again.', expected: 'a flow cookie', actual: null }),
          }),
        },
      },
    },

    // ---- request: POST {basePath}/signin/:id -------------------------------------------------------------
    normalizing: {
      invoke: {
        id: 'normalize',
        src: 'normalize',
        input: ({ context }) => ({ email: context.email ?? '' }),
        onDone: { target: 'findingRecipient', actions: assign({ email: ({ event }) => event.output }) },
        onError: { target: 'failed.invalidAddress', actions: 'recordError' },
      },
    },
    findingRecipient: {
      invoke: {
        id: 'findUser',
        src: 'findUser',
        input: ({ context }) => ({ email: context.email! }),
        onDone: { target: 'checkingRequest', actions: assign({ owner: ({ event }) => event.output }) },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    checkingRequest: {
      invoke: {
        id: 'checkSignIn',
        src: 'checkSignIn',
        input: ({ context }) => {
          const user: User = context.owner ?? { email: context.email!, emailVerified: null };
          return { user, account: emailAccount(context, user), verificationRequest: true };
        },
        onDone: [
          { guard: 'signInAllowed', target: 'storingToken' },
          { guard: 'signInRedirected', target: 'redirected', actions: 'recordRedirect' },
          { target: 'failed.accessDenied', actions: 'recordRefusal' },
        ],
        onError: { target: 'failed.accessDenied', actions: 'recordError' },
      },
    },
    storingToken: {
      invoke: {
        id: 'storeToken',
        src: 'storeToken',
        input: ({ context }) => ({ email: context.email! }),
        onDone: { target: 'sendingLink', actions: assign(({ event }) => ({ token: event.output.token, expires: event.output.expires })) },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    sendingLink: {
      invoke: {
        id: 'sendLink',
        src: 'sendLink',
        input: ({ context }) => ({ email: context.email!, token: context.token!, expires: context.expires! }),
        onDone: {
          target: 'linkSent',
          actions: assign(({ context }) => ({ token: undefined, redirectTo: context.verifyRequestUrl })),
        },
        onError: { target: 'revokingToken', actions: 'recordError' },
      },
    },
    revokingToken: {
      invoke: {
        id: 'revokeToken',
        src: 'revokeToken',
        input: ({ context }) => ({ email: context.email!, token: context.token! }),
        onDone: { target: 'failed.emailSignIn', actions: assign({ token: undefined }) },
        onError: { target: 'failed.emailSignIn', actions: ['recordNotRevoked', assign({ token: undefined })] },
      },
    },
    linkSent: { type: 'final', meta: { outcome: 'redirected' } },

    // ---- callback: GET, then POST {basePath}/callback/:id ------------------------------------------------
    // Anyone can write a link with any address in it: the page says "Sign in as <address>?" only once a stored
    // token for that address backs it, and a used or expired link says so at once. Nothing is consumed here.
    checkingLink: {
      invoke: {
        id: 'peekToken',
        src: 'peekToken',
        input: ({ context }) => ({ email: context.email!, token: context.token! }),
        onDone: [
          { guard: 'linkUnchecked', target: 'awaitingConfirmation', actions: 'presentConfirmation' },
          { guard: not('tokenFound'), target: 'failed.linkUnknown', actions: 'recordLinkUnknown' },
          { guard: 'tokenExpired', target: 'failed.linkExpired', actions: 'recordLinkExpired' },
          { target: 'awaitingConfirmation', actions: [assign({ linkChecked: true }), 'presentConfirmation'] },
        ],
        onError: { target: 'failed.callbackRoute', actions: ['recordError', assign({ token: undefined })] },
      },
    },
    // The confirmation page is a paused state of the machine, not a page outside it: confirming is a step of the
    // protocol, the flow cookie ties the POST to the browser that opened the link, and the token never has to
    // travel in the form.
    awaitingConfirmation: {
      tags: ['awaiting'],
      on: { CONFIRM: 'consumingToken' },
    },
    consumingToken: {
      invoke: {
        id: 'consumeToken',
        src: 'consumeToken',
        input: ({ context }) => ({ email: context.email!, token: context.token! }),
        onDone: [
          { guard: not('tokenFound'), target: 'failed.linkUnknown', actions: 'recordLinkUnknown' },
          { guard: 'tokenExpired', target: 'failed.linkExpired', actions: 'recordLinkExpired' },
          { target: 'findingUser', actions: assign({ token: undefined }) },
        ],
        onError: { target: 'failed.callbackRoute', actions: ['recordError', assign({ token: undefined })] },
      },
    },
    findingUser: {
      invoke: {
        id: 'findUser',
        src: 'findUser',
        input: ({ context }) => ({ email: context.email! }),
        onDone: [
          { guard: 'userFound', target: 'markingVerified', actions: assign({ owner: ({ event }) => event.output }) },
          { target: 'creatingUser' },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    creatingUser: {
      invoke: {
        id: 'createUser',
        src: 'createUser',
        input: ({ context }) => ({ email: context.email! }),
        onDone: {
          target: 'checkingSignIn',
          actions: [assign({ user: ({ event }) => event.output, isNewUser: true }), emit(({ event }) => ({ type: 'createUser' as const, user: event.output }))],
        },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    markingVerified: {
      invoke: {
        id: 'markVerified',
        src: 'markVerified',
        input: ({ context }) => ({ user: context.owner! }),
        onDone: {
          target: 'checkingSignIn',
          actions: [assign({ user: ({ event }) => event.output, isNewUser: false }), emit(({ event }) => ({ type: 'updateUser' as const, user: event.output }))],
        },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    checkingSignIn: {
      entry: assign(({ context }) => ({ account: emailAccount(context, context.user!) })),
      invoke: {
        id: 'checkSignIn',
        src: 'checkSignIn',
        input: ({ context }) => ({ user: context.user!, account: context.account!, verificationRequest: false }),
        onDone: [
          { guard: 'signInAllowed', target: 'issuingSession' },
          { guard: 'signInRedirected', target: 'redirected', actions: 'recordRedirect' },
          { target: 'failed.accessDenied', actions: 'recordRefusal' },
        ],
        onError: { target: 'failed.accessDenied', actions: 'recordError' },
      },
    },
    ...signInTail(),
    failed: {
      initial: 'callbackRoute',
      states: {
        invalidAddress: { type: 'final', meta: { error: 'EmailSignInError' } },
        accessDenied: { type: 'final', meta: { error: 'AccessDenied' } },
        emailSignIn: { type: 'final', meta: { error: 'EmailSignInError' } },
        linkMalformed: { type: 'final', meta: { error: 'Verification' } },
        confirmationExpired: { type: 'final', meta: { error: 'Verification' } },
        linkUnknown: { type: 'final', meta: { error: 'Verification' } },
        linkExpired: { type: 'final', meta: { error: 'Verification' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

/**
 * Runs the provider's address normaliser; anything but a non-empty string is an unusable address. An address a
 * custom normaliser returns still gets its domain in ASCII, so its Unicode and punycode spellings are one user.
 */
function normalizeWith(s: FlowServices, email: string): string {
  const normalize = emailProviderOf(s).normalizeIdentifier ?? normalizeEmailAddress;
  let value = normalize(email);
  // An identifier without "@" (a phone number, say) is the custom normaliser's own business.
  if (typeof value === 'string' && value.includes('@')) value = asciiEmailDomain(value) ?? '';
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LINK_PARAM) throw new TypeError('normalizeIdentifier returned no usable address.');
  return value;
}

/**
 * The e-mail providers' flow: POST signin/:id sends the link (CSRF required); GET callback/:id opens it (the
 * confirmation page, or one-click sign-in with `confirm: false`); POST callback/:id confirms (CSRF required).
 */
export const emailFlow: FlowDefinition<typeof emailMachine> = {
  machine: emailMachine,
  version: 1,
  csrf: ['signin', 'callback'],
  input: (s) => ({
    callbackUrl: s.callbackUrl,
    providerId: s.provider.id,
    startedAt: Date.now(),
    confirm: emailProviderOf(s).confirm !== false,
    verifyRequestUrl: `${s.req.authUrl}/verify-request?${new URLSearchParams({ provider: s.provider.id, type: 'email' })}`,
  }),
  entry: (route, s) => {
    if (route === 'signin' && s.req.method === 'POST') return { resume: false, event: { type: 'REQUEST', email: bodyString(s.req, 'email') ?? '' } };
    if (route !== 'callback') return null;
    if (s.req.method === 'GET') return { resume: false, event: { type: 'OPEN_LINK', token: s.req.query.token, email: s.req.query.email } };
    // Without a flow cookie there is no opened link to confirm: a fresh machine says so (Verification),
    // rather than the runtime reporting a missing cookie as a server problem.
    if (s.req.method === 'POST') return { resume: s.req.cookies[flowCookieName(s.req, s.provider.id)] !== undefined, event: { type: 'CONFIRM' } };
    return null;
  },
  implement: (s) => ({
    actors: {
      normalize: fromPromise<string, { email: string }>(async ({ input }) => normalizeWith(s, input.email)),
      findUser: fromPromise<AdapterUser | null, { email: string }>(({ input }) => findUser(s, input.email)),
      checkSignIn: fromPromise<SignInDecision, { user: User; account: Account; verificationRequest: boolean }>(({ input }) =>
        checkSignIn(s, { user: input.user, account: input.account, ...(input.verificationRequest ? { email: { verificationRequest: true } } : {}) }),
      ),
      storeToken: fromPromise<{ token: string; expires: number }, { email: string }>(({ input }) => storeToken(s, input.email)),
      sendLink: fromPromise<void, { email: string; token: string; expires: number }>(({ input }) => sendLink(s, input)),
      revokeToken: fromPromise<void, { email: string; token: string }>(({ input }) => revokeToken(s, input)),
      peekToken: fromPromise<{ expires: number } | null | 'unchecked', { email: string; token: string }>(({ input }) => peekToken(s, input)),
      consumeToken: fromPromise<{ expires: number } | null, { email: string; token: string }>(({ input }) => consumeToken(s, input)),
      createUser: fromPromise<AdapterUser, { email: string }>(({ input }) => createEmailUser(s, input.email)),
      markVerified: fromPromise<AdapterUser, { user: AdapterUser }>(({ input }) => markVerified(s, input.user)),
      issueSession: fromPromise<void, { user: User; account: Account | null; isNewUser?: boolean }>(({ input }) => issueEmailSession(s, input)),
    },
    actions: {
      presentConfirmation: assign(({ context }: { context: EmailContext }) => ({
        response: {
          kind: 'html' as const,
          body: renderConfirmEmail({
            theme: s.req.config.theme,
            actionUrl: `${s.req.authUrl}/callback/${encodeURIComponent(s.provider.id)}`,
            hiddenFields: { csrfToken: csrf(s.req).token },
            email: context.linkChecked ? context.email : undefined,
            nonce: pageNonce(s.req),
          }),
        },
      })),
    },
  }),
};
