// Issuing the session of a sign-in that reached its level: the only place a session begins. When and how the user
// proved who they are (`auth_time`, `amr`) is recorded by authchart here, never by a callback.
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import { recordProviderSessionInStore } from './provider-sessions.js';
import { strategyFor, type SignInResult } from './strategy.js';
import { signInMethods } from './verification.js';
import type { AuthMethod } from '../core/types.js';

/**
 * Writes the session (JWT cookie or database row) for the signed-in user, verified now by the first factor of the
 * account's kind and `secondFactor` (how the second-factor check passed, if one was asked for); a database session
 * of another user this browser held is ended by the strategy.
 *
 * @example
 * await issueSession(req, { user, account, isNewUser: false }, 'otp')
 */
export async function issueSession(req: AuthRequest, result: Omit<SignInResult, 'verification'>, secondFactor?: string, firstFactor?: readonly AuthMethod[]): Promise<void> {
  const amr = signInMethods(result.account?.type, secondFactor, firstFactor);
  await strategyFor(req).issue(req, { ...result, verification: { authTime: new Date(), amr } });
  // JWT sessions without an adapter that keeps provider sessions: back-channel logout finds them through the store.
  if (result.user.id) await recordProviderSessionInStore(req, String(result.user.id), result.account);
}
