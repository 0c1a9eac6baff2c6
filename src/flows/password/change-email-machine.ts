// Change the e-mail address of a signed-in user: a built-in signed-in flow at `{basePath}/flows/change-email`,
// registered with a Password provider or an e-mail provider. The session must be recent; the new address is proven
// by a code mailed to it before it replaces the old one; the old address is told, with a way back for 7 days
// (`{basePath}/email/revert`). An address that belongs to another account is answered alike and never mailed.
import { bodyString } from '../../core/request-context.js';
import { assign, fromPromise, setup } from 'xstate';
import type { FlowFormField, FlowResponse, FlowText } from '../runtime/contract.js';
import { AWAITING } from '../runtime/contract.js';
import { doneOutput, recordFailure, type FailureEvidence } from '../runtime/context.js';
import { defineSignedInFlow, type SignedInInput, type SignedInOutput } from '../runtime/signed-in.js';
import { checkAddressCode, prepareAddressChange, requestAddressChange, type AddressCodeCheck, type AddressRequest } from './change-email-steps.js';

/** The flow's id, in its routes: `POST {basePath}/flows/change-email/start`, then `POST {basePath}/flows/change-email`. */
export const CHANGE_EMAIL_FLOW = 'change-email';
/** How long the flow may take (ms); expiry is a guard, since paused timers are not restored. */
export const CHANGE_EMAIL_TTL_MS = 15 * 60_000;

interface Context extends SignedInInput {
  /** The new address, normalised, once a code went to it. */
  email?: string;
  /** The pending code's token hash (the only way to find it; in the sealed cookie). */
  tokenHash?: string;
  response?: FlowResponse;
  failure?: FailureEvidence;
}
type Events = { type: 'START' } | { type: 'SUBMIT_ADDRESS'; email: string } | { type: 'SUBMIT_CODE'; code: string };

/** The address form, with a problem beside the field (or above it) and the address typed kept. */
function addressForm(callbackUrl: string, value?: string, problem?: { text: FlowText; above?: boolean }): FlowResponse {
  const field: FlowFormField = { name: 'email', label: { message: 'changeEmail.new' }, type: 'email', autocomplete: 'email', ...(value ? { value } : {}), ...(problem && !problem.above ? { error: problem.text } : {}) };
  return {
    kind: 'page',
    page: 'form',
    ...(problem ? { status: 400 } : {}),
    data: {
      title: { message: 'changeEmail.title' },
      message: { message: 'changeEmail.message' },
      ...(problem?.above ? { error: problem.text } : {}),
      fields: [field],
      submit: { message: 'changeEmail.send' },
      leave: { href: callbackUrl, text: { message: 'changePassword.back' } },
    },
  };
}

/** The code form: the address it went to, the tries left after a wrong one, and a way back to choose another. */
function codeForm(callbackUrl: string, email: string, left?: number): FlowResponse {
  return {
    kind: 'page',
    page: 'form',
    ...(left !== undefined ? { status: 400 } : {}),
    data: {
      title: { message: 'changeEmail.codeTitle' },
      message: { message: 'changeEmail.codeMessage', values: { address: `\u2068${email}\u2069` } },
      ...(left !== undefined ? { error: left === 1 ? { message: 'emailCode.wrongLast' } : { message: 'emailCode.wrong', values: { count: left } } } : {}),
      fields: [{ name: 'code', label: { message: 'emailCode.label' }, type: 'text', autocomplete: 'one-time-code', inputmode: 'numeric', maxlength: 16 }],
      submit: { message: 'changeEmail.confirm' },
      leave: { href: callbackUrl, text: { message: 'changePassword.back' } },
    },
  };
}

