// The credentials flow: the app's `authorize` decides who signs in; the standard sign-in tail does the rest.
// It completes within one request (POST {basePath}/callback/:id), so it never pauses.
import { randomUUID } from 'node:crypto';
import { assign, fromPromise, setup } from 'xstate';
import { credentialsForAuthorize, type IdentifiedProvider } from '../../core/credentials-identifier.js';
import type { CredentialsSignin } from '../../core/errors.js';
import type { User } from '../../core/types.js';
import type { CredentialsConfig } from '../../providers/credentials.js';
import { defineFlow, type FlowDeps, type FlowInput, type FlowOutput, finalOutput } from '../runtime/contract.js';
import { baseContext, evidenceFrom, errorTypeOf, recordFailure, type FlowContextBase } from '../runtime/context.js';

export interface CredentialsContext extends FlowContextBase {
  /** The submitted form, kept only while this one request runs (the flow never pauses). */
  credentials?: Record<string, unknown>;
}

export type CredentialsEvent = { type: 'SUBMIT'; credentials: Record<string, unknown> };


/** The app's `authorize`, called with the form and the request; `null` (or nothing) means "no such user". */
async function authorize({ input }: { input: { deps: FlowDeps; credentials: Record<string, unknown> } }): Promise<User | null> {
  const provider = input.deps.provider as unknown as CredentialsConfig;
  return (await provider.authorize(input.credentials, input.deps.req.request)) ?? null;
}

export const credentialsMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as CredentialsContext,
    events: {} as CredentialsEvent,
    input: {} as FlowInput,
    output: {} as FlowOutput,
  },
  actors: {
    authorize: fromPromise(authorize),
  },
  guards: {
    userReturned: ({ event }) => Boolean((event as unknown as { output: User | null }).output),
    errorIsCredentialsSignin: ({ event }) => errorTypeOf(event) === 'CredentialsSignin',
  },
  actions: {
    recordError: assign(recordFailure),
    recordCredentialsError: assign({
      failure: ({ event }) => {
        const error = (event as unknown as { error: CredentialsSignin }).error;
        return { ...evidenceFrom(error), code: error.code };
      },
    }),
    recordNoUser: assign({ failure: () => ({ message: 'authorize returned no user', expected: 'a user', actual: null }) }),
  },
}).createMachine({
  id: 'credentials',
  initial: 'idle',
  context: ({ input }) => baseContext(input),
  output: finalOutput,
  states: {
    idle: {
      on: { SUBMIT: { target: 'authorizing', actions: assign({ credentials: ({ event }) => event.credentials }) } },
    },
    authorizing: {
      invoke: {
        id: 'authorize',
        src: 'authorize',
        input: ({ context }) => ({ deps: context.deps, credentials: context.credentials ?? {} }),
        onDone: [
          { guard: 'userReturned', target: 'authenticated', actions: assign({ user: ({ event }) => event.output as User }) },
          { target: 'failed.credentialsSignin', actions: 'recordNoUser' },
        ],
        onError: [
          { guard: 'errorIsCredentialsSignin', target: 'failed.credentialsSignin', actions: 'recordCredentialsError' },
          { target: 'failed.callbackRoute', actions: 'recordError' },
        ],
      },
    },
    authenticated: {
      type: 'final',
      output: ({ context }) => {
        const user = context.user!;
        const id = user.id === undefined || user.id === null || user.id === '' ? undefined : String(user.id);
        return {
          outcome: 'authenticated' as const,
          user,
          account: { provider: context.providerId, type: 'credentials' as const, providerAccountId: id ?? user.email ?? randomUUID() },
          credentials: context.credentials,
        };
      },
    },
    failed: {
      initial: 'callbackRoute',
      states: {
        credentialsSignin: { type: 'final', meta: { error: 'CredentialsSignin' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

/**
 * The credentials provider's flow: entered by POST {basePath}/callback/:id, CSRF required. The form reaches
 * `authorize` with its identifier normalised (the value the per-account limit counted); a form without one
 * usable identifier is an InvalidRequest (400) and runs nothing.
 */
export const credentialsFlow = /* @__PURE__ */ defineFlow({
  machine: credentialsMachine,
  version: 2,
  csrf: ['callback'],
  entry: (route, deps) => (route === 'callback' && deps.req.method === 'POST' ? { resume: false, event: { type: 'SUBMIT', credentials: credentialsForAuthorize(deps.provider as IdentifiedProvider, deps.req.body) } } : null),
});
