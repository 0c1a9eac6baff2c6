// A custom sign-in flow on authchart's public contract: a six-digit code sent by e-mail. POST signin/email-code
// stores a single-use token and sends the code -> awaiting (a form) -> POST callback/email-code uses the token
// (once, server-side) and compares the code -> authenticated: the standard sign-in tail issues the session.
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { assign, fromPromise, setup } from 'xstate';
import { AWAITING, baseContext, defineFlow, evidenceFrom, type FlowContextBase, type FlowDeps, type FlowInput, type FlowOutput, type FlowResponse } from 'authchart/flow';

export const CODE_TTL_MS = 10 * 60_000;
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');
const codeHash = (nonce: string, code: string) => sha256(`${nonce}:${code.trim()}`);
const normalize = (email: string) => email.trim().toLowerCase();
const output = <T>(event: unknown) => (event as { output: T }).output;

export interface EmailCodeContext extends FlowContextBase {
  email?: string;
  /** Sealed in the flow cookie; the database holds sha256(nonce), the token that can be used once. */
  nonce?: string;
  codeHash?: string;
  expiresAt?: number;
  /** Only within one request: the code to send, then the code typed. Never sealed. */
  code?: string;
}
type Issued = { nonce: string; code: string; codeHash: string; expiresAt: number };
type Sender = { send(params: { email: string; code: string }): unknown };

function adapterOf(deps: FlowDeps) {
  if (!deps.req.config.adapter) throw new Error('The email-code provider needs an adapter.');
  return deps.req.config.adapter;
}

async function issueCode({ input }: { input: { deps: FlowDeps; email: string } }): Promise<Issued> {
  const nonce = randomBytes(32).toString('base64url');
  const code = String(randomInt(1_000_000)).padStart(6, '0');
  const expiresAt = Date.now() + CODE_TTL_MS;
  await adapterOf(input.deps).createVerificationToken({ identifier: `email-code:${input.email}`, token: sha256(nonce), expires: new Date(expiresAt) });
  return { nonce, code, codeHash: codeHash(nonce, code), expiresAt };
}

