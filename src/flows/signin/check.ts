// The `signIn` callback as a step of the sign-in tail (and of the e-mail flow, which asks it before sending a link),
// and the guards that read its answer. Kept apart from the linking rules so that exporting it costs an app nothing.
import type { SignInCallbackParams } from '../../core/options.js';
import { applyRedirectCallback } from '../../core/redirect.js';
import type { FlowDeps } from '../runtime/contract.js';
import { doneOutput } from '../runtime/context.js';

/** The signIn callback's answer: go on, stop, or go to another URL without a session. */
export type SignInDecision = { allowed: true } | { allowed: false; redirect?: string };

/** Guard: the signIn callback (an invoked `checkSignIn`) let the sign-in go on. */
export const signInAllowed = ({ event }: { event: unknown }): boolean => doneOutput<SignInDecision>(event).allowed;

/** Guard: the signIn callback answered with a URL to go to instead. */
export const signInRedirected = ({ event }: { event: unknown }): boolean => Boolean((doneOutput<SignInDecision>(event) as { redirect?: string }).redirect);

/** Runs the `signIn` callback. A thrown error rejects (the machine turns it into AccessDenied). */
export async function checkSignIn(deps: FlowDeps, params: SignInCallbackParams): Promise<SignInDecision> {
  const answer = await deps.req.config.callbacks.signIn(params);
  if (answer === true) return { allowed: true };
  if (typeof answer === 'string' && answer.length > 0) return { allowed: false, redirect: await applyRedirectCallback(deps.req, answer) };
  return { allowed: false };
}
