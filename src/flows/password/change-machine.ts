// Change (or set) the password of a signed-in user: a built-in signed-in flow at `{basePath}/flows/change-password`,
// registered when a Password provider is configured. The session must be recent (the runtime sends an older one to
// verify first); the current password is asked when there is one; the new one is stored only over the hash that
// was checked; the user's other sessions end and a notice goes to the address.
import { bodyString } from '../../core/request-context.js';
import { assign, fromPromise, setup } from 'xstate';
import type { FlowFormField, FlowResponse, FlowText } from '../runtime/contract.js';
import { AWAITING } from '../runtime/contract.js';
import { doneOutput, recordFailure, type FailureEvidence } from '../runtime/context.js';
import { defineSignedInFlow, type SignedInInput, type SignedInOutput } from '../runtime/signed-in.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../providers/password/rules.js';
import type { PasswordSettings } from '../../providers/password/provider.js';
import { checkCurrent, hashNew, loadHash, notifyChanged, passwordSettingsOf, storeHash, type CurrentCheck, type NewPasswordProblem } from './change-steps.js';

/** The flow's id, in its routes: `POST {basePath}/flows/change-password/start`, then `POST {basePath}/flows/change-password`. */
export const CHANGE_PASSWORD_FLOW = 'change-password';
/** How long the form may be answered (ms); expiry is a guard, since paused timers are not restored. */
export const CHANGE_PASSWORD_TTL_MS = 15 * 60_000;

interface Context extends SignedInInput {
  hasPassword?: boolean;
  /** What was typed: kept only while one request runs (cleared before the flow pauses). */
  current?: string;
  next?: string;
  /** The hash checked at this request, which the new one replaces. */
  checked?: string | null;
  hash?: string;
  response?: FlowResponse;
  failure?: FailureEvidence;
}
type Events = { type: 'START' } | { type: 'SUBMIT'; current: string; next: string };
/** Where a message shows: beside a field, or above the form. */
type Problem = { field?: 'current' | 'next'; text: FlowText };

const problemText: Record<NewPasswordProblem, FlowText> = {
  too_short: { message: 'changePassword.tooShort', values: { min: MIN_PASSWORD_LENGTH } },
  too_long: { message: 'changePassword.tooLong', values: { max: MAX_PASSWORD_LENGTH } },
  invalid: { message: 'changePassword.invalid' },
  breached: { message: 'changePassword.breached' },
};

/** The form: the current password when there is one, the new one; a problem beside its field; a way back. */
function form(hasPassword: boolean, callbackUrl: string, problem?: Problem): FlowResponse {
  const field = (name: 'current' | 'next', label: FlowText, autocomplete: string): FlowFormField => ({
    name,
    label,
    type: 'password',
    autocomplete,
    ...(problem?.field === name ? { error: problem.text } : {}),
  });
  return {
    kind: 'page',
    page: 'form',
    ...(problem ? { status: 400 } : {}),
    data: {
      title: { message: hasPassword ? 'changePassword.title' : 'changePassword.titleSet' },
      ...(problem && !problem.field ? { error: problem.text } : {}),
      fields: [...(hasPassword ? [field('current', { message: 'changePassword.current' }, 'current-password')] : []), field('next', { message: 'changePassword.new' }, 'new-password')],
      submit: { message: 'changePassword.submit' },
      leave: { href: callbackUrl, text: { message: 'changePassword.back' } },
    },
  };
}

