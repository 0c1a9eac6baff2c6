// requireOrganization: the organization gate for application code, whatever the request object. A web Request or a
// Node request (Express) gets typed errors (SessionRequired, OrganizationForbidden); an h3 event (h3 v2, Nitro 3,
// Nitro 2's v1) gets h3 errors with the same statuses (401, 403), as requireSession answers.
import type { ServerResponse } from 'node:http';
import { HTTPError } from 'h3';
import { OrganizationForbidden, SessionRequired, type AuthError } from '../../core/errors.js';
import { lazy } from '../../core/lazy.js';
import type { OrganizationGateResult, OrganizationNeed } from '../../organizations/gate.js';
import type { MemberAccess } from '../../organizations/members.js';
import type { ConfigInput } from '../auth.js';
import { setCookieLines } from '../auth.js';
import { outageHttpError, outageOf } from '../outage.js';
import { createAuthRequest } from '../request.js';
import { appendNodeSetCookie, H3V1CompatibleError, isH3V1Event } from './h3-v1.js';
import { instanceFor } from './instances.js';
import { isH3Event, toRequest, type AnyRequest } from './session-helpers.js';

// The gate (and the membership store behind it) loads with the first call, once per process (an import() of a loaded
// module is still a trip through the module loader): an app without organizations never loads it, nor does its
// bundler put it in the start bundle.
const loadGate = /* @__PURE__ */ lazy(() => import('../../organizations/gate.js'));

/** What requireOrganization hands back: the signed-in user and their access to the active organization, read now. */
export interface OrganizationAccess {
  userId: string;
  organization: MemberAccess;
}

/**
 * The signed-in user acting in their active organization, with a role that grants `options.permission` now (the
 * membership is read on every call: a member removed or a role lowered is refused on the next request). Signed out:
 * `SessionRequired` (401); no active organization, no longer a member, or lacking the permission:
 * `OrganizationForbidden` (403). In h3, the same statuses as `HTTPError`s. Node: pass `res` for refreshed cookies.
 *
 * @example
 * app.post('/api/invoices/:id/approve', async (event) => {
 *   const { organization } = await requireOrganization(event, config, { permission: 'invoice:approve' })
 *   return approveInvoice(organization.organizationId, event.context.params.id)
 * })
 */
export async function requireOrganization(input: AnyRequest, config: ConfigInput, options: OrganizationNeed = {}, res?: ServerResponse): Promise<OrganizationAccess> {
  const request = await toRequest(input);
  const { config: resolved } = await instanceFor(config).resolve(request);
  const req = await createAuthRequest(request, resolved, { body: false });
  const h3 = isH3Event(input);
  const h3v1 = isH3V1Event(input);
  let gate: OrganizationGateResult;
  try {
    gate = await (await loadGate()).organizationGate(req, options);
  } catch (err) {
    const down = outageOf(err);
    if (down && (h3 || h3v1)) throw outageHttpError(resolved, down, h3v1);
    throw err;
  }
  // A refreshed (or cleared) session cookie goes out with the answer, refusals included.
  const lines = setCookieLines(req);
  if (res) appendNodeSetCookie(res, lines);
  else if (h3v1) appendNodeSetCookie(input.node.res, lines);
  else if (h3) {
    for (const line of lines) {
      input.res.headers.append('set-cookie', line);
      (input.res as { errHeaders?: Headers }).errHeaders?.append('set-cookie', line);
    }
  }
  if (gate.ok) return { userId: gate.userId, organization: gate.organization };
  let error: AuthError;
  if (gate.reason === 'signedOut' || gate.reason === 'stale') error = new SessionRequired('Sign-in required.');
  else if (gate.reason === 'noOrganization') error = new OrganizationForbidden('No active organization.');
  else error = new OrganizationForbidden(`This role lacks the permission "${gate.permission}".`, { permission: gate.permission });
  if (!h3 && !h3v1) throw error;
  const Err = h3v1 ? H3V1CompatibleError : HTTPError;
  const status = error instanceof SessionRequired ? 401 : 403;
  throw new Err({ status, statusText: status === 401 ? 'Unauthorized' : 'Forbidden', message: error.message, data: { error: error.type } });
}
