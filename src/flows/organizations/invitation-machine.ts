// The invitation, from the invitee's side: a built-in signed-in flow at `GET|POST {basePath}/invitations/:token`,
// registered with `organizations`. The link opens it (signed out, the route shows who invites whom and sends the
// visitor to sign in or sign up, coming back); the page says who invites whom to what; the invitee accepts or
// declines, once. The invitation may meanwhile have expired, been revoked or replaced, or been taken by another
// answer: each is a final state of its own, and accepting from an account that does not own the invited address is
// refused unless the app opts into `organizations.invitations.anyUser`.
import { assign, fromPromise, setup } from 'xstate';
import type { FlowResponse } from '../runtime/contract.js';
import { AWAITING } from '../runtime/contract.js';
import { doneOutput, recordFailure, type FailureEvidence } from '../runtime/context.js';
import { defineSignedInFlow, type SignedInInput, type SignedInOutput } from '../runtime/signed-in.js';
import { invitationTokenHash, type AnswerResult, type InvitationFacts } from './invitations.js';
import { answer, openInvitation, type Opened } from './invitation-steps.js';

/** The flow's id (its cookie slot); its routes are `{basePath}/invitations/:token`. */
export const INVITATION_FLOW = 'invitation';

interface Context extends SignedInInput {
  /** The link's token: kept only while the first request runs (the page remembers the invitation by its facts). */
  token?: string;
  facts?: InvitationFacts;
  response?: FlowResponse;
  failure?: FailureEvidence;
}
type Events = { type: 'OPEN'; token: string } | { type: 'ACCEPT'; token: string } | { type: 'DECLINE'; token: string };

/** The page: who invites whom to what, Accept, and Decline; with `anyUser` and another account, said so. */
function page(facts: InvitationFacts, token: string, callbackUrl: string, otherAccount: boolean): FlowResponse {
  const values = { inviter: facts.inviter, email: facts.email, organization: facts.organizationName, role: facts.role };
  return {
    kind: 'page',
    page: 'form',
    data: {
      title: { message: 'invitation.title', values },
      message: { message: 'invitation.message', values },
      ...(otherAccount ? { error: { message: 'invitation.anyUser', values } } : {}),
      fields: [],
      submit: { message: 'invitation.accept' },
      alternative: { action: `invitations/${token}`, label: { message: 'invitation.decline' }, fields: { answer: 'decline' } },
      leave: { href: callbackUrl, text: { message: 'invitation.back' } },
    },
  };
}

const opened = (event: unknown) => doneOutput<Opened>(event);
const answered = (event: unknown) => doneOutput<AnswerResult>(event);

