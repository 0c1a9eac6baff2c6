// The credentials flow: authorize -> signIn callback -> resolve the user -> issue the session.
// It completes within one request (POST {basePath}/callback/:id), so it never pauses.
import { assign, emit, fromPromise, setup } from 'xstate';
import type { CredentialsSignin } from '../core/errors.js';
import type { Account, AdapterUser, User } from '../core/types.js';
import type { CredentialsConfig } from '../providers/credentials.js';
import type { FlowDefinition } from './contract.js';
import { evidenceFrom, type FlowContextBase } from './context.js';
import { checkSignIn, issueSession, type SignInDecision } from './steps.js';
import type { FlowServices } from './services.js';
import { resolveCredentialsUser } from './credentials-user.js';

export interface CredentialsContext extends FlowContextBase {
  providerId: string;
  /** The submitted form, kept only while this one request runs (the flow never pauses). */
  credentials?: Record<string, unknown>;
}

export type CredentialsEvent = { type: 'SUBMIT'; credentials: Record<string, unknown> };

type Emitted =
  | { type: 'signIn'; user: User; account: Account | null; isNewUser?: boolean }
  | { type: 'createUser'; user: User };

const notProvided = (name: string) =>
  fromPromise<never, unknown>(async () => {
    throw new Error(`actor "${name}" was not provided`);
  });

export const credentialsMachine = setup({
  types: {
    context: {} as CredentialsContext,
    events: {} as CredentialsEvent,
    input: {} as { callbackUrl: string; providerId: string; startedAt: number },
    emitted: {} as Emitted,
  },
  actors: {
    authorize: notProvided('authorize') as unknown as ReturnType<typeof fromPromise<User | null, Record<string, unknown>>>,
    checkSignIn: notProvided('checkSignIn') as unknown as ReturnType<typeof fromPromise<SignInDecision, { user: User; account: Account; credentials?: Record<string, unknown> }>>,
    resolveUser: notProvided('resolveUser') as unknown as ReturnType<typeof fromPromise<{ user: User | AdapterUser; isNewUser: boolean }, { user: User }>>,
    issueSession: notProvided('issueSession') as unknown as ReturnType<typeof fromPromise<void, { user: User; account: Account | null; isNewUser?: boolean }>>,
  },
  guards: {
    userReturned: ({ event }) => Boolean((event as unknown as { output: User | null }).output),
    signInAllowed: ({ event }) => (event as unknown as { output: SignInDecision }).output.allowed,
    signInRedirected: ({ event }) => Boolean((event as unknown as { output: SignInDecision & { redirect?: string } }).output.redirect),
    errorIs: ({ event }, params: { type: string }) => ((event as unknown as { error: { type?: string } | undefined }).error?.type === params.type),
    createdUser: ({ event }) => Boolean((event as unknown as { output: { isNewUser: boolean } }).output.isNewUser),
  },
  actions: {
    recordUser: assign(({ event }) => {
      const { user, isNewUser } = (event as unknown as { output: { user: User; isNewUser: boolean } }).output;
      return { user, isNewUser };
    }),
    recordError: assign({ failure: ({ event }) => evidenceFrom((event as unknown as { error: unknown }).error) }),
    recordCredentialsError: assign({
      failure: ({ event }) => {
        const error = (event as unknown as { error: CredentialsSignin }).error;
        return { ...evidenceFrom(error), code: error.code };
      },
    }),
    recordNoUser: assign({ failure: () => ({ message: 'authorize returned no user', expected: 'a user', actual: null }) }),
    recordRefusal: assign({ failure: () => ({ message: 'The signIn callback refused the sign-in.', expected: true, actual: false }) }),
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
          { guard: 'signInRedirected', target: 'redirected', actions: assign({ redirectTo: ({ event }) => (event.output as { redirect: string }).redirect }) },
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
        onDone: [
          {
            guard: 'createdUser',
            target: 'issuingSession',
            actions: ['recordUser', emit(({ event }) => ({ type: 'createUser' as const, user: event.output.user }))],
          },
          { target: 'issuingSession', actions: 'recordUser' },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    issuingSession: {
      invoke: {
        id: 'issueSession',
        src: 'issueSession',
        input: ({ context }) => ({ user: context.user!, account: context.account ?? null, isNewUser: context.isNewUser }),
        onDone: { target: 'done' },
        onError: [
          { guard: { type: 'errorIs', params: { type: 'AccessDenied' } }, target: 'failed.accessDenied', actions: 'recordError' },
          { target: 'failed.callbackRoute', actions: 'recordError' },
        ],
      },
    },
    done: {
      type: 'final',
      meta: { outcome: 'signedIn' },
      entry: [
        assign({ credentials: undefined }),
        emit(({ context }) => ({ type: 'signIn' as const, user: context.user!, account: context.account ?? null, isNewUser: context.isNewUser })),
      ],
    },
    redirected: { type: 'final', meta: { outcome: 'redirected' } },
    failed: {
      initial: 'callbackRoute',
      states: {
        credentialsSignin: { type: 'final', meta: { error: 'CredentialsSignin' } },
        accessDenied: { type: 'final', meta: { error: 'AccessDenied' } },
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
        resolveUser: fromPromise<{ user: User | AdapterUser; isNewUser: boolean }, { user: User }>(({ input }) => resolveCredentialsUser(s, input.user)),
        issueSession: fromPromise<void, { user: User; account: Account | null; isNewUser?: boolean }>(({ input }) => issueSession(s, input)),
      },
    };
  },
};
