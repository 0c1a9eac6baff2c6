// The Password provider's sign-in: find the account by address, check the password against its stored hash (or a
// dummy hash when there is none, at the same cost), replace a hash of another format or older parameters, and hand
// the user to the standard sign-in tail. It completes within one request (POST {basePath}/callback/:id).
import { assign, fromPromise, setup } from 'xstate';
import { credentialsForAuthorize, type IdentifiedProvider } from '../../core/credentials-identifier.js';
import type { StoredUser } from '../../core/adapter.js';
import type { User } from '../../core/types.js';
import { passwordForHashing } from '../../providers/password/rules.js';
import { defineFlow, type FlowInput, type FlowOutput, finalOutput } from '../runtime/contract.js';
import { baseContext, doneOutput, recordFailure, type FlowContextBase } from '../runtime/context.js';
import { checkDummy, checkPassword, findAccount, upgradeHash, type FoundAccount, type PasswordCheck } from './signin-steps.js';

export interface PasswordSignInContext extends FlowContextBase {
  /** The address as typed (NFKC, trimmed), and the password: kept only while this one request runs. */
  identifier?: string;
  password?: string;
  /** The stored hash of the account found. */
  hash?: string;
}

export type PasswordSignInEvent = { type: 'SUBMIT'; identifier: string; password: string };

export const passwordSignInMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as PasswordSignInContext,
    events: {} as PasswordSignInEvent,
    input: {} as FlowInput,
    output: {} as FlowOutput,
  },
  actors: {
    findAccount: fromPromise(findAccount),
    checkPassword: fromPromise(checkPassword),
    checkDummy: fromPromise(checkDummy),
    upgradeHash: fromPromise(upgradeHash),
  },
  guards: {
    accountHasPassword: ({ event }) => {
      const found = doneOutput<FoundAccount>(event);
      return found.user !== null && found.hash !== null;
    },
    passwordMatches: ({ event }) => doneOutput<PasswordCheck>(event).match,
    hashOutdated: ({ event }) => doneOutput<PasswordCheck>(event).upgrade,
  },
  actions: {
    recordError: assign(recordFailure),
    recordNoAccount: assign({ failure: () => ({ message: 'no account with a password at this address', expected: 'an account with a password', actual: null }) }),
    recordWrongPassword: assign({ failure: () => ({ message: 'the password does not match', expected: 'the stored password', actual: '[redacted]' }) }),
  },
}).createMachine({
  id: 'password-signin',
  initial: 'idle',
  context: ({ input }) => baseContext(input),
  output: finalOutput,
  states: {
    idle: {
      on: { SUBMIT: { target: 'finding', actions: assign({ identifier: ({ event }) => event.identifier, password: ({ event }) => event.password }) } },
    },
    finding: {
      invoke: {
        id: 'findAccount',
        src: 'findAccount',
        input: ({ context }) => ({ deps: context.deps, identifier: context.identifier ?? '' }),
        onDone: [
          {
            guard: 'accountHasPassword',
            target: 'verifying',
            actions: assign(({ event }) => {
              const found = doneOutput<FoundAccount>(event);
              return { user: found.user as User, hash: found.hash! };
            }),
          },
          { target: 'verifyingDummy' },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    verifying: {
      invoke: {
        id: 'checkPassword',
        src: 'checkPassword',
        input: ({ context }) => ({ deps: context.deps, hash: context.hash!, password: context.password ?? '' }),
        onDone: [
          { guard: 'hashOutdated', target: 'upgrading' },
          { guard: 'passwordMatches', target: 'authenticated' },
          { target: 'failed.credentialsSignin', actions: 'recordWrongPassword' },
        ],
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    // No account, or one without a password: the same hashing work as a real check, then the same failure.
    verifyingDummy: {
      invoke: {
        id: 'checkDummy',
        src: 'checkDummy',
        input: ({ context }) => ({ deps: context.deps, password: context.password ?? '' }),
        onDone: { target: 'failed.credentialsSignin', actions: 'recordNoAccount' },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    // The password was right: its hash is replaced by today's (a failed write is logged, never a failed sign-in).
    upgrading: {
      invoke: {
        id: 'upgradeHash',
        src: 'upgradeHash',
        input: ({ context }) => ({ deps: context.deps, userId: String(context.user!.id), hash: context.hash!, password: context.password ?? '' }),
        onDone: { target: 'authenticated' },
      },
    },
    authenticated: {
      type: 'final',
      output: ({ context }) => {
        const user = context.user as StoredUser;
        return {
          outcome: 'authenticated' as const,
          user: user as User,
          account: { provider: context.providerId, type: 'credentials' as const, providerAccountId: String(user.id) },
          // The signIn callback sees the address, never the password.
          credentials: { email: context.identifier },
          existingUser: true as const,
          amr: ['pwd' as const],
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
 * The Password provider's flow: entered by POST {basePath}/callback/:id, CSRF required. The address is normalised
 * as for every credentials provider (the value the per-account limit counted); the password must pass the sign-in
 * rules (one string, at most 128 characters, no NUL, valid UTF-16) or the request is refused with 400 before
 * anything is looked up or hashed.
 */
export const passwordSignInFlow = /* @__PURE__ */ defineFlow({
  machine: passwordSignInMachine,
  version: 1,
  csrf: ['callback'],
  entry: (route, deps) => {
    if (route !== 'callback' || deps.req.method !== 'POST') return null;
    const form = credentialsForAuthorize(deps.provider as IdentifiedProvider, deps.req.body);
    const password = form.password;
    passwordForHashing(password);
    return { resume: false, event: { type: 'SUBMIT', identifier: String(form.email), password: password as string } };
  },
});
