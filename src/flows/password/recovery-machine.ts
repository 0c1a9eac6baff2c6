// Password recovery ("forgot your password?"), as Kratos draws its recovery flow. Ask: an address -> the same page
// whatever it is ("if an account exists, we sent a link and a code"). Prove: the link (any browser) or the code
// (this browser, a few tries, a new code after a cooldown). Choose: a new password under the rules -> the token taken
// once, every session ended, the password written if unchanged since the request -> the notice mail -> the sign-in
// page with a confirmation. No sign-in here: the user signs in with the new password, second factor included.
// Whatever a person got wrong leads back to a page that says so; only the server's own failures end the flow.
import { assign, fromPromise, setup } from 'xstate';
import type { PasswordProblem } from '../../core/errors.js';
import type { MessageId } from '../../core/messages/en.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../providers/password/rules.js';
import type { PasswordConfig } from '../../providers/password/provider.js';
import { AWAITING, type FlowFormField, type FlowFormPage, type FlowInput, type FlowResponse, type FlowText, finalOutput } from '../runtime/contract.js';
import { baseContext, doneOutput, recordFailure, type FlowContextBase } from '../runtime/context.js';
import { defineAccountFlow } from '../runtime/account.js';
import { afterReset, checkCode, issueReset, MAX_RESET_TOKEN, openLink, resetPassword, type CodeCheck, type IssueResult, type LinkCheck, type ResetResult } from './recovery-steps.js';

export interface RecoveryContext extends FlowContextBase {
  /** The address asked for, as typed until normalised: shown back on the page, never a clue to an account. */
  email?: string;
  /** The reset entry's key (the token's HMAC): what this browser's flow cookie holds to check a code or set the password. */
  tokenHash?: string;
  /** When the entry expires (ms). */
  expires?: number;
  /** The link's raw token and the new password: in memory while one request runs, never sealed. */
  token?: string;
  password?: string;
  /** What the page says went wrong, beside its field. */
  notice?: 'invalidAddress' | 'cooling' | 'wrongCode' | 'dead' | 'noRequest' | PasswordProblem;
  triesLeft?: number;
  /** The account whose password was reset, for the steps after it. */
  reset?: { userId: string; email: string };
}

export type RecoveryEvent =
  | { type: 'START'; email?: string }
  | { type: 'REQUEST'; email: string }
  | { type: 'RESEND' }
  | { type: 'SUBMIT_CODE'; code: string }
  | { type: 'OPEN_LINK'; token: string }
  | { type: 'SET_PASSWORD'; password: string };

const MESSAGES: Record<NonNullable<RecoveryContext['notice']>, MessageId> = {
  invalidAddress: 'recovery.invalidAddress',
  cooling: 'recovery.cooling',
  wrongCode: 'recovery.wrong',
  dead: 'recovery.dead',
  noRequest: 'recovery.noRequest',
  too_short: 'recovery.tooShort',
  too_long: 'recovery.tooLong',
  nul: 'recovery.badText',
  invalid_utf16: 'recovery.badText',
  not_a_string: 'recovery.badText',
  breached: 'recovery.breached',
};

function minLengthOf(context: RecoveryContext): number {
  return (context.deps?.provider as unknown as PasswordConfig | undefined)?.password?.minLength ?? MIN_PASSWORD_LENGTH;
}

function noticeText(context: RecoveryContext): FlowText | undefined {
  const n = context.notice;
  if (!n) return undefined;
  if (n === 'wrongCode') return context.triesLeft === 1 ? { message: 'recovery.wrongLast' } : { message: 'recovery.wrong', values: { count: context.triesLeft ?? 0 } };
  return { message: MESSAGES[n], values: { min: minLengthOf(context), max: MAX_PASSWORD_LENGTH } };
}

const leave = (context: RecoveryContext) => ({ href: `signin?${new URLSearchParams({ callbackUrl: context.callbackUrl })}`, text: { message: 'recovery.backToSignIn' as const } });

