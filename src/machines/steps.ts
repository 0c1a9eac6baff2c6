// Steps every flow shares, as plain async functions the machines invoke: asking the signIn
// callback and issuing the session. The machines decide what the answers mean.
import type { SignInCallbackParams } from '../core/options.js';
import { applyRedirectCallback } from '../http/callback-url.js';
import { strategyFor, type SignInResult } from '../session/strategy.js';
import type { FlowServices } from './services.js';

/** The signIn callback's answer: go on, stop, or go to another URL without a session. */
export type SignInDecision = { allowed: true } | { allowed: false; redirect?: string };

/** Runs the `signIn` callback. A thrown error rejects (the machine turns it into AccessDenied). */
export async function checkSignIn(services: FlowServices, params: SignInCallbackParams): Promise<SignInDecision> {
  const answer = await services.req.config.callbacks.signIn(params);
  if (answer === true) return { allowed: true };
  if (typeof answer === 'string' && answer.length > 0) return { allowed: false, redirect: await applyRedirectCallback(services.req, answer) };
  return { allowed: false };
}

/** Writes the session (JWT cookie or database row) for a signed-in user. */
export async function issueSession(services: FlowServices, result: SignInResult): Promise<void> {
  await strategyFor(services.req).issue(services.req, result);
}