export const invitationMachine = /* @__PURE__ */ setup({
  types: { context: {} as Context, input: {} as SignedInInput, events: {} as Events, output: {} as SignedInOutput },
  actors: {
    openInvitation: fromPromise(openInvitation),
    answer: fromPromise(answer),
  },
  guards: {
    pending: ({ event }, params: { allowed: boolean }) => {
      const o = opened(event);
      return o.state === 'pending' && o.allowed === params.allowed;
    },
    expiredOnOpening: ({ event }) => opened(event).state === 'expired',
    // The answer comes with the link it was shown for: another token in the URL is another invitation.
    otherToken: ({ context, event }) => !context.facts || invitationTokenHash((event as { token: string }).token) !== context.facts.tokenHash,
    lapsed: ({ context }) => Date.now() >= (context.facts?.expires ?? 0),
    result: ({ event }, params: { result: AnswerResult['result'] }) => answered(event).result === params.result,
  },
  actions: {
    forget: assign({ token: undefined }),
  },
}).createMachine({
  id: 'invitation',
  initial: 'idle',
  context: ({ input }) => ({ ...input }),
  output: ({ event }) => (event as unknown as { output: SignedInOutput }).output,
  states: {
    idle: { on: { OPEN: { target: 'opening', actions: assign({ token: ({ event }) => event.token }) } } },
    opening: {
      invoke: {
        src: 'openInvitation',
        input: ({ context }) => ({ deps: context.deps, token: context.token ?? '', userId: context.userId }),
        onDone: [
          {
            guard: { type: 'pending', params: { allowed: true } },
            target: 'awaitingAnswer',
            actions: assign(({ context, event }) => {
              const o = opened(event) as Extract<Opened, { state: 'pending' }>;
              return { facts: o.facts, response: page(o.facts, context.token ?? '', context.callbackUrl, !o.matches) };
            }),
          },
          { guard: { type: 'pending', params: { allowed: false } }, target: 'failed.otherAccount', actions: assign({ facts: ({ event }) => (opened(event) as Extract<Opened, { state: 'pending' }>).facts }) },
          { guard: 'expiredOnOpening', target: 'failed.expired' },
          { target: 'failed.gone' },
        ],
        onError: { target: 'failed.callbackRoute', actions: assign(recordFailure) },
      },
    },
    awaitingAnswer: {
      tags: [AWAITING],
      entry: 'forget',
      on: {
        ACCEPT: [
          { guard: 'otherToken', target: 'failed.gone' },
          { guard: 'lapsed', target: 'failed.expired' },
          { target: 'accepting' },
        ],
        DECLINE: [
          { guard: 'otherToken', target: 'failed.gone' },
          { guard: 'lapsed', target: 'failed.expired' },
          { target: 'declining' },
        ],
      },
    },
    accepting: {
      invoke: {
        src: 'answer',
        input: ({ context }) => ({ deps: context.deps, facts: context.facts!, userId: context.userId, accept: true }),
        onDone: [
          { guard: { type: 'result', params: { result: 'accepted' } }, target: 'accepted' },
          { guard: { type: 'result', params: { result: 'expired' } }, target: 'failed.expired' },
          // The account's address changed (or lost its proof) after the page was shown: the binding is read again.
          { guard: { type: 'result', params: { result: 'otherAccount' } }, target: 'failed.otherAccount' },
          { target: 'failed.gone' },
        ],
        onError: { target: 'failed.callbackRoute', actions: assign(recordFailure) },
      },
    },
    declining: {
      invoke: {
        src: 'answer',
        input: ({ context }) => ({ deps: context.deps, facts: context.facts!, userId: context.userId, accept: false }),
        onDone: [
          { guard: { type: 'result', params: { result: 'declined' } }, target: 'declined' },
          { guard: { type: 'result', params: { result: 'expired' } }, target: 'failed.expired' },
          { guard: { type: 'result', params: { result: 'otherAccount' } }, target: 'failed.otherAccount' },
          { target: 'failed.gone' },
        ],
        onError: { target: 'failed.callbackRoute', actions: assign(recordFailure) },
      },
    },
    // A member now: the organization becomes the session's active one.
    accepted: { type: 'final', output: ({ context }) => ({ outcome: 'completed' as const, organization: context.facts!.organizationId, redirect: context.callbackUrl }) },
    declined: { type: 'final', output: ({ context }) => ({ outcome: 'completed' as const, redirect: context.callbackUrl }) },
    failed: {
      initial: 'gone',
      states: {
        gone: { type: 'final', meta: { error: 'Verification' } },
        expired: { type: 'final', meta: { error: 'Verification' } },
        otherAccount: { type: 'final', meta: { error: 'AccessDenied' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

/** The token in an invitation route's path (`…/invitations/:token`), or ''. */
export function tokenOf(url: string): string {
  const match = /\/invitations\/([^/?#]*)$/.exec(new URL(url).pathname);
  return match ? decodeURIComponent(match[1]!) : '';
}

/**
 * The invitation flow: `GET {basePath}/invitations/:token` opens it, `POST` the same path answers it (`answer:
 * decline`, else accept). Any live session may run it; the binding is the machine's.
 */
export const invitationFlow = /* @__PURE__ */ defineSignedInFlow({
  id: INVITATION_FLOW,
  machine: invitationMachine,
  version: 1,
  entry: (route, deps, paused) => {
    const token = tokenOf(deps.req.request.url);
    if (deps.req.method === 'GET') return { resume: false, event: { type: 'OPEN', token } };
    if (deps.req.method !== 'POST' || !paused) return null;
    return { resume: true, event: { type: deps.req.body.answer === 'decline' ? 'DECLINE' : 'ACCEPT', token } };
  },
});
