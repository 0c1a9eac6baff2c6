// The e-mail (magic link) flow. Request: normalise the address -> signIn callback -> store a hashed token ->
// send the link -> verify-request page. Callback: open the link -> look the token up (without using it) ->
// confirmation page (the only persisted state; GET consumes nothing) -> confirm -> consume the token (with a
// transactional adapter: claim and prove it, left for the session issue to spend in the session's transaction) ->
// authenticated: the standard sign-in tail creates or verifies the user and issues the session. With codes on, the
// request also claims the address's resend cooldown and stores a code beside the token, then pauses on the code
// page; the code typed back in that browser consumes the same token the link would (codes.ts). The code page never
// dead-ends: "send a new code" is an event of the paused flow (the address kept), answered within the cooldown by the
// same page with a countdown (the code already sent still works); a code dead after too many wrong tries pauses on a
// page that offers a new code for the same address.
import { and, assign, fromPromise, not, setup } from 'xstate';
import { bodyString } from '../../core/request-context.js';
import type { Account, AdapterUser, User } from '../../core/types.js';
import type { TokenSpend } from '../../session/spend.js';
import { checkSignIn, signInAllowed, signInRedirected, type SignInDecision } from '../signin/check.js';
import { AWAITING, defineFlow, type FlowDeps, type FlowInput, type FlowOutput, type FlowText, finalOutput } from '../runtime/contract.js';
import { baseContext, evidenceFrom, doneOutput, errorOf, recordFailure, type FlowContextBase } from '../runtime/context.js';
import { checkCode, claimCooldown, codeOptions, storeCode, type CodeCheck } from './codes.js';
import {
  consumeToken,
  emailProviderOf,
  findRecipient,
  MAX_LINK_PARAM,
  normalizeAddress,
  peekToken,
  revokeToken,
  sendLink,
  storeToken,
} from './steps.js';

export interface EmailContext extends FlowContextBase {
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
  /** The stored user with the requested address, when there is one (the signIn callback's `user`). */
  recipient?: AdapterUser | null;
  /** Where the browser goes once the link is sent (the verify-request page). */
  verifyRequestUrl: string;
  /** Whether the provider sends a code (and the flow waits for it after sending). */
  codes: boolean;
  /** The stored token's hash: what the code page's flow cookie holds to find the code and consume the token. */
  tokenHash?: string;
  /** The raw code, in memory only while the mail is sent; never persisted. */
  code?: string;
  /** Tries left after a wrong code, shown on the code page. */
  triesLeft?: number;
  /** The provider's resend cooldown (seconds): what the countdown is measured against. */
  resendCooldown: number;
  /** When this browser's last code was mailed (ms): the cooldown it claimed runs from then. */
  sentAt?: number;
  /** A "send a new code" refused by the cooldown: when one can be sent (ms), shown as a countdown. */
  resendAt?: number;
  /** Why the code can no longer be used: too many wrong tries, or gone (expired, or used by the link). */
  codeSpent?: 'tries' | 'gone';
  /** The proved token, left stored for the session issue to use up with the session (steps.ts `consumeToken`). */
  spend?: TokenSpend;
}

/** What the e-mail flow is created with, beside {@link FlowInput}. */
export type EmailInput = {
  confirm: boolean;
  verifyRequestUrl: string;
  codes: boolean;
  /** The resend cooldown in seconds (0: none, or no codes). */
  resendCooldown?: number;
};

export type EmailEvent =
  | { type: 'REQUEST'; email: string }
  | { type: 'OPEN_LINK'; token?: string; email?: string }
  | { type: 'CONFIRM' }
  | { type: 'SUBMIT_CODE'; code: string }
  /** "Send a new code", naming the address the page shows (the throttle counts it against that address). */
  | { type: 'RESEND'; email?: string };

type TokenFound = { expires: number; spend?: TokenSpend } | null;
type Link = { deps: FlowDeps; email: string; token: string };
const output = doneOutput;

/**
 * An address inside a sentence, isolated from the sentence's direction (Unicode first-strong isolate): in Arabic its
 * `-` and `@` no longer reorder the address around the line break.
 */
function isolated(address: string): string {
  return `\u2068${address}\u2069`;
}

