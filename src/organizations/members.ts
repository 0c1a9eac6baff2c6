// What a signed-in user may do to an organization, decided on permissions: create one, read, add, re-role and remove
// members, rename and delete it. Every action reads the actor's membership first (not a member: refused alike
// whether or not the organization exists), and emits its event once the adapter has done it.
import { plainActivityRecord } from '../activity/record.js';
import { noteActivity } from '../activity/run.js';
import { writeActivity } from '../activity/write.js';
import type { ActivityKind } from '../activity/types.js';
import { randomUUID } from 'node:crypto';
import type { WrappedAdapter } from '../core/adapter-wrap.js';
import type { InternalConfig } from '../core/config.js';
import type { RequestContext } from '../core/request-context.js';
import { LastOwner, MissingAdapter, OrganizationForbidden } from '../core/errors.js';
import { dispatchEvent } from '../core/events.js';
import type { AdapterMembership, AdapterOrganization, OrganizationAdapterMethods } from '../core/organizations.js';
import { grants, permissionsOf, rolesOf, within } from './roles.js';

type Methods = { [K in keyof OrganizationAdapterMethods]-?: NonNullable<WrappedAdapter[K]> };

/** The adapter's organization methods (checked at start once `organizations` is configured). */
export function organizationStore(config: InternalConfig): Methods {
  const adapter = config.adapter;
  if (!config.organizations || !adapter?.getMembership) throw new MissingAdapter('Organizations are not configured: set the `organizations` option with an adapter that keeps them.');
  return adapter as unknown as Methods;
}

/** A member's role with what it grants, as the gate and the routes hand it out. */
export interface MemberAccess {
  organizationId: string;
  userId: string;
  role: string;
  permissions: string[];
}

/** The access `userId` has to the organization now, or null when they are not a member. One indexed read. */
export async function accessOf(config: InternalConfig, organizationId: string, userId: string): Promise<MemberAccess | null> {
  const membership = await organizationStore(config).getMembership(organizationId, userId);
  return membership ? accessFrom(config, { organizationId, userId, role: membership.role }) : null;
}

/** The access a membership gives: its role with what the role grants. */
export function accessFrom(config: InternalConfig, membership: Pick<AdapterMembership, 'organizationId' | 'userId' | 'role'>): MemberAccess {
  const { organizationId, userId, role } = membership;
  return { organizationId, userId, role, permissions: permissionsOf(rolesOf(config), role) };
}

/** The actor's membership when it grants `permission`; else OrganizationForbidden (not a member, or lacking it). */
export async function authorize(config: InternalConfig, organizationId: string, actorId: string, permission: string): Promise<MemberAccess> {
  const access = await accessOf(config, organizationId, actorId);
  if (!access) throw new OrganizationForbidden('Not a member of this organization.', { organizationId });
  if (!grants(rolesOf(config), access.role, permission)) throw new OrganizationForbidden(`This role lacks the permission "${permission}".`, { organizationId, permission, role: access.role });
  return access;
}

/** Refuses a role the configuration does not define, or one that grants more than the actor's. */
export function assertWithin(config: InternalConfig, actor: MemberAccess, role: string, what: string): void {
  const roles = rolesOf(config);
  if (!roles.has(role)) throw new OrganizationForbidden(`There is no role "${role}".`, { organizationId: actor.organizationId, role });
  if (!within(roles, actor.role, role)) {
    throw new OrganizationForbidden(`A ${actor.role} cannot ${what} the role "${role}", which grants more than theirs.`, { organizationId: actor.organizationId, role, actorRole: actor.role });
  }
}

/**
 * The activity record of a membership change (or of an invitation): the member is the record's user, whoever changed
 * it its actor. Given the request, the record carries its address, agent, session and the run of the machine
 * that made the change; given only the configuration (an app's call), none of those.
 */
export async function memberActivity(on: RequestContext | { config: InternalConfig }, kind: ActivityKind, actorId: string, organizationId: string, userId: string, detail: Record<string, string>): Promise<void> {
  if (!on.config.activity) return;
  if ('request' in on) await noteActivity(on, { kind, userId, actorId, organizationId, detail });
  else await writeActivity(on, [plainActivityRecord({ kind, userId, actorId, organizationId, detail })]);
}

const event = (config: InternalConfig, name: Parameters<typeof dispatchEvent>[2], message: unknown) => dispatchEvent(config.events, config.logger, name, message);