export const changeEmailMachine = /* @__PURE__ */ setup({
  types: { context: {} as Context, input: {} as SignedInInput, events: {} as Events, output: {} as SignedInOutput },
  actors: {
    requestAddressChange: fromPromise(requestAddressChange),
    checkAddressCode: fromPromise(checkAddressCode),
    prepareAddressChange: fromPromise(prepareAddressChange),
  },
  guards: {
    expired: ({ context }) => Date.now() >= context.startedAt + CHANGE_EMAIL_TTL_MS,
    problem: ({ event }) => 'problem' in doneOutput<AddressRequest>(event),
    code: ({ event }, params: { result: AddressCodeCheck['result'] }) => doneOutput<AddressCodeCheck>(event).result === params.result,
    taken: ({ event }) => 'taken' in doneOutput<object>(event),
  },
}).createMachine({
  id: 'change-email',
  initial: 'idle',
  context: ({ input }) => ({ ...input }),
  output: ({ event }) => (event as unknown as { output: SignedInOutput }).output,
  states: {
    idle: { on: { START: { target: 'awaitingAddress', actions: assign({ response: ({ context }) => addressForm(context.callbackUrl) }) } } },
    awaitingAddress: {
      tags: [AWAITING],
      on: {
        SUBMIT_ADDRESS: [
          { guard: 'expired', target: 'failed.verification' },
          { target: 'requesting', actions: assign({ email: ({ event }) => event.email }) },
        ],
      },
    },
    requesting: {
      invoke: {
        id: 'requestAddressChange',
        src: 'requestAddressChange',
        input: ({ context }) => ({ deps: context.deps, userId: context.userId, email: context.email ?? '' }),
        onDone: [
          {
            guard: 'problem',
            target: 'awaitingAddress',
            actions: assign(({ context, event }) => {
              const { problem } = event.output as { problem: 'invalid' | 'same' };
              return { response: addressForm(context.callbackUrl, context.email, { text: { message: problem === 'same' ? 'changeEmail.same' : 'signin.field.badAddress' } }), email: undefined };
            }),
          },
          {
            target: 'awaitingCode',
            actions: assign(({ context, event }) => {
              const { tokenHash, email } = event.output as { tokenHash: string; email: string };
              return { tokenHash, email, response: codeForm(context.callbackUrl, email) };
            }),
          },
        ],
        onError: { target: 'failed.callbackRoute', actions: assign(recordFailure) },
      },
    },
    awaitingCode: {
      tags: [AWAITING],
      on: {
        SUBMIT_CODE: [{ guard: 'expired', target: 'failed.verification' }, { target: 'checkingCode' }],
      },
    },
    checkingCode: {
      invoke: {
        id: 'checkAddressCode',
        src: 'checkAddressCode',
        input: ({ context, event }) => ({ deps: context.deps, userId: context.userId, tokenHash: context.tokenHash!, code: (event as Extract<Events, { type: 'SUBMIT_CODE' }>).code ?? '' }),
        onDone: [
          { guard: { type: 'code', params: { result: 'passed' } }, target: 'preparing' },
          { guard: { type: 'code', params: { result: 'wrong' } }, target: 'awaitingCode', actions: assign({ response: ({ context, event }) => codeForm(context.callbackUrl, context.email!, (event.output as { left: number }).left) }) },
          // Dead after too many wrong codes: never a dead end, the address form again, saying so.
          { target: 'awaitingAddress', actions: assign({ response: ({ context }) => addressForm(context.callbackUrl, context.email, { text: { message: 'changeEmail.codeDead' }, above: true }), tokenHash: undefined }) },
        ],
        onError: { target: 'failed.callbackRoute', actions: assign(recordFailure) },
      },
    },
    preparing: {
      invoke: {
        id: 'prepareAddressChange',
        src: 'prepareAddressChange',
        input: ({ context }) => ({ deps: context.deps, userId: context.userId, email: context.email! }),
        onDone: [
          // Another account took the address since its code was sent (only its mailbox's owner gets here).
          { guard: 'taken', target: 'awaitingAddress', actions: assign({ response: ({ context }) => addressForm(context.callbackUrl, undefined, { text: { message: 'changeEmail.taken' }, above: true }), tokenHash: undefined }) },
          { target: 'changed' },
        ],
        onError: { target: 'failed.callbackRoute', actions: assign(recordFailure) },
      },
    },
    // The runtime writes the new, proven address (`updateUser`); the old one already has its way back.
    changed: { type: 'final', output: ({ context }) => ({ outcome: 'completed' as const, user: { email: context.email!, emailVerified: new Date() } }) },
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
 * The change-of-e-mail flow: its level is a sign-in within `maxAge` seconds (the Password provider's
 * `change.maxAge`, default 300).
 *
 * @example
 * const flow = changeEmailFlow(300)
 */
export function changeEmailFlow(maxAge = 300) {
  return defineSignedInFlow({
    id: CHANGE_EMAIL_FLOW,
    machine: changeEmailMachine,
    version: 1,
    level: { maxAge },
    // The outcome is the change (the runtime writes the new address): recorded once it is applied.
    completedRecord: { kind: 'email.changed', method: 'email', when: 'after' },
    entry: (route, deps, paused) => {
      if (route === 'start') return { resume: false, event: { type: 'START' } };
      if (deps.req.method !== 'POST' || !paused) return null;
      const code = bodyString(deps.req, 'code');
      return { resume: true, event: code !== undefined ? { type: 'SUBMIT_CODE', code } : { type: 'SUBMIT_ADDRESS', email: bodyString(deps.req, 'email') ?? '' } };
    },
  });
}
