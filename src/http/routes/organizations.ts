// The organization routes. Each acts for the signed-in user in their *active* organization (the session's), never in
// one a request names, except the switch, which checks the membership first: an id of another tenant's organization
// reaches nothing. Writes need CSRF. GET organizations, POST organizations (create), POST organizations/active
// (switch), GET organizations/members, POST organizations/members/role, POST organizations/members/remove.
import { AuthError } from '../../core/errors.js';
import { organizationGate, type OrganizationNeed } from '../../organizations/gate.js';
import { accessOf, changeRole, createOrganization, listMembers, organizationStore, removeMember, type MemberAccess } from '../../organizations/members.js';
import { sessionGate } from '../../session/gate.js';
import { strategyFor } from '../../session/strategy.js';
import { requireCsrf } from '../csrf.js';
import { bodyString, type AuthRequest } from '../request.js';
import { json } from '../response.js';

export const answer = (req: AuthRequest, body: unknown, status = 200) => json(req, body, status, { noCache: true });
export const signedOut = (req: AuthRequest) => answer(req, { error: 'SessionRequired' }, 401);

/** Refusals of the organization layer as their statuses (403, 409); anything else is the route's failure. */
export async function guarded(req: AuthRequest, work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AuthError && (err.type === 'OrganizationForbidden' || err.type === 'LastOwner' || err.type === 'InvalidRequest')) {
      return answer(req, { error: err.type, message: err.message }, err.type === 'LastOwner' ? 409 : err.type === 'InvalidRequest' ? 400 : 403);
    }
    throw err;
  }
}

/** The active organization at `need`, or the answer that refuses it. */
export async function active(req: AuthRequest, need: OrganizationNeed = {}): Promise<{ userId: string; organization: MemberAccess } | Response> {
  const gate = await organizationGate(req, need);
  if (gate.ok) return gate;
  if (gate.reason === 'signedOut' || gate.reason === 'stale') return signedOut(req);
  if (gate.reason === 'noOrganization') return answer(req, { error: 'OrganizationForbidden', message: 'No active organization.' }, 403);
  return answer(req, { error: 'OrganizationForbidden', message: `This role lacks the permission "${gate.permission}".` }, 403);
}

/** GET organizations: the user's organizations with their role, and the active one (membership read now). */
export async function listOrganizationsRoute(req: AuthRequest): Promise<Response> {
  const gate = await organizationGate(req);
  if (!gate.ok && (gate.reason === 'signedOut' || gate.reason === 'stale')) return signedOut(req);
  const userId = (gate as { userId: string }).userId;
  const organizations = await organizationStore(req.config).listUserOrganizations(userId);
  const current = gate.ok ? gate.organization : null;
  return answer(req, {
    active: current && { id: current.organizationId, role: current.role, permissions: current.permissions },
    organizations: organizations.map((o) => ({ id: o.id, name: o.name, role: o.role })),
  });
}

/** POST organizations (`name`): creates one with the user as owner and makes it active. */
export async function createOrganizationRoute(req: AuthRequest): Promise<Response> {
  requireCsrf(req);
  return guarded(req, async () => {
    const gate = await sessionGate(req);
    if (!gate.ok) return signedOut(req);
    const name = bodyString(req, 'name');
    if (name === undefined) return answer(req, { error: 'InvalidRequest', message: 'Give the organization a `name`.' }, 400);
    const organization = await createOrganization(req.config, gate.userId, name);
    await strategyFor(req).setOrganization(req, organization.id);
    return answer(req, { id: organization.id, name: organization.name, role: 'owner' }, 201);
  });
}

/** POST organizations/active (`organizationId`, empty to clear): switches only to an organization the user belongs to. */
export async function switchOrganizationRoute(req: AuthRequest): Promise<Response> {
  requireCsrf(req);
  const gate = await sessionGate(req);
  if (!gate.ok) return signedOut(req);
  const organizationId = bodyString(req, 'organizationId') ?? '';
  if (organizationId === '') {
    await strategyFor(req).setOrganization(req, null);
    return answer(req, { active: null });
  }
  const access = await accessOf(req.config, organizationId, gate.userId);
  // Not a member and no such organization read alike: an id guessed or taken from another tenant reveals nothing.
  if (!access) return answer(req, { error: 'OrganizationForbidden', message: 'Not a member of this organization.' }, 403);
  await strategyFor(req).setOrganization(req, organizationId);
  return answer(req, { active: { id: access.organizationId, role: access.role, permissions: access.permissions } });
}

/** GET organizations/members: the active organization's members (permission `member:read`). */
export async function listMembersRoute(req: AuthRequest): Promise<Response> {
  return guarded(req, async () => {
    const acting = await active(req, { permission: 'member:read' });
    if (acting instanceof Response) return acting;
    const members = await listMembers(req.config, acting.userId, acting.organization.organizationId);
    return answer(req, { members: members.map((m) => ({ userId: m.userId, role: m.role, permissions: m.permissions })) });
  });
}

/** POST organizations/members/role (`userId`, `role`): within the actor's own role; the last owner stays one. */
export async function changeRoleRoute(req: AuthRequest): Promise<Response> {
  requireCsrf(req);
  return guarded(req, async () => {
    const acting = await active(req, { permission: 'member:role' });
    if (acting instanceof Response) return acting;
    const userId = bodyString(req, 'userId');
    const role = bodyString(req, 'role');
    if (!userId || !role) return answer(req, { error: 'InvalidRequest', message: 'Give `userId` and `role`.' }, 400);
    const membership = await changeRole(req.config, acting.userId, acting.organization.organizationId, userId, role);
    return answer(req, { userId: membership.userId, role: membership.role });
  });
}

/** POST organizations/members/remove (`userId`; the user's own id leaves): the last owner cannot go. */
export async function removeMemberRoute(req: AuthRequest): Promise<Response> {
  requireCsrf(req);
  return guarded(req, async () => {
    const acting = await active(req);
    if (acting instanceof Response) return acting;
    const userId = bodyString(req, 'userId');
    if (!userId) return answer(req, { error: 'InvalidRequest', message: 'Give `userId`.' }, 400);
    await removeMember(req.config, acting.userId, acting.organization.organizationId, userId);
    if (userId === acting.userId) await strategyFor(req).setOrganization(req, null);
    return answer(req, { removed: userId });
  });
}
