// The organization gate: the session gate, then the active organization's membership read afresh (one indexed
// statement, or none when the session's own read joined it: PostgresAdapter) on every call. A member removed, or a role lowered, is refused on the very next request, on every
// instance and for both session strategies: nothing about a membership is kept in the cookie but the organization's id.
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import { sessionGate, type GatedSession, type SessionLevel } from '../session/gate.js';
import { accessFrom, accessOf, type MemberAccess } from './members.js';
import { grants, rolesOf } from './roles.js';
import type { AdapterMembership } from '../core/organizations.js';

/** What a request asks of its active organization. */
export interface OrganizationNeed extends SessionLevel {
  /** A permission the member's role must grant now (e.g. `member:invite`, or the app's own `invoice:approve`). */
  permission?: string;
}

/** The gate's answer: the member's access, or why not. */
export type OrganizationGateResult =
  | ({ ok: true; organization: MemberAccess } & GatedSession)
  /** `signedOut`: no live session; `stale`: below the session level asked for. */
  | { ok: false; reason: 'signedOut' }
  | ({ ok: false; reason: 'stale' } & GatedSession)
  /** `noOrganization`: none active, or no longer a member of it; `forbidden`: a member whose role lacks the permission. */
  | ({ ok: false; reason: 'noOrganization' } & GatedSession)
  | ({ ok: false; reason: 'forbidden'; organization: MemberAccess; permission: string } & GatedSession);

/** The access a membership the session's read brought gives: only one of this very session's user and organization. */
function joinedAccess(req: AuthRequest, session: { organizationId?: string; userId: string }, membership: AdapterMembership | null): MemberAccess | null {
  if (!membership || membership.organizationId !== session.organizationId || membership.userId !== session.userId) return null;
  return accessFrom(req.config, membership);
}

/**
 * The request's signed-in user acting in their active organization, checked now: still a member, and (with
 * `need.permission`) with a role that grants it.
 *
 * @example
 * const gate = await organizationGate(req, { permission: 'member:invite' })
 * if (!gate.ok) return gate.reason === 'signedOut' ? unauthorized() : forbidden()
 */
export async function organizationGate(req: AuthRequest, need: OrganizationNeed = {}): Promise<OrganizationGateResult> {
  const gate = await sessionGate(req, need);
  if (!gate.ok) return gate;
  const { ok: _ok, membership, ...session } = gate;
  if (!session.organizationId) return { ok: false, reason: 'noOrganization', ...session };
  const organization = membership === undefined ? await accessOf(req.config, session.organizationId, session.userId) : joinedAccess(req, session, membership);
  if (!organization) return { ok: false, reason: 'noOrganization', ...session };
  if (need.permission !== undefined && !grants(rolesOf(req.config), organization.role, need.permission)) {
    return { ok: false, reason: 'forbidden', organization, permission: need.permission, ...session };
  }
  return { ok: true, organization, ...session };
}