/** The request form: the address (kept as typed), its error beside it. */
function requestPage(context: RecoveryContext): FlowResponse {
  const error = noticeText(context);
  const field: FlowFormField = { name: 'email', label: { message: 'recovery.address' }, type: 'email', autocomplete: 'username', maxlength: 320, ...(context.email ? { value: context.email } : {}), ...(error ? { error } : {}) };
  const page: FlowFormPage = { title: { message: 'recovery.title' }, message: { message: 'recovery.intro' }, fields: [field], submit: { message: 'recovery.send' }, leave: leave(context) };
  return { kind: 'page', page: 'form', data: page, status: context.notice === 'invalidAddress' ? 400 : 200 };
}

/** After a request: the same page for every address, with the code field, a new code, and another address. */
function codePage(context: RecoveryContext): FlowResponse {
  const error = context.notice === 'cooling' ? undefined : noticeText(context);
  const page: FlowFormPage = {
    title: { message: 'recovery.title' },
    message: { message: 'recovery.sent', values: { address: context.email ?? '' } },
    ...(context.notice === 'cooling' ? { error: { message: 'recovery.cooling' } } : {}),
    fields: [{ name: 'code', label: { message: 'recovery.codeLabel' }, autocomplete: 'one-time-code', inputmode: 'numeric', maxlength: 16, ...(error ? { error } : {}) }],
    submit: { message: 'recovery.verify' },
    alternative: { action: `recover/${encodeURIComponent(context.providerId)}`, label: { message: 'recovery.resend' }, fields: { resend: '1' } },
    leave: { href: `recover/${encodeURIComponent(context.providerId)}`, text: { message: 'recovery.otherAddress' } },
  };
  return { kind: 'page', page: 'form', data: page };
}

/** The new password: its rules said beside the field, the error of the last try there too (never the value). */
function passwordPage(context: RecoveryContext): FlowResponse {
  const error = noticeText(context);
  const page: FlowFormPage = {
    title: { message: 'recovery.newTitle' },
    message: { message: 'recovery.newHint', values: { min: minLengthOf(context) } },
    fields: [{ name: 'password', label: { message: 'recovery.newLabel' }, type: 'password', autocomplete: 'new-password', ...(error ? { error } : {}) }],
    submit: { message: 'recovery.save' },
    leave: leave(context),
  };
  return { kind: 'page', page: 'form', data: page, status: error ? 400 : 200 };
}

