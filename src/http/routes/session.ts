// GET {basePath}/session reads the session; POST {basePath}/session updates it (CSRF required).
import { csrf } from '../csrf.js';
import type { AuthRequest } from '../request.js';
import { json, jsonText } from '../response.js';
import { sessionJson } from '../session-json.js';
import { strategyFor } from '../../session/strategy.js';

export async function getSessionRoute(req: AuthRequest): Promise<Response> {
  const session = await strategyFor(req).read(req);
  return jsonText(req, sessionJson(session), 200, { noCache: true });
}

export async function updateSessionRoute(req: AuthRequest): Promise<Response> {
  if (!req.config.skipCSRFCheck && !csrf(req).verified) {
    req.config.logger.warn('missing-csrf', 'Session update without a valid CSRF token.');
    return json(req, null, 400);
  }
  const session = await strategyFor(req).update(req, req.body.data);
  return json(req, session, 200, { noCache: true });
}
