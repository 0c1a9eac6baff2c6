// The standard sign-in tail: every flow that proves who someone is ends here, built-in or custom. Find the
// account's owner -> ask the signIn callback -> resolve the user by the linking rules -> the user resolved.
// The runtime runs it when a flow's output is `authenticated`, then hands the resolved user to the second-factor
// machine when the configuration asks for more, and only then issues the session.
import { assign, emit, enqueueActions, fromPromise, setup } from 'xstate';
import type { Account, AdapterUser, Profile, User } from '../../core/types.js';
import { defineFlow, type FlowDeps, finalOutput } from '../runtime/contract.js';
import { doneOutput, errorIs, recordFailure, type FailureEvidence } from '../runtime/context.js';
import { checkSignIn, findOwner, resolveUser, signInAllowed, signInRedirected, type Identity, type Resolution, type SignInDecision } from './steps.js';

export interface SignInContext {
  deps: FlowDeps;
  callbackUrl: string;
  identity: Identity;
  /** The account as stored: the identity's, unless the linking rules stored it under another key. */
  account: Account;
  owner?: AdapterUser | null;
  user?: User | AdapterUser;
  isNewUser?: boolean;
  redirectTo?: string;
  failure?: FailureEvidence;
}

/** The tail's input: the flow's deps and the identity it proved. */
export interface SignInInput {
  deps: FlowDeps;
  callbackUrl: string;
  identity: Identity;
}

/** What a finished tail outputs: the resolved user (not yet signed in), or a redirect the signIn callback asked for. */
export type SignInOutput =
  | { outcome: 'resolved'; redirect: string; user: User; account: Account; profile?: Profile; isNewUser: boolean }
  | { outcome: 'redirected'; url: string };

type Emitted = { type: 'createUser'; user: User } | { type: 'updateUser'; user: User } | { type: 'linkAccount'; user: User; account: Account; profile: User };

const output = doneOutput;

export const signInMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as SignInContext,
    events: {} as { type: 'START' },
    input: {} as SignInInput,
    emitted: {} as Emitted,
    output: {} as SignInOutput,
  },
  actors: {
    findOwner: fromPromise<AdapterUser | null, { deps: FlowDeps; identity: Identity }>(({ input }) => findOwner(input.deps, input.identity)),
    checkSignIn: fromPromise<SignInDecision, { deps: FlowDeps; identity: Identity; owner: AdapterUser | null }>(({ input }) => {
      const { identity, owner } = input;
      return checkSignIn(input.deps, {
        user: owner ?? identity.user,
        account: identity.account,
        ...(identity.profile ? { profile: identity.profile } : {}),
        ...(identity.credentials ? { credentials: identity.credentials } : {}),
      });
    }),
    resolveUser: fromPromise<Resolution, { deps: FlowDeps; identity: Identity; owner: AdapterUser | null }>(({ input }) => resolveUser(input.deps, input.identity, input.owner)),
  },
  guards: {
    signInAllowed,
    signInRedirected,
    errorIs,
  },
  actions: {
    recordError: assign(recordFailure),
    recordRefusal: assign({ failure: () => ({ message: 'The signIn callback refused the sign-in.', expected: true, actual: false }) }),
    recordRedirect: assign({ redirectTo: ({ event }) => output<{ redirect: string }>(event).redirect }),
    recordResolution: assign(({ event }) => {
      const r = output<Resolution>(event);
      return { user: r.user, isNewUser: r.isNewUser, ...(r.account ? { account: r.account } : {}) };
    }),
    emitResolutionEvents: enqueueActions(({ enqueue, event, context }) => {
      const r = output<Resolution>(event);
      if (r.created) enqueue(emit({ type: 'createUser', user: r.user }));
      if (r.updated) enqueue(emit({ type: 'updateUser', user: r.user }));
      if (r.linked) enqueue(emit({ type: 'linkAccount', user: r.user, account: r.account ?? context.account, profile: context.identity.user }));
    }),
  },
}).createMachine({
  id: 'signin',
  initial: 'idle',
  context: ({ input }) => ({ deps: input.deps, callbackUrl: input.callbackUrl, identity: input.identity, account: input.identity.account }),
  output: finalOutput<SignInOutput>,
  states: {
    idle: { on: { START: 'findingOwner' } },
    findingOwner: {
      invoke: {
        id: 'findOwner',
        src: 'findOwner',
        input: ({ context }) => ({ deps: context.deps, identity: context.identity }),
        onDone: { target: 'checkingSignIn', actions: assign({ owner: ({ event }) => event.output }) },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    checkingSignIn: {
      invoke: {
        id: 'checkSignIn',
        src: 'checkSignIn',
        input: ({ context }) => ({ deps: context.deps, identity: context.identity, owner: context.owner ?? null }),
        onDone: [
          { guard: 'signInAllowed', target: 'resolvingUser' },
          { guard: 'signInRedirected', target: 'redirected', actions: 'recordRedirect' },
          { target: 'failed.accessDenied', actions: 'recordRefusal' },
        ],
        onError: { target: 'failed.accessDenied', actions: 'recordError' },
      },
    },
    resolvingUser: {
      invoke: {
        id: 'resolveUser',
        src: 'resolveUser',
        input: ({ context }) => ({ deps: context.deps, identity: context.identity, owner: context.owner ?? null }),
        onDone: { target: 'resolved', actions: ['recordResolution', 'emitResolutionEvents'] },
        onError: [
          { guard: { type: 'errorIs', params: { type: 'OAuthAccountNotLinked' } }, target: 'failed.oauthAccountNotLinked', actions: 'recordError' },
          { guard: { type: 'errorIs', params: { type: 'AccountNotLinked' } }, target: 'failed.accountNotLinked', actions: 'recordError' },
          { target: 'failed.callbackRoute', actions: 'recordError' },
        ],
      },
    },
    resolved: {
      type: 'final',
      output: ({ context }) => ({
        outcome: 'resolved' as const,
        redirect: context.callbackUrl,
        user: context.user as User,
        account: context.account,
        profile: context.identity.profile,
        isNewUser: context.isNewUser === true,
      }),
    },
    redirected: { type: 'final', output: ({ context }) => ({ outcome: 'redirected' as const, url: context.redirectTo! }) },
    failed: {
      initial: 'callbackRoute',
      states: {
        accessDenied: { type: 'final', meta: { error: 'AccessDenied' } },
        oauthAccountNotLinked: { type: 'final', meta: { error: 'OAuthAccountNotLinked' } },
        accountNotLinked: { type: 'final', meta: { error: 'AccountNotLinked' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

/** The tail as a flow: started by the runtime after an `authenticated` flow; it never pauses, so no route enters it. */
export const signInFlow = /* @__PURE__ */ defineFlow({
  machine: signInMachine,
  version: 4,
  entry: () => null,
});
