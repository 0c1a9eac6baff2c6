// The Password provider's sign-up: address and password, then the address proven by the mailed link (any browser)
// or code (this browser), then a verified account signed in through the standard stages. No user exists before the
// proof: the pending sign-up waits in the flow store. An address that has an account is answered the same way, and
// its owner gets a notice. With `createAccount: 'at-once'` the account is made unverified and signed in at once.
import { assign, fromPromise, setup } from 'xstate';
import type { AdapterUser } from '../../core/types.js';
import { MAX_PASSWORD_LENGTH } from '../../providers/password/rules.js';
import { defineAccountFlow, type AccountOutput } from '../runtime/account.js';
import { AWAITING, type FlowInput, type FlowResponse, type FlowText } from '../runtime/contract.js';
import { baseContext, doneOutput, recordFailure, type FlowContextBase } from '../runtime/context.js';
import { settingsOf } from './signup-mail.js';
import {
  checkSignUpCode,
  createAccount,
  createAtOnce,
  prepareSignUp,
  resendSignUp,
  startSignUp,
  takeSignUpLink,
  type PendingSignUp,
  type PreparedSignUp,
  type SentSignUp,
  type SignUpCodeCheck,
} from './signup-steps.js';

export interface SignUpContext extends FlowContextBase {
  /** The address as typed, then as stored; the name. Sealed while the code is awaited (the page shows the address). */
  email?: string;
  name?: string;
  /** The password and its hash: only while this one request runs, never sealed. */
  password?: string;
  hash?: string;
  /** The pending sign-up's token hash (this browser's key to its code); sealed. */
  tokenHash?: string;
  expires?: number;
  /** The proven pending sign-up (only while the account is made). */
  entry?: PendingSignUp;
  /** The user the sign-up signs in, and whether it made them. */
  signedUp?: { user: AdapterUser; created: boolean };
  /** How the sign-up proved who this is: the address (`email`), or, made at once, the password just chosen. */
  proof?: 'email' | 'pwd';
  /** A note on the code page: a wrong code's tries left, a new mail sent. */
  note?: FlowText;
}

export type SignUpEvent =
  | { type: 'SUBMIT'; email: string; password: string; name: string }
  | { type: 'CODE'; code: string }
  | { type: 'RESEND' }
  | { type: 'LINK'; token: string };

/** The page that asks for the code (and offers a new mail). */
function codePage(context: SignUpContext): FlowResponse {
  const provider = encodeURIComponent(context.providerId);
  return {
    kind: 'page',
    page: 'form',
    data: {
      title: { message: 'signup.checkTitle' },
      message: { message: 'signup.checkMessage', values: { email: context.email ?? '' } },
      ...(context.note ? { error: context.note } : {}),
      fields: [{ name: 'code', label: { message: 'signup.code' }, inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: 32 }],
      submit: { message: 'signup.verify' },
      alternative: { action: `signup/${provider}`, label: { message: 'signup.resend' }, fields: { resend: '1' } },
      leave: { href: `signup/${provider}`, text: { message: 'signup.otherAddress' } },
    },
  };
}

/** The sign-up form again, with the problem beside its field and the values kept (never the password). */
function formPage(context: SignUpContext, problem: Extract<PreparedSignUp, { ok: false }>): FlowResponse {
  const settings = settingsOf(context.deps);
  let error: FlowText;
  if (problem.field === 'email') error = { message: 'signup.error.address' };
  else if (problem.problem === 'too_short') error = { message: 'signup.error.too_short', values: { min: settings.minLength } };
  else if (problem.problem === 'too_long') error = { message: 'signup.error.too_long', values: { max: MAX_PASSWORD_LENGTH } };
  else if (problem.problem === 'breached') error = { message: 'signup.error.breached' };
  else error = { message: 'signup.error.characters' };
  return {
    kind: 'page',
    page: 'signUp',
    status: 400,
    data: { provider: context.providerId, email: String(context.email ?? '').slice(0, 320), name: String(context.name ?? '').slice(0, 200), errors: { [problem.field]: error } },
  };
}

