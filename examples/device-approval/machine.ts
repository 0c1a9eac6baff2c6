// A custom flow on authchart's public contract, across two browsers and any number of instances: browser A shows a
// code (POST signin/device), a signed-in browser B approves it (POST callback/device, action=approve), and A goes
// on (POST callback/device, action=check) signed in as B's user. The pending approval lives in deps.store, so B
// may reach another instance than A; A's flow cookie holds a nonce whose hash the entry carries, so knowing the
// code is not enough to finish as A.
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { assign, fromPromise, setup } from 'xstate';
import { AWAITING, baseContext, defineFlow, evidenceFrom, type FlowContextBase, type FlowDeps, type FlowInput, type FlowOutput, type FlowResponse } from 'authchart/flow';

export const APPROVAL_TTL_S = 600;
const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');
const ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const output = <T>(event: unknown) => (event as { output: T }).output;

/** The store entry of a pending approval, under `pending:<code>`. */
export interface PendingApproval {
  nonceHash: string;
  approvedBy: string | null;
  expiresAt: number;
}
export interface DeviceContext extends FlowContextBase {
  code?: string;
  nonce?: string;
  /** Only within one request: what browser B typed. */
  typed?: string;
}
type Checked = { state: 'pending' } | { state: 'approved'; userId: string } | { state: 'gone' };

function showCode(code: string, waiting = false): FlowResponse {
  return {
    kind: 'page',
    page: 'form',
    data: {
      title: 'Approve this sign-in',
      message: `On a device where you are signed in, open the approval page and enter ${code}. Then continue here.`,
      ...(waiting ? { error: 'Not approved yet.' } : {}),
      fields: [],
      submit: 'Continue',
    },
  };
}

