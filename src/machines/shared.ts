// Pieces every flow machine shares: actor placeholders, readers for done/error events, the guards
// that route failures and signIn answers, and the tail of a sign-in (issue the session, done).
import { emit, fromPromise } from 'xstate';
import type { Account, User } from '../core/types.js';
import { evidenceFrom, type FailureEvidence, type FlowContextBase } from './context.js';
import type { SignInDecision } from './steps.js';

/** The type of an invoked promise actor with this output and input. */
export type Actor<Out, In> = ReturnType<typeof fromPromise<Out, In>>;

/** An actor named in `setup()` and provided per request by the flow's `implement`. */
export const placeholder = <Out, In>(name: string): Actor<Out, In> =>
  fromPromise<Out, In>(async () => {
    throw new Error(`actor "${name}" was not provided`);
  });

/** The output of an `xstate.done.actor.*` event. */
export const output = <T>(event: unknown): T => (event as { output: T }).output;

/** The `type` of the AuthError carried by an `xstate.error.actor.*` event. */
export const errorType = (event: unknown): string | undefined => ((event as { error?: { type?: string } }).error)?.type;

/** Guards shared by the machines (spread into `setup({ guards })`). */
export const sharedGuards = {
  /** The invoked actor failed with this error type (`{ type: 'errorIs', params: { type: 'InvalidCheck' } }`). */
  errorIs: ({ event }: { event: unknown }, params: { type: string }) => errorType(event) === params.type,
  signInAllowed: ({ event }: { event: unknown }) => output<SignInDecision>(event).allowed,
  signInRedirected: ({ event }: { event: unknown }) => Boolean((output<SignInDecision>(event) as { redirect?: string }).redirect),
};

/** `assign` bodies shared by the machines: the evidence of a failure, a refusal, a signIn redirect. */
export const record = {
  error: ({ event }: { event: unknown }): { failure: FailureEvidence } => ({ failure: evidenceFrom((event as { error: unknown }).error) }),
  refusal: (): { failure: FailureEvidence } => ({ failure: { message: 'The signIn callback refused the sign-in.', expected: true, actual: false } }),
  redirect: ({ event }: { event: unknown }): { redirectTo: string } => ({ redirectTo: output<{ redirect: string }>(event).redirect }),
};

/**
 * The last states of every sign-in: issue the session (the jwt callback may refuse: AccessDenied),
 * then `done` (emits `signIn`) or `redirected` (a signIn-callback URL, no session).
 * Machines spread it into their `states`; it needs the `issueSession` actor and the
 * `recordError` action, and `failed.accessDenied` / `failed.callbackRoute` states.
 * Typed as a plain object: its functions are typed on the shared context, which no single
 * machine's state config can name, and spreading it must not widen the machine's own typing.
 */
export function signInTail(): object {
  return {
    issuingSession: {
      invoke: {
        id: 'issueSession',
        src: 'issueSession',
        input: ({ context }: { context: FlowContextBase }) => ({ user: context.user!, account: context.account ?? null, profile: context.profile, isNewUser: context.isNewUser }),
        onDone: 'done',
        onError: [
          { guard: { type: 'errorIs', params: { type: 'AccessDenied' } }, target: 'failed.accessDenied', actions: 'recordError' },
          { target: 'failed.callbackRoute', actions: 'recordError' },
        ],
      },
    },
    done: {
      type: 'final',
      meta: { outcome: 'signedIn' },
      entry: emit(({ context }: { context: FlowContextBase }) => ({
        type: 'signIn' as const,
        user: context.user as User,
        account: (context.account ?? null) as Account | null,
        profile: context.profile,
        isNewUser: context.isNewUser,
      })),
    },
    redirected: { type: 'final', meta: { outcome: 'redirected' } },
  };
}
