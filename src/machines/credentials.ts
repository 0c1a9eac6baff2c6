// The credentials flow: authorize -> signIn callback -> resolve the user -> issue the session.
// It completes within one request (POST {basePath}/callback/:id), so it never pauses.
import { assign, emit, enqueueActions, fromPromise, setup } from 'xstate';
import type { CredentialsSignin } from '../core/errors.js';
import type { Account, User } from '../core/types.js';
import type { CredentialsConfig } from '../providers/credentials.js';
import type { FlowDefinition } from './contract.js';
import { evidenceFrom, type FlowContextBase } from './context.js';
import { checkSignIn, issueSession, type SignInDecision } from './steps.js';
import type { FlowServices } from './services.js';
import { placeholder, record, sharedGuards, signInTail } from './shared.js';
import { resolveCredentialsUser, type CredentialsUser } from './credentials-user.js';

export interface CredentialsContext extends FlowContextBase {
  providerId: string;
  /** The submitted form, kept only while this one request runs (the flow never pauses). */
  credentials?: Record<string, unknown>;
}

export type CredentialsEvent = { type: 'SUBMIT'; credentials: Record<string, unknown> };

type Emitted =
  | { type: 'signIn'; user: User; account: Account | null; isNewUser?: boolean }
  | { type: 'createUser'; user: User }
  | { type: 'linkAccount'; user: User; account: Account; profile: User };

export const credentialsMachine = setup({
  types: {
    context: {} as CredentialsContext,
    events: {} as CredentialsEvent,
    input: {} as { callbackUrl: string; providerId: string; startedAt: number },
    emitted: {} as Emitted,
  },
  actors: {
    authorize: placeholder<User | null, Record<string, unknown>>('authorize'),
    checkSignIn: placeholder<SignInDecision, { user: User; account: Account; credentials?: Record<string, unknown> }>('checkSignIn'),
    resolveUser: placeholder<CredentialsUser, { user: User }>('resolveUser'),
    issueSession: placeholder<void, { user: User; account: Account | null; isNewUser?: boolean }>('issueSession'),
  },
  guards: {
    userReturned: ({ event }) => Boolean((event as unknown as { output: User | null }).output),
    ...sharedGuards,
  },
  actions: {
    // The stored user replaces authorize's answer; with database sessions, so does the account row it is found by.
    recordUser: enqueueActions(({ enqueue, context, event }) => {
      const { user, isNewUser, linked, account } = (event as unknown as { output: CredentialsUser }).output;
      if (isNewUser) enqueue(emit({ type: 'createUser', user }));
      if (linked && account) enqueue(emit({ type: 'linkAccount', user, account, profile: context.user! }));
      enqueue(assign({ user, isNewUser, account: account ?? context.account }));
    }),
    recordError: assign(record.error),
    recordCredentialsError: assign({
      failure: ({ event }) => {
        const error = (event as unknown as { error: CredentialsSignin }).error;
        return { ...evidenceFrom(error), code: error.code };
      },
    }),
    recordNoUser: assign({ failure: () => ({ message: 'authorize returned no user', expected: 'a user', actual: null }) }),
    recordRefusal: assign(record.refusal),
    recordRedirect: assign(record.redirect),
  },
}).createMachine({
  id: 'credentials',
  initial: 'idle',
  context: ({ input }) => ({ callbackUrl: input.callbackUrl, providerId: input.providerId, startedAt: input.startedAt }),
  states: {
    idle: {
      on: { SUBMIT: { target: 'authorizing', actions: assign({ credentials: ({ event }) => event.credentials }) } },
    },
    authorizing: {
      invoke: {
        id: 'authorize',
        src: 'authorize',
        input: ({ context }) => context.credentials ?? {},
        onDone: [
          {
            guard: 'userReturned',
            target: 'checkingSignIn',
            actions: assign({
              user: ({ event }) => event.output as User,
              account: ({ context, event }) => ({ provider: context.providerId, type: 'credentials' as const, providerAccountId: String((event.output as User).id) }),
            }),
          },
          { target: 'failed.credentialsSignin', actions: 'recordNoUser' },
        ],
        onError: [
          { guard: { type: 'errorIs', params: { type: 'CredentialsSignin' } }, target: 'failed.credentialsSignin', actions: 'recordCredentialsError' },
          { target: 'failed.callbackRoute', actions: 'recordError' },
        ],
      },
    },
    checkingSignIn: {
      invoke: {
        id: 'checkSignIn',
        src: 'checkSignIn',
        input: ({ context }) => ({ user: context.user!, account: context.account!, credentials: context.credentials }),
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
        input: ({ context }) => ({ user: context.user! }),
        onDone: { target: 'issuingSession', actions: 'recordUser' },
        onError: [
          { guard: { type: 'errorIs', params: { type: 'AccountNotLinked' } }, target: 'failed.accountNotLinked', actions: 'recordError' },
          { target: 'failed.callbackRoute', actions: 'recordError' },
        ],
      },
    },
    ...signInTail(),
    failed: {
      initial: 'callbackRoute',
      states: {
        credentialsSignin: { type: 'final', meta: { error: 'CredentialsSignin' } },
        accessDenied: { type: 'final', meta: { error: 'AccessDenied' } },
        accountNotLinked: { type: 'final', meta: { error: 'AccountNotLinked' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

/** The credentials provider's flow: entered by POST {basePath}/callback/:id, CSRF required. */
export const credentialsFlow: FlowDefinition<typeof credentialsMachine> = {
  machine: credentialsMachine,
  version: 1,
  csrf: ['callback'],
  input: (s: FlowServices) => ({ callbackUrl: s.callbackUrl, providerId: s.provider.id, startedAt: Date.now() }),
  entry: (route, s) => (route === 'callback' && s.req.method === 'POST' ? { resume: false, event: { type: 'SUBMIT', credentials: { ...s.req.body } } } : null),
  implement: (s: FlowServices) => {
    const provider = s.provider as unknown as CredentialsConfig;
    return {
      actors: {
        authorize: fromPromise<User | null, Record<string, unknown>>(async ({ input }) => (await provider.authorize(input, s.req.request)) ?? null),
        checkSignIn: fromPromise<SignInDecision, { user: User; account: Account; credentials?: Record<string, unknown> }>(({ input }) => checkSignIn(s, input)),
        resolveUser: fromPromise<CredentialsUser, { user: User }>(({ input }) => resolveCredentialsUser(s, input.user)),
        issueSession: fromPromise<void, { user: User; account: Account | null; isNewUser?: boolean }>(({ input }) => issueSession(s, input)),
      },
    };
  },
};