export const recoveryMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as RecoveryContext,
    events: {} as RecoveryEvent,
    input: {} as FlowInput,
    output: {} as { outcome: 'redirected'; url: string },
  },
  actors: {
    issueReset: fromPromise(issueReset),
    checkCode: fromPromise(checkCode),
    openLink: fromPromise(openLink),
    resetPassword: fromPromise(resetPassword),
    afterReset: fromPromise(afterReset),
  },
  guards: {
    invalidAddress: ({ event }) => doneOutput<IssueResult>(event).result === 'invalid',
    cooling: ({ event }) => doneOutput<IssueResult>(event).result === 'cooling',
    hasRequest: ({ context }) => context.tokenHash !== undefined,
    codePassed: ({ event }) => doneOutput<CodeCheck>(event).result === 'passed',
    codeWrong: ({ event }) => doneOutput<CodeCheck>(event).result === 'wrong',
    linkValid: ({ event }) => doneOutput<LinkCheck>(event).result === 'valid',
    passwordRefused: ({ event }) => doneOutput<ResetResult>(event).result === 'refused',
    passwordReset: ({ event }) => doneOutput<ResetResult>(event).result === 'reset',
  },
  actions: {
    recordError: assign(recordFailure),
    logNotifyFailure: ({ context, event }) => {
      const err = (event as { error?: unknown }).error;
      context.deps.req.config.logger.error(err instanceof Error ? err : new Error(String(err)));
    },
    forgetSecrets: assign({ token: undefined, password: undefined }),
    presentRequest: assign({ response: ({ context }) => requestPage(context) }),
    presentCode: assign({ response: ({ context }) => codePage(context) }),
    presentPassword: assign({ response: ({ context }) => passwordPage(context) }),
    dead: assign({ notice: 'dead' as const, tokenHash: undefined, expires: undefined, triesLeft: undefined }),
  },
}).createMachine({
  id: 'password-recovery',
  initial: 'idle',
  context: ({ input }) => baseContext(input),
  output: finalOutput,
  states: {
    idle: {
      on: {
        START: { target: 'asking', actions: assign({ email: ({ event }) => event.email }) },
        REQUEST: { target: 'issuing', actions: assign({ email: ({ event }) => event.email }) },
        OPEN_LINK: { target: 'openingLink', actions: assign({ token: ({ event }) => event.token }) },
        // A code or a password from a browser that holds no request (another browser, or its cookie gone).
        SUBMIT_CODE: { target: 'asking', actions: assign({ notice: 'noRequest' as const }) },
        SET_PASSWORD: { target: 'asking', actions: assign({ notice: 'noRequest' as const }) },
      },
    },
    asking: {
      tags: [AWAITING],
      entry: ['forgetSecrets', 'presentRequest'],
      on: {
        REQUEST: { target: 'issuing', actions: assign({ email: ({ event }) => event.email, notice: undefined }) },
        // A code or a password for a request this browser no longer holds (a used link, another request since).
        SUBMIT_CODE: { target: 'asking', reenter: true, actions: assign({ notice: 'noRequest' as const }) },
        SET_PASSWORD: { target: 'asking', reenter: true, actions: assign({ notice: 'noRequest' as const }) },
      },
    },
    // Every address goes the same way here; only a known account's owner gets the mail.
    issuing: {
      invoke: {
        id: 'issueReset',
        src: 'issueReset',
        input: ({ context }) => ({ deps: context.deps, email: context.email ?? '', previous: context.tokenHash }),
        onDone: [
          { guard: 'invalidAddress', target: 'asking', actions: assign({ notice: 'invalidAddress' as const }) },
          { guard: 'cooling', target: 'codeSent', actions: assign({ notice: 'cooling' as const, tokenHash: undefined, triesLeft: undefined }) },
          {
            target: 'codeSent',
            actions: assign(({ event }) => {
              const out = doneOutput<Extract<IssueResult, { result: 'issued' }>>(event);
              return { email: out.email, tokenHash: out.tokenHash, expires: out.expires, notice: undefined, triesLeft: undefined };
            }),
          },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    codeSent: {
      tags: [AWAITING],
      entry: 'presentCode',
      on: {
        // Another address (or the same again): a new request, which ends this one.
        REQUEST: { target: 'issuing', actions: assign({ email: ({ event }) => event.email, notice: undefined }) },
        SUBMIT_CODE: [
          { guard: 'hasRequest', target: 'checkingCode' },
          // Cooling: no request of this browser's own; the code in the earlier mail works where it was asked for.
          { target: 'asking', actions: assign({ notice: 'noRequest' as const }) },
        ],
        RESEND: { target: 'issuing' },
      },
    },
    checkingCode: {
      invoke: {
        id: 'checkCode',
        src: 'checkCode',
        input: ({ context, event }) => ({ deps: context.deps, tokenHash: context.tokenHash!, code: (event as Extract<RecoveryEvent, { type: 'SUBMIT_CODE' }>).code }),
        onDone: [
          { guard: 'codePassed', target: 'choosing', actions: assign({ notice: undefined, triesLeft: undefined }) },
          { guard: 'codeWrong', target: 'codeSent', actions: assign({ notice: 'wrongCode' as const, triesLeft: ({ event }) => (doneOutput<CodeCheck>(event) as { left: number }).left }) },
          { target: 'asking', actions: 'dead' },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    openingLink: {
      invoke: {
        id: 'openLink',
        src: 'openLink',
        input: ({ context }) => ({ deps: context.deps, token: context.token ?? '' }),
        onDone: [
          {
            guard: 'linkValid',
            target: 'choosing',
            actions: assign(({ event }) => {
              const out = doneOutput<Extract<LinkCheck, { result: 'valid' }>>(event);
              return { tokenHash: out.tokenHash, expires: out.expires, notice: undefined };
            }),
          },
          { target: 'asking', actions: 'dead' },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    choosing: {
      tags: [AWAITING],
      entry: ['forgetSecrets', 'presentPassword'],
      on: {
        SET_PASSWORD: { target: 'resetting', actions: assign({ password: ({ event }) => event.password }) },
        REQUEST: { target: 'issuing', actions: assign({ email: ({ event }) => event.email, notice: undefined }) },
      },
    },
    resetting: {
      invoke: {
        id: 'resetPassword',
        src: 'resetPassword',
        input: ({ context }) => ({ deps: context.deps, tokenHash: context.tokenHash!, password: context.password ?? '' }),
        onDone: [
          { guard: 'passwordRefused', target: 'choosing', actions: assign({ notice: ({ event }) => (doneOutput<ResetResult>(event) as { problem: PasswordProblem }).problem }) },
          { guard: 'passwordReset', target: 'notifying', actions: assign({ password: undefined, reset: ({ event }) => doneOutput<Extract<ResetResult, { result: 'reset' }>>(event) }) },
          { target: 'asking', actions: 'dead' },
        ],
        onError: { target: 'failed.callbackRoute', actions: ['forgetSecrets', 'recordError'] },
      },
    },
    // Best effort: the address marked verified, the notice mail sent. The password is changed whatever happens here.
    notifying: {
      invoke: {
        id: 'afterReset',
        src: 'afterReset',
        input: ({ context }) => ({ deps: context.deps, userId: context.reset!.userId, email: context.reset!.email }),
        onDone: { target: 'done' },
        onError: { target: 'done', actions: 'logNotifyFailure' },
      },
    },
    done: {
      type: 'final',
      output: ({ context }) => {
        const url = new URL(`${context.deps.req.authUrl}/signin`);
        url.searchParams.set('notice', 'passwordReset');
        url.searchParams.set('callbackUrl', context.callbackUrl);
        return { outcome: 'redirected' as const, url: url.href };
      },
    },
    failed: {
      initial: 'callbackRoute',
      states: {
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

const MAX_TYPED_ADDRESS = 320;
const text = (v: unknown, max: number) => (typeof v === 'string' ? v.slice(0, max) : undefined);

/**
 * A Password provider's recovery: `GET {basePath}/recover/:id` shows the request form (or, with `?token=`, opens a
 * mail's link in any browser); `POST` the same path (CSRF-checked) takes the address, a code, a new password, or a
 * request for a new code, each to this browser's paused request when it has one (an address starts a new request,
 * ending the one it held).
 */
export const recoveryFlow = /* @__PURE__ */ defineAccountFlow({
  id: 'recover',
  machine: recoveryMachine,
  version: 1,
  entry: (route, deps, paused) => {
    const { query, body } = deps.req;
    if (route === 'link') {
      if (typeof query.token === 'string') return { resume: false, event: { type: 'OPEN_LINK', token: query.token.length <= MAX_RESET_TOKEN ? query.token : '' } };
      const email = text(query.email, MAX_TYPED_ADDRESS);
      return { resume: false, event: { type: 'START', ...(email ? { email } : {}) } };
    }
    if (typeof body.email === 'string') return { resume: paused, event: { type: 'REQUEST', email: body.email.slice(0, MAX_TYPED_ADDRESS) } };
    if (typeof body.code === 'string') return { resume: paused, event: { type: 'SUBMIT_CODE', code: body.code.slice(0, 64) } };
    // The password goes in as it came: the rules refuse what is too long or not text, beside the field.
    if (typeof body.password === 'string') return { resume: paused, event: { type: 'SET_PASSWORD', password: body.password } };
    if (typeof body.resend === 'string') return paused ? { resume: true, event: { type: 'RESEND' } } : { resume: false, event: { type: 'START' } };
    return null;
  },
});
