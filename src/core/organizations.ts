// Organizations as stored data: what an organization and a membership hold, the adapter methods that keep them (an
// authchart extension of the Auth.js contract), the `organizations` option and the built-in roles as permission sets.
import type { Awaitable } from './types.js';

/** An organization as the adapter stores it. */
export interface AdapterOrganization {
  id: string;
  name: string;
  createdAt: Date;
}

/** One user's membership of one organization, with the name of its role. */
export interface AdapterMembership {
  organizationId: string;
  userId: string;
  role: string;
  createdAt: Date;
}

/**
 * A role change or removal refused by the adapter because it would leave the organization with no owner. Returned
 * (not thrown) by the methods that can cause it, so the caller tells it from "no such member".
 */
export type LastOwnerRefusal = 'lastOwner';

/**
 * Adapter methods for organizations. All are required once `organizations` is configured (checked at start). The
 * ones that can remove an owner must be atomic: of two concurrent demotions or removals of the last two owners,
 * one must be refused (PostgresAdapter locks the organization's row in a transaction).
 */
export interface OrganizationAdapterMethods {
  /** Creates the organization and makes `ownerId` its first owner, in one step. */
  createOrganization(params: { id: string; name: string; ownerId: string }): Awaitable<AdapterOrganization>;
  getOrganization(id: string): Awaitable<AdapterOrganization | null>;
  /** Renames; null when there is no such organization. */
  renameOrganization(id: string, name: string): Awaitable<AdapterOrganization | null>;
  /** Deletes the organization with its memberships; false when there was none. */
  deleteOrganization(id: string): Awaitable<boolean>;
  /** The user's organizations with the user's role in each, oldest membership first. */
  listUserOrganizations(userId: string): Awaitable<(AdapterOrganization & { role: string })[]>;
  /** The user's membership of the organization, or null. One indexed read: it runs on every gated request with an active organization. */
  getMembership(organizationId: string, userId: string): Awaitable<AdapterMembership | null>;
  /** The organization's members, oldest first. */
  listMembers(organizationId: string): Awaitable<AdapterMembership[]>;
  /** Adds the user with `role`; an existing membership keeps its role and is returned as it is (`added: false`). */
  addMember(params: { organizationId: string; userId: string; role: string }): Awaitable<{ membership: AdapterMembership; added: boolean }>;
  /**
   * Atomic: sets the member's role. `'lastOwner'` when the member is the organization's only owner and `role` is
   * not owner; null when there is no such member.
   */
  setMemberRole(params: { organizationId: string; userId: string; role: string }): Awaitable<AdapterMembership | LastOwnerRefusal | null>;
  /** Atomic: removes the member. `'lastOwner'` when the member is the only owner; null when there is no such member. */
  removeMember(organizationId: string, userId: string): Awaitable<AdapterMembership | LastOwnerRefusal | null>;
}

/** Names of {@link OrganizationAdapterMethods}, for the start-up check. */
export const organizationAdapterMethods = [
  'createOrganization',
  'getOrganization',
  'renameOrganization',
  'deleteOrganization',
  'listUserOrganizations',
  'getMembership',
  'listMembers',
  'addMember',
  'setMemberRole',
  'removeMember',
] as const satisfies readonly (keyof OrganizationAdapterMethods)[];

/** The permissions authchart itself checks (an app adds its own names in `organizations.roles`). */
export const builtInPermissions = [
  'organization:update',
  'organization:delete',
  'member:read',
  'member:invite',
  'member:role',
  'member:remove',
  // Enterprise SSO: the organization's connections and domains (issue 49).
  'sso:manage',
] as const;

/** The built-in roles. `owner` holds every permission, the app's own included; it is the only role that can delete. */
export const builtInRoles: Readonly<Record<'owner' | 'admin' | 'member', readonly string[]>> = {
  owner: ['*'],
  admin: ['organization:update', 'member:read', 'member:invite', 'member:role', 'member:remove', 'sso:manage'],
  member: ['member:read'],
};

/** The `organizations` option. */
export interface OrganizationsOptions {
  /**
   * The app's roles, each a set of permission names (built-in ones such as `member:invite`, or the app's own such
   * as `invoice:approve`). A role named `admin` or `member` here adds to the built-in one's permissions; `owner`
   * always holds every permission. App code checks permissions, never role names.
   *
   * @example
   * organizations: { roles: { billing: ['invoice:read', 'invoice:approve'], member: ['invoice:read'] } }
   */
  roles?: Record<string, readonly string[]>;
  /** Invitations by mail (`POST {basePath}/organizations/invitations`): their lifetime, who may accept, the mail. */
  invitations?: InvitationsOptions;
}

/** An invitation mail, as `organizations.invitations.send` receives it. */
export interface InvitationMail {
  to: string;
  /** The link to the invitation page (`{basePath}/invitations/<token>`). */
  url: string;
  organizationName: string;
  /** The inviter's name, else their address, else null. */
  inviter: string | null;
  role: string;
  expires: Date;
}

/** The `organizations.invitations` option. */
export interface InvitationsOptions {
  /** Seconds an invitation stays valid. Default: 7 days. */
  maxAge?: number;
  /**
   * Let any signed-in user accept an invitation, not only the invited address's owner: the link is then a bearer
   * token. The invitation page says so. Default: false (accepting from another account is refused).
   */
  anyUser?: boolean;
  /**
   * Sends the invitation mail yourself. Default: the built-in message, in the invitee's language, through the
   * e-mail provider's `server`.
   */
  send?: (mail: InvitationMail, context: { request: Request; locale: string }) => Awaitable<void>;
}