export const deviceMachine = setup({
  types: {
    context: {} as DeviceContext,
    events: {} as { type: 'START' } | { type: 'CHECK' } | { type: 'APPROVE'; code: string },
    input: {} as FlowInput,
    output: {} as FlowOutput,
  },
  actors: {
    createCode: fromPromise(async ({ input }: { input: { deps: FlowDeps } }) => {
      const code = Array.from({ length: 8 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
      const nonce = randomBytes(32).toString('base64url');
      const pending: PendingApproval = { nonceHash: sha256(nonce), approvedBy: null, expiresAt: Date.now() + APPROVAL_TTL_S * 1000 };
      await input.deps.store.set(`pending:${code}`, pending, APPROVAL_TTL_S);
      return { code, nonce };
    }),
    approve: fromPromise(async ({ input }: { input: { deps: FlowDeps; code: string } }) => {
      const session = await input.deps.session();
      if (!session) throw Object.assign(new Error('Sign in on this device first.'), { type: 'AccessDenied' });
      const code = input.code.trim().toUpperCase();
      const pending = /^[A-Z]{8}$/.test(code) ? await input.deps.store.get<PendingApproval>(`pending:${code}`) : null;
      const left = Math.floor(((pending?.expiresAt ?? 0) - Date.now()) / 1000);
      if (!pending || pending.approvedBy !== null || left <= 0) throw Object.assign(new Error('No sign-in waits for this code.'), { type: 'Verification' });
      await input.deps.store.set(`pending:${code}`, { ...pending, approvedBy: session.userId }, left);
    }),
    check: fromPromise(async ({ input }: { input: { deps: FlowDeps; code: string; nonce: string } }): Promise<Checked> => {
      const key = `pending:${input.code}`;
      const pending = await input.deps.store.get<PendingApproval>(key);
      // Not this browser's approval (its nonce does not match): as good as none.
      if (!pending || pending.nonceHash !== sha256(input.nonce)) return { state: 'gone' };
      if (pending.approvedBy === null) return { state: 'pending' };
      // Taken once: of two checks at once (two tabs, two instances), one signs in.
      const taken = await input.deps.store.take<PendingApproval>(key);
      return taken?.approvedBy && taken.nonceHash === pending.nonceHash ? { state: 'approved', userId: taken.approvedBy } : { state: 'gone' };
    }),
  },
  guards: {
    expired: ({ context }) => Date.now() >= context.startedAt + APPROVAL_TTL_S * 1000,
    stillPending: ({ event }) => output<Checked>(event).state === 'pending',
    approved: ({ event }) => output<Checked>(event).state === 'approved',
    refusedAs: ({ event }, params: { type: string }) => (event as unknown as { error?: { type?: string } }).error?.type === params.type,
  },
  actions: {
    recordError: assign({ failure: ({ event }) => evidenceFrom((event as unknown as { error: unknown }).error) }),
    recordRefusal: assign({ failure: (_, params: { message: string }) => ({ message: params.message }) }),
  },
}).createMachine({
  id: 'device-approval',
  initial: 'idle',
  context: ({ input }) => baseContext(input),
  output: ({ event }) => output<FlowOutput>(event),
  states: {
    idle: {
      on: {
        START: 'creating',
        APPROVE: { target: 'approving', actions: assign({ typed: ({ event }) => event.code }) },
        // A check without a flow cookie: nothing to check.
        CHECK: { target: 'failed.expired', actions: { type: 'recordRefusal', params: { message: 'No sign-in waits in this browser.' } } },
      },
    },
    creating: {
      invoke: {
        id: 'createCode',
        src: 'createCode',
        input: ({ context }) => ({ deps: context.deps }),
        onDone: { target: 'awaiting', actions: assign(({ event }) => ({ code: event.output.code, nonce: event.output.nonce, response: showCode(event.output.code) })) },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    awaiting: {
      tags: [AWAITING],
      on: {
        CHECK: [
          { guard: 'expired', target: 'failed.expired', actions: { type: 'recordRefusal', params: { message: 'The code has expired.' } } },
          { target: 'checking' },
        ],
      },
    },
    checking: {
      invoke: {
        id: 'check',
        src: 'check',
        input: ({ context }) => ({ deps: context.deps, code: context.code!, nonce: context.nonce! }),
        onDone: [
          { guard: 'stillPending', target: 'awaiting', actions: assign(({ context }) => ({ response: showCode(context.code!, true) })) },
          { guard: 'approved', target: 'authenticated', actions: assign({ user: ({ event }) => ({ id: (output<Checked>(event) as { userId: string }).userId }) }) },
          { target: 'failed.expired', actions: { type: 'recordRefusal', params: { message: 'The approval is gone (expired, or used).' } } },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    approving: {
      invoke: {
        id: 'approve',
        src: 'approve',
        input: ({ context }) => ({ deps: context.deps, code: context.typed ?? '' }),
        onDone: 'approved',
        onError: [
          { guard: { type: 'refusedAs', params: { type: 'AccessDenied' } }, target: 'failed.signedOut', actions: 'recordError' },
          { guard: { type: 'refusedAs', params: { type: 'Verification' } }, target: 'failed.unknownCode', actions: 'recordError' },
          { target: 'failed.callbackRoute', actions: 'recordError' },
        ],
      },
    },
    approved: { type: 'final', output: ({ context }) => ({ outcome: 'redirected' as const, url: context.callbackUrl }) },
    authenticated: {
      type: 'final',
      output: ({ context }) => ({
        outcome: 'authenticated' as const,
        existingUser: true as const,
        user: { id: String(context.user!.id) },
        account: { provider: context.providerId, type: 'device-approval', providerAccountId: String(context.user!.id) },
      }),
    },
    failed: {
      initial: 'callbackRoute',
      states: {
        signedOut: { type: 'final', meta: { error: 'AccessDenied' } },
        unknownCode: { type: 'final', meta: { error: 'Verification' } },
        expired: { type: 'final', meta: { error: 'Verification' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

export const deviceFlow = defineFlow({
  machine: deviceMachine,
  version: 1,
  csrf: ['signin', 'callback'],
  entry: (route, deps, paused) => {
    if (route === 'signin') return { resume: false, event: { type: 'START' } };
    if (route !== 'callback' || deps.req.method !== 'POST') return null;
    const action = deps.req.body.action;
    if (action === 'approve') return { resume: false, event: { type: 'APPROVE', code: typeof deps.req.body.code === 'string' ? deps.req.body.code : '' } };
    return { resume: paused, event: { type: 'CHECK' } };
  },
});

/** The provider: `providers: [DeviceApproval()]` (with an adapter: the approved user is looked up by id). */
export function DeviceApproval(options: { id?: string; name?: string } = {}) {
  return { id: 'device', name: 'Approve from another device', ...options, type: 'device-approval' as const, flow: deviceFlow };
}
