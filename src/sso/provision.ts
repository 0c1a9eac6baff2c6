// The shared end of every SSO sign-in, OIDC or SAML: before anyone is found or made, the asserted address must be of
// a VERIFIED domain of the connection's organization that routes to this very connection (one tenant's IdP never
// signs anyone in under another tenant's domain); the user is then found or made by the standard sign-in tail (its
// linking rules: an existing account with the same address is linked only as they allow); once the session is
// issued, the user joins the organization with the connection's default role, and it becomes the session's active one.
import type { InternalConfig } from '../core/config.js';
import { SsoAddressRefused } from '../core/errors.js';
import { dispatchEvent } from '../core/events.js';
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import { memberActivity, organizationStore } from '../organizations/members.js';
import { signedInUserId } from '../session/gate.js';
import { strategyFor } from '../session/strategy.js';
import { domainOfAddress } from './domains.js';
import { connectionIdOf } from './provider-id.js';
import { ssoStore } from './store.js';
import type { OrganizationDomain, SsoConnection } from './types.js';

/**
 * First end, called by the flow as soon as the IdP's answer is verified, before the sign-in tail: the address's
 * verified domain claim, or SsoAddressRefused when the connection is off, the address has no domain, the domain is
 * not verified, is another organization's, or routes to another connection.
 *
 * @example
 * await checkSsoAddress(config, connection, profile.email) // throws SsoAddressRefused for bob@other-tenant.example
 */
export async function checkSsoAddress(config: InternalConfig, connection: SsoConnection, email: unknown): Promise<OrganizationDomain> {
  const refuse = (why: string, domain: string | null) =>
    new SsoAddressRefused(`This address cannot sign in through this connection: ${why}.`, { connectionId: connection.id, organizationId: connection.organizationId, actual: domain });
  if (!connection.enabled) throw refuse('the connection is turned off', null);
  const domain = domainOfAddress(email);
  if (!domain) throw refuse('the identity provider sent no e-mail address', null);
  const claim = await ssoStore(config).getVerifiedDomain(domain);
  // Not verified by anyone, verified by another organization, or routed elsewhere: all refused alike.
  if (!claim || claim.organizationId !== connection.organizationId || claim.connectionId !== connection.id) throw refuse(`${domain} is not a verified domain of this connection`, domain);
  return claim;
}

/**
 * Second end, called once the sign-in's session is issued (same request): the user (`userId`, else the session's)
 * becomes a member with the connection's default role (an existing membership keeps its role), and the organization
 * the session's active one.
 *
 * @example
 * await joinSsoOrganization(req, connection)
 */
export async function joinSsoOrganization(req: AuthRequest, connection: SsoConnection, userId?: string): Promise<void> {
  const { config } = req;
  // A database session is found by the browser's cookie: the one this request just wrote is the live one now.
  const name = req.cookieOptions.sessionToken.name;
  const written = [...req.setCookies].reverse().find((c) => c.name === name && c.options.maxAge !== 0);
  if (written) (req.cookies as Record<string, string>)[name] = written.value;
  const member = userId ?? (await signedInUserId(req));
  if (!member) throw new SsoAddressRefused('The SSO sign-in left no session to join the organization with.', { connectionId: connection.id });
  const { membership, added } = await organizationStore(config).addMember({ organizationId: connection.organizationId, userId: member, role: connection.defaultRole });
  if (added) {
    await memberActivity(req, 'organization.memberAdded', member, connection.organizationId, member, { role: membership.role, via: 'sso' });
    await dispatchEvent(config.events, config.logger, 'memberAdded', { organizationId: connection.organizationId, by: member, userId: member, role: membership.role });
  }
  await strategyFor(req).setOrganization(req, connection.organizationId);
}

/**
 * The runtime's call once any sign-in's session is issued (flows/runtime/flow.ts), directly or after a second factor:
 * an account of provider `sso-<connection id>` joins that connection's organization ({@link joinSsoOrganization}).
 * A failure to join is logged, not a failed sign-in: the session was rightly issued; the organization is not active.
 */
export async function joinAfterSignIn(req: AuthRequest, providerId: string, userId: string): Promise<void> {
  const id = connectionIdOf(providerId);
  if (!id) return;
  try {
    const connection = await ssoStore(req.config).getSsoConnection(id);
    if (connection) await joinSsoOrganization(req, connection, userId);
  } catch (err) {
    req.config.logger.error(err instanceof Error ? err : new Error(String(err)));
  }
}

/** Whether SSO is on for this configuration (routes and the sign-in page's field). */
export function ssoEnabled(config: InternalConfig): boolean {
  return config.sso !== undefined;
}
