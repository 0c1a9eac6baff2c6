// Linking a provider account to the signed-in user: the stage that replaces the sign-in tail when a provider's flow
// was started by `POST {basePath}/link/:provider`. Is the account linkable -> the user the link is for, still signed
// in -> who owns the account -> the signIn callback -> the write. It never creates a user, never links an account
// another user owns, and issues no session: it ends in a redirect back to where the link started.
import { assign, emit, fromPromise, setup } from 'xstate';
import type { Account, AdapterUser } from '../../core/types.js';
import { defineFlow, type FlowDeps, finalOutput } from '../runtime/contract.js';
import { doneOutput, errorIs, recordFailure, type FailureEvidence } from '../runtime/context.js';
import { checkSignIn, signInAllowed, type Identity, type SignInDecision } from '../signin/steps.js';
import { linkable, linkingUser, ownershipOf, writeLink, type Ownership } from './steps.js';

export interface LinkContext {
  deps: FlowDeps;
  callbackUrl: string;
  identity: Identity;
  /** The user the link was started for (sealed with the provider's paused flow). */
  userId: string;
  user?: AdapterUser;
  account?: Account;
  failure?: FailureEvidence;
}

/** The stage's input: what the runtime gives every tail, and the user the link was started for. */
export interface LinkInput {
  deps: FlowDeps;
  callbackUrl: string;
  identity: Identity;
  userId: string;
}

/** A finished link goes back where it started, without a session: the runtime's `redirected` outcome. */
export type LinkOutput = { outcome: 'redirected'; url: string };

type Emitted = { type: 'linkAccount'; user: AdapterUser; account: Account; profile: AdapterUser };

export const linkMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as LinkContext,
    events: {} as { type: 'START' },
    input: {} as LinkInput,
    emitted: {} as Emitted,
    output: {} as LinkOutput,
  },
  actors: {
    linkingUser: fromPromise<AdapterUser, { deps: FlowDeps; userId: string }>(({ input }) => linkingUser(input.deps, input.userId)),
    ownership: fromPromise<Ownership, { deps: FlowDeps; account: Account; userId: string }>(({ input }) => ownershipOf(input.deps, input.account, input.userId)),
    checkSignIn: fromPromise<SignInDecision, { deps: FlowDeps; identity: Identity; user: AdapterUser }>(({ input }) =>
      checkSignIn(input.deps, { user: input.user, account: input.identity.account, ...(input.identity.profile ? { profile: input.identity.profile } : {}) }),
    ),
    writeLink: fromPromise<Account, { deps: FlowDeps; identity: Identity; userId: string }>(({ input }) => writeLink(input.deps, input.identity, input.userId)),
  },
  guards: {
    linkable: ({ context }) => linkable(context.identity, context.userId),
    alreadyLinked: ({ event }) => doneOutput<Ownership>(event) === 'self',
    signInAllowed,
    errorIs,
  },
  actions: {
    recordError: assign(recordFailure),
    recordUnlinkable: assign({
      failure: ({ context }) => ({ message: 'This account cannot be linked to the signed-in user.', expected: 'a provider account or a passkey made for this user', actual: context.identity.account.type }),
    }),
    recordRefusal: assign({ failure: () => ({ message: 'The signIn callback refused the link.', expected: true, actual: false }) }),
    recordUser: assign({ user: ({ event }) => doneOutput<AdapterUser>(event) }),
    emitLinked: emit(({ context, event }) => ({ type: 'linkAccount' as const, user: context.user!, account: doneOutput<Account>(event), profile: context.user! })),
  },
}).createMachine({
  id: 'link',
  initial: 'idle',
  context: ({ input }) => ({ deps: input.deps, callbackUrl: input.callbackUrl, identity: input.identity, userId: input.userId }),
  output: finalOutput<LinkOutput>,
  states: {
    idle: {
      on: {
        START: [
          { guard: 'linkable', target: 'findingUser' },
          { target: 'failed.invalidRequest', actions: 'recordUnlinkable' },
        ],
      },
    },
    findingUser: {
      invoke: {
        id: 'linkingUser',
        src: 'linkingUser',
        input: ({ context }) => ({ deps: context.deps, userId: context.userId }),
        onDone: { target: 'checkingOwner', actions: 'recordUser' },
        onError: [
          { guard: { type: 'errorIs', params: { type: 'AccountNotLinked' } }, target: 'failed.accountNotLinked', actions: 'recordError' },
          { target: 'failed.callbackRoute', actions: 'recordError' },
        ],
      },
    },
    checkingOwner: {
      invoke: {
        id: 'ownership',
        src: 'ownership',
        input: ({ context }) => ({ deps: context.deps, account: context.identity.account, userId: context.userId }),
        onDone: [{ guard: 'alreadyLinked', target: 'linked' }, { target: 'checkingSignIn' }],
        onError: [
          { guard: { type: 'errorIs', params: { type: 'OAuthAccountNotLinked' } }, target: 'failed.ownedByAnother', actions: 'recordError' },
          { target: 'failed.callbackRoute', actions: 'recordError' },
        ],
      },
    },
    checkingSignIn: {
      invoke: {
        id: 'checkSignIn',
        src: 'checkSignIn',
        input: ({ context }) => ({ deps: context.deps, identity: context.identity, user: context.user! }),
        onDone: [{ guard: 'signInAllowed', target: 'linking' }, { target: 'failed.accessDenied', actions: 'recordRefusal' }],
        onError: { target: 'failed.accessDenied', actions: 'recordError' },
      },
    },
    linking: {
      invoke: {
        id: 'writeLink',
        src: 'writeLink',
        input: ({ context }) => ({ deps: context.deps, identity: context.identity, userId: context.userId }),
        onDone: { target: 'linked', actions: 'emitLinked' },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    linked: { type: 'final', output: ({ context }) => ({ outcome: 'redirected' as const, url: context.callbackUrl }) },
    failed: {
      initial: 'callbackRoute',
      states: {
        invalidRequest: { type: 'final', meta: { error: 'InvalidRequest' } },
        accountNotLinked: { type: 'final', meta: { error: 'AccountNotLinked' } },
        ownedByAnother: { type: 'final', meta: { error: 'OAuthAccountNotLinked' } },
        accessDenied: { type: 'final', meta: { error: 'AccessDenied' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

/** The link stage as a flow: run by the runtime in place of the sign-in tail; it never pauses, so no route enters it. */
export const linkFlow = /* @__PURE__ */ defineFlow({
  machine: linkMachine,
  version: 1,
  entry: () => null,
});
