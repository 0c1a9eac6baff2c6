// GET {basePath}/sessions lists the signed-in user's database sessions; POST {basePath}/sessions/revoke (CSRF
// required) ends one (`id`), all the others (`scope=others`) or every one (`scope=all`: sign out everywhere).
import { AuthError } from '../../core/errors.js';
import { listSessions, revokeAllSessions, revokeOtherSessions, revokeSession } from '../../session/session-control.js';
import { requireCsrf } from '../csrf.js';
import { bodyString, type AuthRequest } from '../request.js';
import { json } from '../response.js';

const noSession = (req: AuthRequest) => json(req, { error: 'SessionRequired' }, 401, { noCache: true });

/** Session control without database sessions (or an adapter lacking the methods) is a 400 naming why. */
async function guarded(req: AuthRequest, work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AuthError && (err.type === 'UnsupportedStrategy' || err.type === 'MissingAdapterMethods')) {
      req.config.logger.error(err);
      return json(req, { error: err.type }, 400, { noCache: true });
    }
    throw err;
  }
}

export function listSessionsRoute(req: AuthRequest): Promise<Response> {
  return guarded(req, async () => {
    const sessions = await listSessions(req);
    return sessions ? json(req, { sessions }, 200, { noCache: true }) : noSession(req);
  });
}

export function revokeSessionsRoute(req: AuthRequest): Promise<Response> {
  requireCsrf(req);
  return guarded(req, async () => {
    const id = bodyString(req, 'id');
    const scope = bodyString(req, 'scope');
    let revoked: number | undefined;
    if (id !== undefined) {
      const done = await revokeSession(req, id);
      revoked = done === undefined ? undefined : done ? 1 : 0;
    } else if (scope === 'others') revoked = await revokeOtherSessions(req);
    else if (scope === 'all') revoked = await revokeAllSessions(req);
    else return json(req, { error: 'InvalidRequest', message: 'Give `id`, or `scope` "others" or "all".' }, 400, { noCache: true });
    return revoked === undefined ? noSession(req) : json(req, { revoked }, 200, { noCache: true });
  });
}
