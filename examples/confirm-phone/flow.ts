// A signed-in flow: a signed-in user confirms a phone number by a code sent to it. Written against the package's
// public entries only, as an app writes its own: the machine, its store use and its outcome.
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { assign, fromPromise, setup } from 'xstate';
import { AWAITING, defineSignedInFlow, evidenceFrom, type FlowResponse, type SignedInDeps, type SignedInInput, type SignedInOutput } from 'authchart/flow';

/** How long a code may be typed back (ms), and how many wrong codes end the flow. */
export const CODE_TTL_MS = 10 * 60_000;
export const MAX_TRIES = 3;

export interface ConfirmPhoneOptions {
  /** Sends the code to the phone (an SMS gateway). A throw ends the flow. */
  send(params: { userId: string; phone: string; code: string }): unknown;
  /** Keeps the confirmed number (the app's own table). */
  save(params: { userId: string; phone: string }): unknown;
}

type Context = SignedInInput & { phone?: string; nonce?: string; codeHash?: string; expiresAt?: number; code?: string; error?: string; response?: FlowResponse; failure?: unknown };
type Events = { type: 'START'; phone: string } | { type: 'SUBMIT'; code: string };

const hash = (s: string) => createHash('sha256').update(s).digest('base64url');
const E164 = /^\+[1-9]\d{6,14}$/;
/** The pending code's tries live in the flow store under its nonce: the cookie can be replayed, the store cannot. */
const triesKey = (nonce: string) => `tries:${nonce}`;

const codePage = (phone: string, error?: string): FlowResponse => ({
  kind: 'page',
  page: 'form',
  data: {
    title: 'Confirm your phone number',
    message: `We sent a code to ${phone}.`,
    ...(error ? { error } : {}),
    fields: [{ name: 'code', label: 'Code', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: 6 }],
    submit: 'Confirm',
  },
});

/** The flow's machine, with the app's `send` and `save`. */
export function confirmPhoneMachine(options: ConfirmPhoneOptions) {
  return setup({
    types: { context: {} as Context, input: {} as SignedInInput, events: {} as Events, output: {} as SignedInOutput },
    actors: {
      issue: fromPromise(async ({ input }: { input: { deps: SignedInDeps; userId: string; phone: string } }) => {
        const nonce = randomBytes(24).toString('base64url');
        const code = String(randomInt(1_000_000)).padStart(6, '0');
        await input.deps.store.set(triesKey(nonce), 0, CODE_TTL_MS / 1000);
        await options.send({ userId: input.userId, phone: input.phone, code });
        return { nonce, codeHash: hash(`${nonce}:${code}`), expiresAt: Date.now() + CODE_TTL_MS };
      }),
      // Taken in one step: of two requests racing with the same cookie, one finds the entry gone.
      check: fromPromise(async ({ input }: { input: { deps: SignedInDeps; nonce: string; codeHash: string; code: string } }) => {
        const tries = await input.deps.store.take(triesKey(input.nonce));
        if (typeof tries !== 'number') return 'gone' as const;
        const given = Buffer.from(hash(`${input.nonce}:${input.code}`));
        if (timingSafeEqual(given, Buffer.from(input.codeHash))) return 'matched' as const;
        if (tries + 1 >= MAX_TRIES) return 'locked' as const;
        await input.deps.store.set(triesKey(input.nonce), tries + 1, CODE_TTL_MS / 1000);
        return 'wrong' as const;
      }),
      save: fromPromise(async ({ input }: { input: { userId: string; phone: string } }) => {
        await options.save(input);
      }),
    },
    guards: {
      validPhone: ({ event }) => event.type === 'START' && E164.test(event.phone.replace(/[\s().-]/g, '')),
      expired: ({ context }) => Date.now() >= (context.expiresAt ?? 0),
      is: ({ event }, params: { result: string }) => (event as unknown as { output: string }).output === params.result,
    },
  }).createMachine({
    id: 'confirm-phone',
    initial: 'idle',
    context: ({ input }) => ({ ...input }),
    output: ({ event }) => (event as unknown as { output: SignedInOutput }).output,
    states: {
      idle: {
        on: {
          START: [
            { guard: 'validPhone', target: 'sending', actions: assign({ phone: ({ event }) => event.phone.replace(/[\s().-]/g, '') }) },
            { target: 'failed.invalidRequest' },
          ],
        },
      },
      sending: {
        invoke: {
          src: 'issue',
          input: ({ context }) => ({ deps: context.deps, userId: context.userId, phone: context.phone! }),
          onDone: { target: 'awaitingCode', actions: assign(({ context, event }) => ({ ...event.output, response: codePage(context.phone!) })) },
          onError: { target: 'failed.callbackRoute', actions: assign({ failure: ({ event }) => evidenceFrom(event.error) }) },
        },
      },
      awaitingCode: {
        tags: [AWAITING],
        on: {
          SUBMIT: [
            { guard: 'expired', target: 'failed.verification' },
            { target: 'checking', actions: assign({ code: ({ event }) => event.code }) },
          ],
        },
      },
      checking: {
        invoke: {
          src: 'check',
          input: ({ context }) => ({ deps: context.deps, nonce: context.nonce!, codeHash: context.codeHash!, code: context.code ?? '' }),
          onDone: [
            { guard: { type: 'is', params: { result: 'matched' } }, target: 'saving' },
            { guard: { type: 'is', params: { result: 'wrong' } }, target: 'awaitingCode', actions: assign({ code: undefined, response: ({ context }) => codePage(context.phone!, 'That code did not match.') }) },
            { target: 'failed.verification' },
          ],
          onError: { target: 'failed.callbackRoute', actions: assign({ failure: ({ event }) => evidenceFrom(event.error) }) },
        },
      },
      saving: {
        invoke: {
          src: 'save',
          input: ({ context }) => ({ userId: context.userId, phone: context.phone! }),
          onDone: 'confirmed',
          onError: { target: 'failed.callbackRoute', actions: assign({ failure: ({ event }) => evidenceFrom(event.error) }) },
        },
      },
      // A code sent to the phone and typed back is a one-time code the user just passed: the session is verified
      // again now, so a route that asks for a recent sign-in is satisfied.
      confirmed: { type: 'final', output: () => ({ outcome: 'completed' as const, passed: 'otp' as const }) },
      failed: {
        initial: 'callbackRoute',
        states: {
          invalidRequest: { type: 'final', meta: { error: 'InvalidRequest' } },
          verification: { type: 'final', meta: { error: 'Verification' } },
          callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
        },
      },
    },
  });
}

/**
 * The flow: `POST {basePath}/flows/confirm-phone/start` with `phone`, then `POST {basePath}/flows/confirm-phone` with
 * `code`. It asks for a session verified in the last 5 minutes.
 *
 * @example
 * const auth = { providers, adapter, flows: [ConfirmPhone({ send: sms.send, save: db.savePhone })] }
 */
export function ConfirmPhone(options: ConfirmPhoneOptions) {
  return defineSignedInFlow({
    id: 'confirm-phone',
    machine: confirmPhoneMachine(options),
    version: 1,
    level: { maxAge: 5 * 60 },
    entry: (route, deps, paused) => {
      const field = (name: string) => String(deps.req.body[name] ?? '');
      if (route === 'start') return { resume: false, event: { type: 'START', phone: field('phone') } };
      return deps.req.method === 'POST' && paused ? { resume: true, event: { type: 'SUBMIT', code: field('code') } } : null;
    },
  });
}