export const signUpMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as SignUpContext,
    events: {} as SignUpEvent,
    input: {} as FlowInput,
    output: {} as AccountOutput,
  },
  actors: {
    prepareSignUp: fromPromise(prepareSignUp),
    startSignUp: fromPromise(startSignUp),
    createAtOnce: fromPromise(createAtOnce),
    resendSignUp: fromPromise(resendSignUp),
    checkSignUpCode: fromPromise(checkSignUpCode),
    takeSignUpLink: fromPromise(takeSignUpLink),
    createAccount: fromPromise(createAccount),
  },
  guards: {
    formInvalid: ({ event }) => !doneOutput<PreparedSignUp>(event).ok,
    createsAtOnce: ({ context }) => settingsOf(context.deps).createAccount === 'at-once',
    expired: ({ context }) => !(typeof context.expires === 'number' && context.expires > Date.now()),
    madeAtOnce: ({ event }) => doneOutput<{ user: AdapterUser | null }>(event).user !== null,
    codePassed: ({ event }) => doneOutput<SignUpCodeCheck>(event).result === 'passed',
    codeWrong: ({ event }) => doneOutput<SignUpCodeCheck>(event).result === 'wrong',
    mailSent: ({ event }) => typeof doneOutput<SentSignUp | string>(event) === 'object',
    resendCooling: ({ event }) => doneOutput<SentSignUp | string>(event) === 'cooling',
    linkTaken: ({ event }) => doneOutput<PendingSignUp | null>(event) !== null,
    isVerificationError: ({ event }) => (event as { error?: { type?: string } }).error?.type === 'Verification',
  },
  actions: {
    recordError: assign(recordFailure),
    forgetSecrets: assign({ password: undefined, hash: undefined }),
    showForm: assign({ response: ({ context, event }) => formPage(context, doneOutput<Extract<PreparedSignUp, { ok: false }>>(event)), password: undefined }),
    recordSent: assign(({ event }) => {
      const sent = doneOutput<SentSignUp>(event);
      return { tokenHash: sent.tokenHash, expires: sent.expires, password: undefined, hash: undefined };
    }),
    showCodePage: assign({ response: ({ context }) => codePage(context) }),
    noteWrongCode: assign({ note: ({ event }) => ({ message: 'signup.wrongCode' as const, values: { left: (doneOutput<SignUpCodeCheck>(event) as { left: number }).left } }) }),
    noteResent: assign({ note: () => ({ message: 'signup.resent' as const }) }),
    recordDeadCode: assign({ failure: () => ({ message: 'the code is spent, expired or tried too often', expected: 'a live code', actual: null }) }),
    recordDeadLink: assign({ failure: () => ({ message: 'the link is unknown, spent or expired', expected: 'a live link', actual: null }) }),
    recordExpired: assign({ failure: ({ context }) => ({ message: 'the sign-up expired', expected: `before ${context.expires ?? 0}`, actual: Date.now() }) }),
  },
}).createMachine({
  id: 'password-signup',
  initial: 'idle',
  context: ({ input }) => baseContext(input),
  output: ({ event }) => (event as unknown as { output: AccountOutput }).output,
  states: {
    idle: {
      on: {
        SUBMIT: { target: 'preparing', actions: assign({ email: ({ event }) => event.email, name: ({ event }) => event.name, password: ({ event }) => event.password }) },
        LINK: 'takingLink',
      },
    },
    // The rules, the breached check, then the hash: before anything is looked up, so every address costs one hash.
    preparing: {
      invoke: {
        id: 'prepareSignUp',
        src: 'prepareSignUp',
        input: ({ context }) => ({ deps: context.deps, email: context.email ?? '', password: context.password ?? '', name: context.name ?? '' }),
        onDone: [
          { guard: 'formInvalid', target: 'correcting', actions: 'showForm' },
          {
            guard: 'createsAtOnce',
            target: 'creatingAtOnce',
            actions: assign(({ event }) => {
              const ok = doneOutput<Extract<PreparedSignUp, { ok: true }>>(event);
              return { email: ok.email, hash: ok.hash, name: ok.name, password: undefined };
            }),
          },
          {
            target: 'mailing',
            actions: assign(({ event }) => {
              const ok = doneOutput<Extract<PreparedSignUp, { ok: true }>>(event);
              return { email: ok.email, hash: ok.hash, name: ok.name, password: undefined };
            }),
          },
        ],
        onError: { target: 'failed.callbackRoute', actions: ['recordError', 'forgetSecrets'] },
      },
    },
    // The form again with its problem: a new POST of the form starts a fresh sign-up.
    correcting: { tags: [AWAITING] },
    // The pending sign-up kept and its proof mailed (or, for an address with an account, its owner's notice).
    mailing: {
      invoke: {
        id: 'startSignUp',
        src: 'startSignUp',
        input: ({ context }) => ({ deps: context.deps, email: context.email ?? '', hash: context.hash ?? '', ...(context.name ? { name: context.name } : {}) }),
        onDone: { target: 'awaitingCode', actions: 'recordSent' },
        onError: { target: 'failed.emailSignIn', actions: ['recordError', 'forgetSecrets'] },
      },
    },
    creatingAtOnce: {
      invoke: {
        id: 'createAtOnce',
        src: 'createAtOnce',
        input: ({ context }) => ({ deps: context.deps, email: context.email ?? '', hash: context.hash ?? '', ...(context.name ? { name: context.name } : {}) }),
        onDone: [
          { guard: 'madeAtOnce', target: 'signedUp', actions: assign({ signedUp: ({ event }) => ({ user: doneOutput<{ user: AdapterUser }>(event).user, created: true }), proof: 'pwd', hash: undefined }) },
          { target: 'awaitingCode', actions: 'recordSent' },
        ],
        onError: { target: 'failed.callbackRoute', actions: ['recordError', 'forgetSecrets'] },
      },
    },
    awaitingCode: {
      tags: [AWAITING],
      entry: 'showCodePage',
      on: {
        CODE: [
          { guard: 'expired', target: 'failed.expired', actions: 'recordExpired' },
          { target: 'checkingCode' },
        ],
        RESEND: [
          { guard: 'expired', target: 'failed.expired', actions: 'recordExpired' },
          { target: 'resending' },
        ],
      },
    },
    checkingCode: {
      invoke: {
        id: 'checkSignUpCode',
        src: 'checkSignUpCode',
        input: ({ context, event }) => ({ deps: context.deps, tokenHash: context.tokenHash ?? '', code: (event as { code?: string }).code ?? '' }),
        onDone: [
          { guard: 'codePassed', target: 'creating', actions: assign({ entry: ({ event }) => (doneOutput<SignUpCodeCheck>(event) as { entry: PendingSignUp }).entry }) },
          { guard: 'codeWrong', target: 'awaitingCode', actions: 'noteWrongCode' },
          { target: 'failed.codeDead', actions: 'recordDeadCode' },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    resending: {
      invoke: {
        id: 'resendSignUp',
        src: 'resendSignUp',
        input: ({ context }) => ({ deps: context.deps, tokenHash: context.tokenHash ?? '' }),
        onDone: [
          { guard: 'mailSent', target: 'awaitingCode', actions: ['recordSent', 'noteResent'] },
          { guard: 'resendCooling', target: 'awaitingCode' },
          { target: 'failed.codeDead', actions: 'recordDeadCode' },
        ],
        onError: { target: 'failed.emailSignIn', actions: 'recordError' },
      },
    },
    // A link from the mail, in any browser: it takes the pending sign-up (once).
    takingLink: {
      invoke: {
        id: 'takeSignUpLink',
        src: 'takeSignUpLink',
        input: ({ context, event }) => ({ deps: context.deps, token: (event as { token?: string }).token ?? '' }),
        onDone: [
          { guard: 'linkTaken', target: 'creating', actions: assign({ entry: ({ event }) => doneOutput<PendingSignUp>(event) }) },
          { target: 'failed.linkDead', actions: 'recordDeadLink' },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    // The address is proven: the account made (or verified, or taken over from an unproven one).
    creating: {
      invoke: {
        id: 'createAccount',
        src: 'createAccount',
        input: ({ context }) => ({ deps: context.deps, entry: context.entry! }),
        onDone: { target: 'signedUp', actions: assign({ signedUp: ({ event }) => doneOutput<{ user: AdapterUser; created: boolean }>(event), proof: 'email', entry: undefined }) },
        onError: [
          { guard: 'isVerificationError', target: 'failed.taken', actions: 'recordError' },
          { target: 'failed.callbackRoute', actions: 'recordError' },
        ],
      },
    },
    signedUp: {
      type: 'final',
      output: ({ context }) => {
        const { user, created } = context.signedUp!;
        return { outcome: 'signIn' as const, user: { ...user, id: String(user.id) }, created, amr: [context.proof ?? 'email'] };
      },
    },
    failed: {
      initial: 'callbackRoute',
      states: {
        expired: { type: 'final', meta: { error: 'Verification' } },
        codeDead: { type: 'final', meta: { error: 'Verification' } },
        linkDead: { type: 'final', meta: { error: 'Verification' } },
        taken: { type: 'final', meta: { error: 'Verification' } },
        emailSignIn: { type: 'final', meta: { error: 'EmailSignInError' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

const field = (body: Record<string, unknown>, name: string): string | undefined => (typeof body[name] === 'string' ? (body[name] as string) : undefined);

/**
 * The Password provider's sign-up flow: `POST {basePath}/signup/:id` with `email` and `password` (and `name`) starts
 * one; with `code` or `resend` it answers the paused one; `GET {basePath}/signup/:id?token=…` is the mailed link.
 * Anything else (a GET without a token) is not taken: the HTTP layer shows the sign-up form.
 */
export const signUpFlow = /* @__PURE__ */ defineAccountFlow({
  id: 'signup',
  machine: signUpMachine,
  version: 1,
  entry: (route, deps, paused) => {
    if (route === 'link') {
      const token = deps.req.query.token;
      return typeof token === 'string' && token.length > 0 && token.length <= 512 ? { resume: false, event: { type: 'LINK', token } } : null;
    }
    const body = deps.req.body;
    const email = field(body, 'email');
    if (email !== undefined) {
      // Any password is taken as sent: the rules (prepareSignUp) answer a bad one beside its field.
      const password = body.password;
      return { resume: false, event: { type: 'SUBMIT', email: email.slice(0, 1024), password: password as string, name: (field(body, 'name') ?? '').slice(0, 1024) } };
    }
    if (!paused) return null;
    if (field(body, 'resend') !== undefined) return { resume: true, event: { type: 'RESEND' } };
    const code = field(body, 'code');
    return code !== undefined ? { resume: true, event: { type: 'CODE', code } } : null;
  },
});