/** The countdown a page shows while a new code cannot be sent yet (whole seconds, at least 1), or nothing. */
function waitOf(context: EmailContext, message: 'emailCode.wait' | 'emailCode.waitSpent'): { wait?: { seconds: number; text: FlowText } } {
  if (context.resendAt === undefined) return {};
  const seconds = Math.ceil((context.resendAt - Date.now()) / 1000);
  return seconds > 0 ? { wait: { seconds, text: { message } } } : {};
}

/** The account an e-mail sign-in presents: the address is the account. */
function emailAccount(providerId: string, email: string, user?: User): Account {
  return { provider: providerId, type: 'email', providerAccountId: email, ...(user?.id ? { userId: String(user.id) } : {}) };
}

export const emailMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as EmailContext,
    events: {} as EmailEvent,
    input: {} as FlowInput & EmailInput,
    output: {} as FlowOutput,
  },
  actors: {
    normalize: fromPromise<string, { deps: FlowDeps; email: string }>(async ({ input }) => normalizeAddress(input.deps.provider, input.email)),
    findRecipient: fromPromise<AdapterUser | null, { deps: FlowDeps; email: string }>(({ input }) => findRecipient(input.deps, input.email)),
    // Asked before anything is stored or sent, as Auth.js does: `email.verificationRequest` tells it apart from
    // the signIn check the tail makes once the link is used.
    checkSignIn: fromPromise<SignInDecision, { deps: FlowDeps; user: User; account: Account }>(({ input }) =>
      checkSignIn(input.deps, { user: input.user, account: input.account, email: { verificationRequest: true } }),
    ),
    claimCooldown: fromPromise<'claimed' | 'cooling', { deps: FlowDeps; email: string }>(({ input }) => claimCooldown(input.deps, input.email)),
    storeToken: fromPromise<{ token: string; tokenHash: string; expires: number }, { deps: FlowDeps; email: string }>(({ input }) => storeToken(input.deps, input.email)),
    storeCode: fromPromise<string, { deps: FlowDeps; tokenHash: string; expires: number }>(({ input }) => storeCode(input.deps, input)),
    sendLink: fromPromise<void, Link & { expires: number; code?: string }>(({ input }) => sendLink(input.deps, input)),
    checkCode: fromPromise<CodeCheck, { deps: FlowDeps; email: string; tokenHash: string; code: string }>(({ input }) => checkCode(input.deps, input)),
    revokeToken: fromPromise<void, Link>(({ input }) => revokeToken(input.deps, input)),
    peekToken: fromPromise<TokenFound | 'unchecked', Link>(({ input }) => peekToken(input.deps, input)),
    consumeToken: fromPromise<TokenFound, { deps: FlowDeps; email: string; token?: string; tokenHash?: string }>(({ input }) => consumeToken(input.deps, input)),
  },
  guards: {
    linkComplete: ({ event }) => {
      const { token, email } = event as Extract<EmailEvent, { type: 'OPEN_LINK' }>;
      const ok = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= MAX_LINK_PARAM;
      return ok(token) && ok(email);
    },
    confirmRequired: ({ context }) => context.confirm,
    codesOn: ({ context }) => context.codes,
    // A new code is asked for the address this flow mails, named as the page named it: the limits the throttle
    // counted (per address) were this address's. Another address is refused, and nothing runs.
    resendHere: ({ context, event }) => (event as Extract<EmailEvent, { type: 'RESEND' }>).email === context.email,
    cooling: ({ event }) => output<unknown>(event) === 'cooling',
    codePassed: ({ event }) => output<CodeCheck>(event).result === 'passed',
    codeWrong: ({ event }) => output<CodeCheck>(event).result === 'wrong',
    signInAllowed,
    signInRedirected,
    // The adapter cannot look a token up without using it (an Auth.js adapter): the page names no address.
    linkUnchecked: ({ event }) => output<unknown>(event) === 'unchecked',
    tokenFound: ({ event }) => output<TokenFound>(event) !== null,
    tokenExpired: ({ event }) => output<{ expires: number }>(event).expires <= Date.now(),
  },
  actions: {
    recordError: assign(recordFailure),
    recordRefusal: assign({ failure: () => ({ message: 'The signIn callback refused to send a sign-in link.', expected: true, actual: false }) }),
    recordRedirect: assign({ redirectTo: ({ event }) => output<{ redirect: string }>(event).redirect }),
    // The mail error stays the evidence; a failed revocation is added to it, not put in its place.
    recordNotRevoked: assign({
      failure: ({ context, event }) => ({ ...context.failure, expected: 'the unsent token revoked', actual: `still stored: ${evidenceFrom(errorOf(event)).message ?? 'unknown error'}` }),
    }),
    forgetToken: assign({ token: undefined, code: undefined }),
    recordNoCodeSent: assign({ failure: () => ({ message: 'This browser did not ask for a sign-in code, or its request has expired.', expected: 'a flow cookie', actual: null }) }),
    recordSpend: assign({ spend: ({ event }) => output<NonNullable<TokenFound>>(event).spend }),
    recordCooldown: assign({ failure: () => ({ message: 'A code went to this address moments ago: wait before asking for another.', expected: 'the resend cooldown over', actual: 'cooling' }) }),
    recordWrongCode: assign({ triesLeft: ({ event }) => (output<CodeCheck>(event) as { left: number }).left }),
    // The code is dead: the page says why and offers a new one for the same address.
    recordCodeSpent: assign({
      tokenHash: undefined,
      triesLeft: undefined,
      resendAt: undefined,
      codeSpent: ({ event }) => ((output<CodeCheck>(event) as { reason?: 'tries' | 'gone' }).reason === 'tries' ? ('tries' as const) : ('gone' as const)),
    }),
    recordCodeDead: assign({
      failure: () => ({ message: 'A code was posted for a code that is used, expired, or dead after too many wrong tries.', expected: 'a live code', actual: null }),
    }),
    // A new code within the cooldown: none is sent; the page counts down to when one can be (from this browser's
    // last mail, or a whole cooldown when another browser asked since).
    recordWait: assign({
      resendAt: ({ context }) => {
        const now = Date.now();
        const fromHere = (context.sentAt ?? 0) + context.resendCooldown * 1000;
        return fromHere > now ? fromHere : now + context.resendCooldown * 1000;
      },
    }),
    recordSent: assign({ sentAt: () => Date.now(), triesLeft: undefined, resendAt: undefined, codeSpent: undefined }),
    // The page after sending: the code field, posted with this browser's flow cookie (the only place the token's hash is).
    presentCodePage: assign({
      response: ({ context }) => ({
        kind: 'page' as const,
        page: 'form' as const,
        data: {
          title: { message: 'verify.title' },
          message: { message: 'emailCode.message', values: { address: isolated(context.email!) } },
          ...(context.triesLeft !== undefined ? { error: context.triesLeft === 1 ? { message: 'emailCode.wrongLast' } : { message: 'emailCode.wrong', values: { count: context.triesLeft } } } : {}),
          ...waitOf(context, 'emailCode.wait'),
          fields: [{ name: 'code', label: { message: 'emailCode.label' }, type: 'text' as const, autocomplete: 'one-time-code', inputmode: 'numeric' as const, maxlength: 16 }],
          submit: { message: 'common.signIn' },
          // Asking again is an event of this paused flow: the address stays, and the cooldown answers with this page.
          alternative: { action: `callback/${encodeURIComponent(context.providerId)}`, label: { message: 'emailCode.resend' }, fields: { action: 'resend', email: context.email! } },
          leave: { href: `signin?${new URLSearchParams({ callbackUrl: context.callbackUrl })}`, text: { message: 'emailCode.otherAddress' } },
        },
      }),
    }),
    // The code is dead (too many wrong tries, expired, or used by the link): the one action is a new code.
    presentSpentPage: assign({
      response: ({ context }) => ({
        kind: 'page' as const,
        page: 'form' as const,
        data: {
          title: { message: 'emailCode.newCodeTitle' },
          error: { message: context.codeSpent === 'tries' ? 'emailCode.spentTries' : 'emailCode.spentGone' },
          message: { message: 'emailCode.newCodeMessage', values: { address: isolated(context.email!) } },
          ...waitOf(context, 'emailCode.waitSpent'),
          fields: [],
          hidden: { action: 'resend', email: context.email! },
          submit: { message: 'emailCode.resend' },
          leave: { href: `signin?${new URLSearchParams({ callbackUrl: context.callbackUrl })}`, text: { message: 'emailCode.otherAddress' } },
        },
      }),
    }),
    recordLinkUnknown: assign({
      token: undefined,
      failure: () => ({ message: 'No stored token matches this link: it was used already, or is for another address.', expected: 'a stored token for this address', actual: null }),
    }),
    recordLinkExpired: assign(({ event }) => ({
      token: undefined,
      failure: { message: 'The sign-in link has expired.', expected: `before ${new Date(output<{ expires: number }>(event).expires).toISOString()}`, actual: new Date().toISOString() },
    })),
    // The HTTP layer renders the page (CSRF token, theme, nonce); the flow says only what it shows.
    presentConfirmation: assign({
      response: ({ context }) => ({
        kind: 'page' as const,
        page: 'confirmEmail' as const,
        data: { email: context.linkChecked ? context.email! : '', provider: context.providerId },
      }),
    }),
  },
}).createMachine({
  id: 'email',
  initial: 'idle',
  context: ({ input }) => ({ ...baseContext(input), confirm: input.confirm, verifyRequestUrl: input.verifyRequestUrl, codes: input.codes, resendCooldown: input.resendCooldown ?? 0 }),
  output: finalOutput,
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
        // A code typed in a browser that never asked for one (another browser, or a flow cookie gone): no code to try.
        SUBMIT_CODE: { target: 'failed.noCodeSent', actions: 'recordNoCodeSent' },
        RESEND: { target: 'failed.noCodeSent', actions: 'recordNoCodeSent' },
      },
    },

    // ---- request: POST {basePath}/signin/:id -------------------------------------------------------------
    normalizing: {
      invoke: {
        id: 'normalize',
        src: 'normalize',
        input: ({ context }) => ({ deps: context.deps, email: context.email ?? '' }),
        onDone: { target: 'findingRecipient', actions: assign({ email: ({ event }) => event.output }) },
        onError: { target: 'failed.invalidAddress', actions: 'recordError' },
      },
    },
    findingRecipient: {
      invoke: {
        id: 'findRecipient',
        src: 'findRecipient',
        input: ({ context }) => ({ deps: context.deps, email: context.email! }),
        onDone: { target: 'checkingRequest', actions: assign({ recipient: ({ event }) => event.output }) },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    checkingRequest: {
      invoke: {
        id: 'checkSignIn',
        src: 'checkSignIn',
        input: ({ context }) => {
          const user: User = context.recipient ?? { email: context.email!, emailVerified: null };
          return { deps: context.deps, user, account: emailAccount(context.providerId, context.email!, user) };
        },
        onDone: [
          { guard: and(['signInAllowed', 'codesOn']), target: 'claimingCooldown' },
          { guard: 'signInAllowed', target: 'storingToken' },
          { guard: 'signInRedirected', target: 'redirected', actions: 'recordRedirect' },
          { target: 'failed.accessDenied', actions: 'recordRefusal' },
        ],
        onError: { target: 'failed.accessDenied', actions: 'recordError' },
      },
    },
    // Codes only: one mail per address per cooldown, whoever asks; a browser cannot buy fresh tries by asking again.
    claimingCooldown: {
      invoke: {
        id: 'claimCooldown',
        src: 'claimCooldown',
        input: ({ context }) => ({ deps: context.deps, email: context.email! }),
        onDone: [{ guard: 'cooling', target: 'failed.cooldown', actions: 'recordCooldown' }, { target: 'storingToken' }],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    storingToken: {
      invoke: {
        id: 'storeToken',
        src: 'storeToken',
        input: ({ context }) => ({ deps: context.deps, email: context.email! }),
        onDone: [
          { guard: 'codesOn', target: 'storingCode', actions: assign(({ event }) => ({ token: event.output.token, tokenHash: event.output.tokenHash, expires: event.output.expires })) },
          { target: 'sendingLink', actions: assign(({ event }) => ({ token: event.output.token, expires: event.output.expires })) },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    // The code's hash goes under the token's hash in the flow store; the raw code only into the mail.
    storingCode: {
      invoke: {
        id: 'storeCode',
        src: 'storeCode',
        input: ({ context }) => ({ deps: context.deps, tokenHash: context.tokenHash!, expires: context.expires! }),
        onDone: { target: 'sendingLink', actions: assign({ code: ({ event }) => event.output }) },
        onError: { target: 'revokingToken', actions: 'recordError' },
      },
    },
    sendingLink: {
      invoke: {
        id: 'sendLink',
        src: 'sendLink',
        input: ({ context }) => ({ deps: context.deps, email: context.email!, token: context.token!, expires: context.expires!, code: context.code }),
        onDone: [
          { guard: 'codesOn', target: 'awaitingCode', actions: ['forgetToken', 'recordSent'] },
          { target: 'linkSent', actions: 'forgetToken' },
        ],
        onError: { target: 'revokingToken', actions: 'recordError' },
      },
    },
    revokingToken: {
      invoke: {
        id: 'revokeToken',
        src: 'revokeToken',
        input: ({ context }) => ({ deps: context.deps, email: context.email!, token: context.token! }),
        onDone: { target: 'failed.emailSignIn', actions: 'forgetToken' },
        onError: { target: 'failed.emailSignIn', actions: ['recordNotRevoked', 'forgetToken'] },
      },
    },
    linkSent: {
      type: 'final',
      output: ({ context }) => ({ outcome: 'redirected' as const, url: context.verifyRequestUrl }),
    },
    // The mail is out and this browser waits with the code page; its flow cookie holds the token's hash, never
    // the code or the raw token.
    awaitingCode: {
      tags: [AWAITING],
      entry: 'presentCodePage',
      on: { SUBMIT_CODE: 'checkingCode', RESEND: { guard: 'resendHere', target: 'claimingResend' } },
    },
    // "Send a new code" from the code page: within the cooldown nothing is sent and the same page (its code still
    // good) counts down; after it, a new token and code go out and the page asks for the new code.
    claimingResend: {
      invoke: {
        id: 'claimCooldown',
        src: 'claimCooldown',
        input: ({ context }) => ({ deps: context.deps, email: context.email! }),
        onDone: [{ guard: 'cooling', target: 'awaitingCode', actions: 'recordWait' }, { target: 'storingToken' }],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    // The code can no longer be used: this browser may ask for a new one for the same address, or leave.
    awaitingNewCode: {
      tags: [AWAITING],
      entry: 'presentSpentPage',
      on: {
        RESEND: { guard: 'resendHere', target: 'claimingNewCode' },
        // A code posted from an older copy of the code page: that code is dead.
        SUBMIT_CODE: { target: 'failed.codeDead', actions: 'recordCodeDead' },
      },
    },
    claimingNewCode: {
      invoke: {
        id: 'claimCooldown',
        src: 'claimCooldown',
        input: ({ context }) => ({ deps: context.deps, email: context.email! }),
        onDone: [{ guard: 'cooling', target: 'awaitingNewCode', actions: 'recordWait' }, { target: 'storingToken' }],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    checkingCode: {
      invoke: {
        id: 'checkCode',
        src: 'checkCode',
        input: ({ context, event }) => ({
          deps: context.deps,
          email: context.email!,
          tokenHash: context.tokenHash!,
          code: (event as Extract<EmailEvent, { type: 'SUBMIT_CODE' }>).code,
        }),
        onDone: [
          { guard: 'codePassed', target: 'consumingToken' },
          { guard: 'codeWrong', target: 'awaitingCode', actions: 'recordWrongCode' },
          { target: 'awaitingNewCode', actions: 'recordCodeSpent' },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    // The signIn callback sent the browser elsewhere: no link is stored or sent.
    redirected: {
      type: 'final',
      output: ({ context }) => ({ outcome: 'redirected' as const, url: context.redirectTo! }),
    },

    // ---- callback: GET, then POST {basePath}/callback/:id ------------------------------------------------
    // Anyone can write a link with any address in it: the page says "Sign in as <address>?" only once a stored
    // token for that address backs it, and a used or expired link says so at once. Nothing is consumed here.
    checkingLink: {
      invoke: {
        id: 'peekToken',
        src: 'peekToken',
        input: ({ context }) => ({ deps: context.deps, email: context.email!, token: context.token! }),
        onDone: [
          { guard: 'linkUnchecked', target: 'awaitingConfirmation' },
          { guard: not('tokenFound'), target: 'failed.linkUnknown', actions: 'recordLinkUnknown' },
          { guard: 'tokenExpired', target: 'failed.linkExpired', actions: 'recordLinkExpired' },
          { target: 'awaitingConfirmation', actions: assign({ linkChecked: true }) },
        ],
        onError: { target: 'failed.callbackRoute', actions: ['recordError', 'forgetToken'] },
      },
    },
    // The confirmation page is a paused state of the machine, not a page outside it: confirming is a step of the
    // protocol, the flow cookie ties the POST to the browser that opened the link, and the token never has to
    // travel in the form.
    awaitingConfirmation: {
      tags: [AWAITING],
      entry: 'presentConfirmation',
      on: { CONFIRM: 'consumingToken' },
    },
    consumingToken: {
      invoke: {
        id: 'consumeToken',
        src: 'consumeToken',
        // The link brings its raw token; a matched code, the token's hash from the flow cookie.
        input: ({ context }) => ({ deps: context.deps, email: context.email!, ...(context.token !== undefined ? { token: context.token } : { tokenHash: context.tokenHash }) }),
        onDone: [
          { guard: not('tokenFound'), target: 'failed.linkUnknown', actions: 'recordLinkUnknown' },
          { guard: 'tokenExpired', target: 'failed.linkExpired', actions: 'recordLinkExpired' },
          { target: 'authenticated', actions: ['forgetToken', 'recordSpend'] },
        ],
        onError: { target: 'failed.callbackRoute', actions: ['recordError', 'forgetToken'] },
      },
    },
    // The address is proven. The tail finds its owner, asks the signIn callback, creates a verified user or marks
    // the owner verified, and issues the session.
    authenticated: {
      type: 'final',
      output: ({ context }) => ({
        outcome: 'authenticated' as const,
        user: { email: context.email! },
        account: emailAccount(context.providerId, context.email!),
        ...(context.spend ? { spend: context.spend } : {}),
      }),
    },
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
        noCodeSent: { type: 'final', meta: { error: 'Verification' } },
        codeDead: { type: 'final', meta: { error: 'Verification' } },
        cooldown: { type: 'final', meta: { error: 'RateLimited' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

/**
 * The e-mail providers' flow: POST signin/:id sends the link (CSRF required), and with codes pauses on the code
 * page; GET callback/:id opens the link (the confirmation page, or one-click sign-in with `confirm: false`); POST
 * callback/:id confirms, or submits the code (CSRF required).
 */
export const emailFlow = /* @__PURE__ */ defineFlow({
  machine: emailMachine,
  version: 4,
  csrf: ['signin', 'callback'],
  input: (deps): EmailInput => ({
    confirm: emailProviderOf(deps).confirm !== false,
    verifyRequestUrl: `${deps.req.authUrl}/verify-request?${new URLSearchParams({ provider: deps.provider.id, type: 'email' })}`,
    codes: codeOptions(deps) !== undefined,
    resendCooldown: codeOptions(deps)?.resendCooldown ?? 0,
  }),
  entry: (route, deps, paused) => {
    const { req } = deps;
    if (route === 'signin' && req.method === 'POST') return { resume: false, event: { type: 'REQUEST', email: bodyString(req, 'email') ?? '' } };
    if (route !== 'callback') return null;
    if (req.method === 'GET') return { resume: false, event: { type: 'OPEN_LINK', token: req.query.token, email: req.query.email } };
    // Without a flow cookie there is no opened link to confirm: a fresh machine says so (Verification),
    // rather than the runtime reporting a missing cookie as a server problem.
    if (req.method === 'POST') {
      // The code page posts its field, or asks for a new code; the confirmation page posts neither.
      const code = bodyString(req, 'code');
      if (code !== undefined) return { resume: paused, event: { type: 'SUBMIT_CODE', code } };
      return { resume: paused, event: bodyString(req, 'action') === 'resend' ? { type: 'RESEND', email: bodyString(req, 'email') ?? '' } : { type: 'CONFIRM' } };
    }
    return null;
  },
});
