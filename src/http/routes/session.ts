// GET {basePath}/session reads the session; POST {basePath}/session updates it (CSRF required).
import { csrf } from '../csrf.js';
import type { Session } from '../../core/types.js';
import type { AuthRequest } from '../request.js';
import { json, jsonText } from '../response.js';
import { sessionJson } from '../session-json.js';
import { strategyFor } from '../../session/strategy.js';

export function getSessionRoute(req: AuthRequest): Response | Promise<Response> {
  const session = strategyFor(req).read(req);
  // With organizations, the active one as the gate finds it now (membership read afresh): `{ id, role, permissions }`, or null.
  if (req.config.organizations) return Promise.resolve(session).then((s) => withOrganization(req, s)).then((s) => sessionAnswer(req, s));
  // A session known at once is answered at once: a check then takes no turn of the event loop.
  return session instanceof Promise ? session.then((s) => sessionAnswer(req, s)) : sessionAnswer(req, session);
}

async function withOrganization(req: AuthRequest, session: Session | null): Promise<Session | null> {
  if (!session) return session;
  // Not destructured under the export's own name: the build, where both modules share a chunk, turns the import into
  // a getter returning that name, which the destructuring itself would then shadow (test/package/consumer.test.ts).
  const organizations = await import('../../organizations/gate.js');
  const gate = await organizations.organizationGate(req);
  const organization = gate.ok ? { id: gate.organization.organizationId, role: gate.organization.role, permissions: gate.organization.permissions } : null;
  return { ...session, organization };
}

function sessionAnswer(req: AuthRequest, session: Session | null): Response {
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
