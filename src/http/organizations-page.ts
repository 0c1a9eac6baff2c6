// `GET|POST {basePath}/account/organizations`: the built-in organizations page (switcher, members with roles, pending
// invitations) and its forms. Every action goes through the same permission checks as the JSON routes, in the
// active organization only; then the browser comes back to the page.
import { AuthError, OrganizationForbidden } from '../core/errors.js';
import { messagesFor } from '../core/messages/request.js';
import { invitations } from '../flows/registry.js';
import { organizationGate } from '../organizations/gate.js';
import { accessOf, changeRole, createOrganization, listMembers, organizationStore, removeMember } from '../organizations/members.js';
import { grants, rolesOf, within } from '../organizations/roles.js';
import { sessionGate } from '../session/gate.js';
import { strategyFor } from '../session/strategy.js';
import { notRecent } from './account.js';
import { csrf, requireCsrf } from './csrf.js';
import { renderOrganizationsPage } from './pages/organizations.js';
import { bodyString, pageNonce, type AuthRequest } from './request.js';
import { html, redirect } from './response.js';

/** GET: the page for the signed-in user (signed out: the sign-in page, coming back). */
export async function organizationsPageRoute(req: AuthRequest, error?: string): Promise<Response> {
  const session = await sessionGate(req);
  if (!session.ok) return notRecent(req, 'signedOut');
  const userId = session.userId;
  const organizations = await organizationStore(req.config).listUserOrganizations(userId);
  const gate = await organizationGate(req);
  const roles = rolesOf(req.config);
  const i18n = await messagesFor(req);
  let active;
  let members: { userId: string; label: string; role: string; you: boolean }[] = [];
  let pending: { id: string; email: string; role: string; expires: string }[] = [];
  let grantable: string[] = [];
  if (gate.ok) {
    const role = gate.organization.role;
    const can = (p: string) => grants(roles, role, p);
    active = { id: gate.organization.organizationId, role, canRead: can('member:read'), canInvite: can('member:invite'), canChangeRoles: can('member:role'), canRemove: can('member:remove') };
    grantable = [...roles.keys()].filter((r) => within(roles, role, r));
    if (active.canRead) {
      const list = await listMembers(req.config, userId, active.id);
      members = await Promise.all(list.map(async (m) => {
        const user = await req.config.adapter?.getUser?.(m.userId).catch(() => null);
        return { userId: m.userId, label: user?.email ?? user?.name ?? m.userId, role: m.role, you: m.userId === userId };
      }));
    }
    if (active.canInvite) {
      pending = (await (await invitations()).listInvitations(req.config, userId, active.id)).map((i) => ({ id: i.id, email: i.email, role: i.role, expires: i.expires.toISOString() }));
    }
  }
  return html(req, renderOrganizationsPage({
    theme: req.config.theme,
    authUrl: req.authUrl,
    csrfToken: csrf(req).token,
    organizations: organizations.map((o) => ({ id: o.id, name: o.name, role: o.role })),
    ...(active ? { active } : {}),
    members,
    invitations: pending,
    roles: grantable,
    ...(error ? { error } : {}),
    nonce: pageNonce(req),
    i18n,
  }), error ? 400 : 200);
}

/** POST: one action (`switch`, `create`, `role`, `remove`, `invite`, `revoke`), then back to the page. */
export async function organizationsActionRoute(req: AuthRequest): Promise<Response> {
  requireCsrf(req);
  const session = await sessionGate(req);
  if (!session.ok) return notRecent(req, 'signedOut');
  const userId = session.userId;
  const back = `${req.authUrl}/account/organizations`;
  const field = (name: string) => bodyString(req, name) ?? '';
  try {
    const action = field('action');
    if (action === 'switch') {
      const access = await accessOf(req.config, field('organizationId'), userId);
      if (!access) throw new OrganizationForbidden('Not a member of this organization.');
      await strategyFor(req).setOrganization(req, access.organizationId);
    } else if (action === 'create') {
      const organization = await createOrganization(req.config, userId, field('name'));
      await strategyFor(req).setOrganization(req, organization.id);
    } else {
      const gate = await organizationGate(req);
      if (!gate.ok) throw new OrganizationForbidden('No active organization.');
      const organizationId = gate.organization.organizationId;
      if (action === 'role') await changeRole(req.config, userId, organizationId, field('userId'), field('role'));
      else if (action === 'remove') await removeMember(req.config, userId, organizationId, field('userId'));
      else if (action === 'invite') await (await invitations()).inviteMember(req, userId, organizationId, { email: field('email'), role: field('role') || 'member' });
      else if (action === 'revoke') await (await invitations()).revokeInvitation(req.config, userId, organizationId, field('id'));
      else throw new OrganizationForbidden('Unknown action.');
    }
  } catch (err) {
    if (!(err instanceof AuthError)) throw err;
    req.config.logger.debug('organizations page: refused', { type: err.type, message: err.message });
    return organizationsPageRoute(req, (await messagesFor(req)).t('account.error.default'));
  }
  return redirect(req, back);
}