export const changePasswordMachine = /* @__PURE__ */ setup({
  types: { context: {} as Context, input: {} as SignedInInput, events: {} as Events, output: {} as SignedInOutput },
  actors: {
    loadHash: fromPromise(loadHash),
    checkCurrent: fromPromise(checkCurrent),
    hashNew: fromPromise(hashNew),
    storeHash: fromPromise(storeHash),
    notifyChanged: fromPromise(notifyChanged),
  },
  guards: {
    expired: ({ context }) => Date.now() >= context.startedAt + CHANGE_PASSWORD_TTL_MS,
    current: ({ event }, params: { result: CurrentCheck['result'] }) => doneOutput<CurrentCheck>(event).result === params.result,
    hashed: ({ event }) => 'hash' in doneOutput<object>(event),
    stored: ({ event }) => doneOutput<boolean>(event) === true,
  },
  actions: {
    // What was typed and the hashes never go into the sealed cookie.
    forget: assign({ current: undefined, next: undefined, checked: undefined, hash: undefined }),
  },
}).createMachine({
  id: 'change-password',
  initial: 'idle',
  context: ({ input }) => ({ ...input }),
  output: ({ event }) => (event as unknown as { output: SignedInOutput }).output,
  states: {
    idle: { on: { START: 'loading' } },
    loading: {
      invoke: {
        id: 'loadHash',
        src: 'loadHash',
        input: ({ context }) => ({ deps: context.deps, userId: context.userId }),
        onDone: {
          target: 'awaitingForm',
          actions: assign(({ context, event }) => ({ hasPassword: event.output !== null, response: form(event.output !== null, context.callbackUrl) })),
        },
        onError: { target: 'failed.callbackRoute', actions: assign(recordFailure) },
      },
    },
    awaitingForm: {
      tags: [AWAITING],
      entry: 'forget',
      on: {
        SUBMIT: [
          { guard: 'expired', target: 'failed.verification' },
          { target: 'checkingCurrent', actions: assign({ current: ({ event }) => event.current, next: ({ event }) => event.next }) },
        ],
      },
    },
    checkingCurrent: {
      invoke: {
        id: 'checkCurrent',
        src: 'checkCurrent',
        input: ({ context }) => ({ deps: context.deps, userId: context.userId, password: context.current ?? '' }),
        onDone: [
          { guard: { type: 'current', params: { result: 'match' } }, target: 'hashing', actions: assign({ checked: ({ event }) => (event.output as { hash: string }).hash }) },
          // No password yet (an account made with OAuth, a link or a passkey): the recent sign-in is the proof.
          { guard: { type: 'current', params: { result: 'none' } }, target: 'hashing', actions: assign({ checked: null }) },
          { guard: { type: 'current', params: { result: 'wrong' } }, target: 'awaitingForm', actions: assign({ hasPassword: true, response: ({ context }) => form(true, context.callbackUrl, { field: 'current', text: { message: 'changePassword.wrongCurrent' } }) }) },
          { target: 'awaitingForm', actions: assign({ hasPassword: true, response: ({ context }) => form(true, context.callbackUrl, { text: { message: 'changePassword.tooManyTries' } }) }) },
        ],
        onError: { target: 'failed.callbackRoute', actions: assign(recordFailure) },
      },
    },
    hashing: {
      invoke: {
        id: 'hashNew',
        src: 'hashNew',
        input: ({ context }) => ({ deps: context.deps, password: context.next ?? '' }),
        onDone: [
          { guard: 'hashed', target: 'storing', actions: assign({ hash: ({ event }) => (event.output as { hash: string }).hash }) },
          {
            target: 'awaitingForm',
            actions: assign({ response: ({ context, event }) => form(context.checked !== null, context.callbackUrl, { field: 'next', text: problemText[(event.output as { problem: NewPasswordProblem }).problem] }) }),
          },
        ],
        onError: { target: 'failed.callbackRoute', actions: assign(recordFailure) },
      },
    },
    storing: {
      invoke: {
        id: 'storeHash',
        src: 'storeHash',
        input: ({ context }) => ({ deps: context.deps, userId: context.userId, hash: context.hash!, expected: context.checked ?? null }),
        onDone: [
          { guard: 'stored', target: 'notifying' },
          // Another change won meanwhile: nothing is written, and the user is asked for the password as it is now.
          { target: 'awaitingForm', actions: assign({ hasPassword: true, response: ({ context }) => form(true, context.callbackUrl, { field: 'current', text: { message: 'changePassword.changed' } }) }) },
        ],
        onError: { target: 'failed.callbackRoute', actions: assign(recordFailure) },
      },
    },
    notifying: {
      invoke: {
        id: 'notifyChanged',
        src: 'notifyChanged',
        input: ({ context }) => ({ deps: context.deps, userId: context.userId }),
        onDone: 'changed',
        onError: 'changed',
      },
    },
    // The password is new: every other session of the user ends (a thief's included); this one stays.
    changed: { type: 'final', output: () => ({ outcome: 'completed' as const, endOtherSessions: true }) },
    failed: {
      initial: 'callbackRoute',
      states: {
        verification: { type: 'final', meta: { error: 'Verification' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

/**
 * The change-password flow for a configuration's Password provider settings: its level is a sign-in within
 * `change.maxAge` seconds (default 300).
 *
 * @example
 * const flow = changePasswordFlow(passwordSettingsOf(config))
 */
export function changePasswordFlow(settings: PasswordSettings) {
  return defineSignedInFlow({
    id: CHANGE_PASSWORD_FLOW,
    machine: changePasswordMachine,
    version: 1,
    level: { maxAge: settings.change?.maxAge ?? 300 },
    // The machine writes the hash: the change is recorded before the rest (ending the other sessions) is applied.
    completedRecord: { kind: 'password.changed', method: 'password', when: 'before' },
    entry: (route, deps, paused) => {
      if (route === 'start') return { resume: false, event: { type: 'START' } };
      if (deps.req.method !== 'POST' || !paused) return null;
      return { resume: true, event: { type: 'SUBMIT', current: bodyString(deps.req, 'current') ?? '', next: bodyString(deps.req, 'next') ?? '' } };
    },
  });
}

export { passwordSettingsOf };
