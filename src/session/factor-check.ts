// A factor check passed by a signed-in user (step-up, or a change to their factors): recorded in their session, and,
// when their factors changed, their other sessions ended.
import { AuthError } from '../core/errors.js';
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import { revokeOtherSessions } from './session-control-entry.js';
import { strategyFor } from './strategy.js';
import { factorMethod } from './verification.js';

/**
 * Records in the session that its user just passed a factor check (`auth_time` now, the method in `amr`), and, when
 * the user's factors changed, ends every other session of theirs (database: deleted; JWT: refused from now on).
 */
export async function recordFactorCheck(req: AuthRequest, passed: { method?: string; changed?: boolean }): Promise<void> {
  if (passed.method && !(await strategyFor(req).reverify(req, factorMethod(passed.method)))) throw new Error('The session ended during the factor check.');
  if (passed.changed) await endOtherSessions(req);
}

/** Ends the other sessions after a factor changed; an adapter that cannot end sessions is warned about, not fatal. */
async function endOtherSessions(req: AuthRequest): Promise<void> {
  try {
    await revokeOtherSessions(req);
  } catch (err) {
    if (!(err instanceof AuthError) || (err.type !== 'UnsupportedStrategy' && err.type !== 'MissingAdapterMethods')) throw err;
    req.config.logger.warn('factor-change-sessions-kept', `A factor changed but the other sessions could not be ended: ${err.message}`);
  }
}