/** The form the paused flow answers: a built-in themed page that POSTs the code to the callback with the CSRF token. */
function codeForm(email: string): FlowResponse {
  return {
    kind: 'page',
    page: 'form',
    data: {
      title: 'Check your e-mail',
      message: `We sent a 6-digit code to ${email}. It is valid for 10 minutes.`,
      fields: [{ name: 'code', label: 'Code', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}', maxlength: 6 }],
      submit: 'Sign in',
    },
  };
}

export const emailCodeMachine = setup({
  types: {
    context: {} as EmailCodeContext,
    events: {} as { type: 'REQUEST'; email: string } | { type: 'SUBMIT'; code: string },
    input: {} as FlowInput,
    output: {} as FlowOutput,
  },
  actors: {
    issueCode: fromPromise(issueCode),
    sendCode: fromPromise(async ({ input }: { input: { deps: FlowDeps; email: string; code: string } }) => {
      await (input.deps.provider as unknown as Sender).send({ email: input.email, code: input.code });
    }),
    // First, before the code is even looked at: a second guess or a replayed flow cookie finds the token gone.
    useToken: fromPromise(async ({ input }: { input: { deps: FlowDeps; email: string; nonce: string } }) =>
      adapterOf(input.deps).useVerificationToken({ identifier: `email-code:${input.email}`, token: sha256(input.nonce) }),
    ),
  },
  guards: {
    validAddress: ({ event }) => event.type === 'REQUEST' && normalize(event.email).length <= 254 && /^[^\s@<>"]+@[^\s@<>"]+\.[a-z0-9-]+$/.test(normalize(event.email)),
    tokenGone: ({ event }) => output<unknown>(event) === null,
    expired: ({ context }) => Date.now() >= (context.expiresAt ?? 0),
    codeMatches: ({ context }) => {
      const typed = Buffer.from(codeHash(context.nonce!, context.code ?? ''));
      return timingSafeEqual(typed, Buffer.from(context.codeHash!));
    },
  },
  actions: {
    recordError: assign({ failure: ({ event }) => evidenceFrom((event as unknown as { error: unknown }).error) }),
    recordRefusal: assign({ failure: (_, params: { message: string }) => ({ message: params.message }) }),
  },
}).createMachine({
  id: 'email-code',
  initial: 'idle',
  context: ({ input }) => baseContext(input),
  output: ({ event }) => output<FlowOutput>(event),
  states: {
    idle: {
      on: {
        REQUEST: [
          { guard: 'validAddress', target: 'issuing', actions: assign({ email: ({ event }) => normalize(event.email) }) },
          { target: 'failed.invalidAddress', actions: { type: 'recordRefusal', params: { message: 'Not an e-mail address.' } } },
        ],
        // A code posted without a flow cookie (expired, or another browser): nothing to check it against.
        SUBMIT: { target: 'failed.noCodeSent', actions: { type: 'recordRefusal', params: { message: 'No code was sent to this browser.' } } },
      },
    },
    issuing: {
      invoke: {
        id: 'issueCode',
        src: 'issueCode',
        input: ({ context }) => ({ deps: context.deps, email: context.email! }),
        onDone: { target: 'sending', actions: assign(({ event }) => event.output) },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    sending: {
      invoke: {
        id: 'sendCode',
        src: 'sendCode',
        input: ({ context }) => ({ deps: context.deps, email: context.email!, code: context.code! }),
        onDone: { target: 'awaiting', actions: assign(({ context }) => ({ code: undefined, response: codeForm(context.email!) })) },
        onError: { target: 'failed.sendFailed', actions: 'recordError' },
      },
    },
    awaiting: {
      tags: [AWAITING],
      on: { SUBMIT: { target: 'checking', actions: assign({ code: ({ event }) => event.code }) } },
    },
    checking: {
      invoke: {
        id: 'useToken',
        src: 'useToken',
        input: ({ context }) => ({ deps: context.deps, email: context.email!, nonce: context.nonce! }),
        onDone: [
          { guard: 'tokenGone', target: 'failed.used', actions: { type: 'recordRefusal', params: { message: 'The code was used already.' } } },
          { guard: 'expired', target: 'failed.expired', actions: { type: 'recordRefusal', params: { message: 'The code has expired.' } } },
          { guard: 'codeMatches', target: 'authenticated' },
          { target: 'failed.wrongCode', actions: { type: 'recordRefusal', params: { message: 'Wrong code.' } } },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    authenticated: {
      type: 'final',
      output: ({ context }) => ({
        outcome: 'authenticated' as const,
        user: { email: context.email! },
        account: { provider: context.providerId, type: 'email-code', providerAccountId: context.email! },
      }),
    },
    failed: {
      initial: 'callbackRoute',
      states: {
        invalidAddress: { type: 'final', meta: { error: 'EmailSignInError' } },
        sendFailed: { type: 'final', meta: { error: 'EmailSignInError' } },
        noCodeSent: { type: 'final', meta: { error: 'Verification' } },
        used: { type: 'final', meta: { error: 'Verification' } },
        expired: { type: 'final', meta: { error: 'Verification' } },
        wrongCode: { type: 'final', meta: { error: 'Verification' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

/** The flow: POST signin/:id sends a code, POST callback/:id checks it; both CSRF-checked. */
export const emailCodeFlow = defineFlow({
  machine: emailCodeMachine,
  version: 1,
  csrf: ['signin', 'callback'],
  entry: (route, deps, paused) => {
    const field = (name: string) => (typeof deps.req.body[name] === 'string' ? (deps.req.body[name] as string) : '');
    if (route === 'signin') return { resume: false, event: { type: 'REQUEST', email: field('email') } };
    if (route === 'callback' && deps.req.method === 'POST') return { resume: paused, event: { type: 'SUBMIT', code: field('code') } };
    return null;
  },
});
