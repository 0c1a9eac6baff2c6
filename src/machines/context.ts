// What every flow machine keeps in its context, and how its final states name their outcome.
// A failure state says which error it is in `meta.error`; the evidence is in `context.failure`.
import type { Account, Profile, User } from '../core/types.js';
import type { FlowResponse } from './contract.js';

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
  /** The validated URL to return to after sign-in. */
  callbackUrl: string;
  /** When the flow started (ms); paused flows expire by guard, since `after` timers are not restored. */
  startedAt: number;
  user?: User;
  account?: Account | null;
  profile?: Profile;
  isNewUser?: boolean;
  /** Overrides callbackUrl: a signIn-callback string or the new-user page. */
  redirectTo?: string;
  failure?: FailureEvidence;
  /** While paused: what to answer the browser. Stripped before persisting. */
  response?: FlowResponse;
}

/** Meta of a final state: a success, a redirect without session, or a named error type. */
export type FinalMeta = { outcome: 'signedIn' } | { outcome: 'redirected' } | { error: string };

/** A failed flow's evidence from whatever an invoked actor threw or returned. */
export function evidenceFrom(err: unknown): FailureEvidence {
  if (err instanceof Error) return { message: err.message, err };
  return { message: typeof err === 'string' ? err : undefined, actual: err };
}
