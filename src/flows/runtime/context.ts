// What every flow machine keeps in its context, and the evidence a failure state carries.
// A failure state says which error it is in `meta.error`; the evidence is in `context.failure`.
import type { Account, Profile, User } from '../../core/types.js';
import type { FlowDeps, FlowInput, FlowResponse } from './contract.js';

/** Evidence recorded when a flow fails: the message and what was expected against what came. */
export interface FailureEvidence {
  message?: string;
  /** The thrown error, when there was one (kept in memory only; never persisted: failures are final). */
  err?: unknown;
  /** CredentialsSignin's URL-safe code. */
  code?: string;
  expected?: unknown;
  actual?: unknown;
}

export interface FlowContextBase {
  /** This request's dependencies; put in by the runtime on create and restore, stripped before persisting. */
  deps: FlowDeps;
  /** The validated URL to return to after sign-in. */
  callbackUrl: string;
  providerId: string;
  /** When the flow started (ms); paused flows expire by guard, since `after` timers are not restored. */
  startedAt: number;
  user?: User;
  account?: Account | null;
  profile?: Profile;
  isNewUser?: boolean;
  /** Overrides callbackUrl: a signIn-callback string. */
  redirectTo?: string;
  failure?: FailureEvidence;
  /** While paused: what to answer the browser. Stripped before persisting. */
  response?: FlowResponse;
}

/** The part of a flow's context every machine starts with, from its input. */
export function baseContext(input: FlowInput): Pick<FlowContextBase, 'deps' | 'callbackUrl' | 'providerId' | 'startedAt'> {
  return { deps: input.deps, callbackUrl: input.callbackUrl, providerId: input.providerId, startedAt: input.startedAt };
}

/**
 * The evidence of a flow that came back later than `ttlMs` after it started (the event's `at`): paused flows expire by
 * guard, so this is how long it took against how long it may.
 */
export function expiredEvidence(what: string, ttlMs: number, context: Pick<FlowContextBase, 'startedAt'>, event: unknown): FailureEvidence {
  return { message: `${what} took too long; please start again.`, expected: `< ${ttlMs} ms`, actual: `${(event as { at: number }).at - context.startedAt} ms` };
}

/** A failed flow's evidence from whatever an invoked actor threw or returned. */
export function evidenceFrom(err: unknown): FailureEvidence {
  if (err instanceof Error) return { message: err.message, err };
  return { message: typeof err === 'string' ? err : undefined, actual: err };
}

/** The output of an `xstate.done.actor.*` event (what an invoked actor resolved with). */
export function doneOutput<T>(event: unknown): T {
  return (event as { output: T }).output;
}

/** The error of an `xstate.error.actor.*` event (what an invoked actor threw). */
export function errorOf(event: unknown): unknown {
  return (event as { error?: unknown }).error;
}

/** The `type` of the AuthError an invoked actor threw, if it was one. */
export function errorTypeOf(event: unknown): string | undefined {
  return (errorOf(event) as { type?: string } | undefined)?.type;
}

/** Guard: the invoked actor failed with this error type (`{ type: 'errorIs', params: { type: 'InvalidCheck' } }`). */
export const errorIs = ({ event }: { event: unknown }, params: { type: string }): boolean => errorTypeOf(event) === params.type;

/** `assign` body: the failure's evidence from what the invoked actor threw (`actions: assign(recordFailure)`). */
export const recordFailure = ({ event }: { event: unknown }): { failure: FailureEvidence } => ({ failure: evidenceFrom(errorOf(event)) });