/** Creates an organization with `userId` as its first owner. */
export async function createOrganization(config: InternalConfig, userId: string, name: string): Promise<AdapterOrganization> {
  const organization = await organizationStore(config).createOrganization({ id: randomUUID(), name: cleanName(name), ownerId: userId });
  await memberActivity({ config }, 'organization.memberAdded', userId, organization.id, userId, { role: 'owner' });
  await event(config, 'organizationCreated', { organizationId: organization.id, by: userId });
  return organization;
}

function cleanName(name: string): string {
  const clean = name.trim();
  if (!clean || clean.length > 200 || /[\u0000-\u001f\u007f]/.test(clean)) throw new OrganizationForbidden('An organization name is 1 to 200 printable characters.');
  return clean;
}

/** Renames the organization (permission `organization:update`). */
export async function renameOrganization(config: InternalConfig, actorId: string, organizationId: string, name: string): Promise<AdapterOrganization | null> {
  await authorize(config, organizationId, actorId, 'organization:update');
  return organizationStore(config).renameOrganization(organizationId, cleanName(name));
}

/** Deletes the organization and its memberships (permission `organization:delete`: owners only by default). */
export async function deleteOrganization(config: InternalConfig, actorId: string, organizationId: string): Promise<boolean> {
  await authorize(config, organizationId, actorId, 'organization:delete');
  return organizationStore(config).deleteOrganization(organizationId);
}

/** The organization's members with their permissions (permission `member:read`). */
export async function listMembers(config: InternalConfig, actorId: string, organizationId: string): Promise<MemberAccess[]> {
  await authorize(config, organizationId, actorId, 'member:read');
  const roles = rolesOf(config);
  return (await organizationStore(config).listMembers(organizationId)).map((m) => ({ organizationId, userId: m.userId, role: m.role, permissions: permissionsOf(roles, m.role) }));
}

/** Adds a user with `role` (permission `member:invite`, and a role within the actor's). An existing member keeps theirs. */
export async function addMember(config: InternalConfig, actorId: string, organizationId: string, userId: string, role: string): Promise<AdapterMembership> {
  const actor = await authorize(config, organizationId, actorId, 'member:invite');
  assertWithin(config, actor, role, 'hand out');
  const { membership, added } = await organizationStore(config).addMember({ organizationId, userId, role });
  if (added) {
    await memberActivity({ config }, 'organization.memberAdded', actorId, organizationId, userId, { role });
    await event(config, 'memberAdded', { organizationId, by: actorId, userId, role });
  }
  return membership;
}

/**
 * Changes a member's role (permission `member:role`). Both the role taken away and the one handed out must be within
 * the actor's: an admin raises nobody to owner (themselves included) and demotes no owner. The last owner stays one.
 */
export async function changeRole(config: InternalConfig, actorId: string, organizationId: string, userId: string, role: string): Promise<AdapterMembership> {
  const actor = await authorize(config, organizationId, actorId, 'member:role');
  assertWithin(config, actor, role, 'hand out');
  const store = organizationStore(config);
  const current = await store.getMembership(organizationId, userId);
  if (!current) throw new OrganizationForbidden('Not a member of this organization.', { organizationId });
  assertWithin(config, actor, current.role, 'take away');
  const changed = await store.setMemberRole({ organizationId, userId, role });
  if (changed === 'lastOwner') throw new LastOwner('The organization would have no owner left: make another member owner first.', { organizationId });
  if (!changed) throw new OrganizationForbidden('Not a member of this organization.', { organizationId });
  if (current.role !== role) {
    await memberActivity({ config }, 'organization.roleChanged', actorId, organizationId, userId, { from: current.role, to: role });
    await event(config, 'memberRoleChanged', { organizationId, by: actorId, userId, from: current.role, to: role });
  }
  return changed;
}

/**
 * Removes a member (permission `member:remove`, on a member whose role is within the actor's), or, when the actor is
 * the member, lets them leave. The last owner can do neither.
 */
export async function removeMember(config: InternalConfig, actorId: string, organizationId: string, userId: string): Promise<void> {
  const store = organizationStore(config);
  if (userId !== actorId) {
    const actor = await authorize(config, organizationId, actorId, 'member:remove');
    const target = await store.getMembership(organizationId, userId);
    if (!target) throw new OrganizationForbidden('Not a member of this organization.', { organizationId });
    assertWithin(config, actor, target.role, 'take away');
  }
  const removed = await store.removeMember(organizationId, userId);
  if (removed === 'lastOwner') throw new LastOwner('The organization would have no owner left: make another member owner first.', { organizationId });
  if (!removed) throw new OrganizationForbidden('Not a member of this organization.', { organizationId });
  await memberActivity({ config }, 'organization.memberRemoved', actorId, organizationId, userId, { role: removed.role });
  await event(config, 'memberRemoved', { organizationId, by: actorId, userId, role: removed.role });
}
