// Ending every session of a user at once (a reset password, an address put back): database sessions are deleted,
// JWT sessions are refused from now on ("sessions valid after"). What cannot be done is an error, never a silent pass.
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import { endSessionsBefore, keepsValidAfter } from './valid-after.js';

/**
 * Ends every session of `userId`; `why` names the action in the error when the configuration cannot end them.
 *
 * @example
 * await endEverySession(req, userId, 'Password recovery')
 */
export async function endEverySession(req: AuthRequest, userId: string, why: string): Promise<void> {
  const adapter = req.config.adapter;
  if (req.config.session.strategy === 'jwt') {
    if (!keepsValidAfter(req)) throw new Error(`${why} with JWT sessions needs a \`session.validAfter\` store or an adapter with getSessionsValidAfter and setSessionsValidAfter, to end the sessions.`);
    await endSessionsBefore(req, userId, new Date());
  } else if (adapter?.deleteSessions) {
    await adapter.deleteSessions(userId);
  } else {
    throw new Error(`${why} with database sessions needs an adapter with deleteSessions, to end the sessions.`);
  }
}
