// Enterprise SSO over HTTP. The admin API under `{basePath}/organizations/sso` acts only in the caller's ACTIVE
// organization with the permission `sso:manage` (an id of another tenant's connection reaches nothing: 404 as for
// none), writes need CSRF. `POST {basePath}/sso` is "Continue with SSO": an address of a verified domain routed to an
// enabled connection goes to that connection's IdP; an OIDC one comes back at `{basePath}/callback/sso-<id>`, a SAML
// one posts to its ACS `{basePath}/sso/saml/<id>/acs` (its SP metadata at `{basePath}/sso/saml/<id>/metadata`).
import { AuthError, InvalidRequest, OrganizationForbidden, SsoDomainRefused, SsoDomainUnverified, SsoNotFound } from '../../core/errors.js';
import { organizationGate } from '../../organizations/gate.js';
import { createConnection, deleteConnection, ownConnection, publicConnection, updateConnection } from '../../sso/connections.js';
import { claimDomain, domainOfAddress, ownClaim, requireDomain, verificationHost, verifyDomain } from '../../sso/domains.js';
import { connectionIdOf, oidcProviderOf } from '../../sso/oidc-provider.js';
import { samlEndpoints } from '../../sso/saml-endpoints.js';
import { samlProviderOf, type SamlConnection } from '../../sso/saml-provider.js';
import { samlMetadata } from '../../flows/registry.js';
import { ssoStore } from '../../sso/store.js';
import type { OrganizationDomain, SsoConnection } from '../../sso/types.js';
import { requireCsrf } from '../csrf.js';
import { handleFlow } from '../flow.js';
import { bodyString, type AuthRequest } from '../request.js';
import { errorRedirect, json, redirect } from '../response.js';
import { signInPageResponse, typedValue, wantsPage } from '../signin-page.js';

const answer = (req: AuthRequest, body: unknown, status = 200) => json(req, body, status, { noCache: true });

/** Where the built-in page lives; a form posted from it (`page=1`) comes back there. */
export const ssoPagePath = (req: AuthRequest) => `${req.config.basePath}/organizations/sso/page`;
const fromPage = (req: AuthRequest) => req.body.page === '1';

function statusOf(err: AuthError): number {
  if (err instanceof SsoNotFound) return 404;
  if (err instanceof OrganizationForbidden) return 403;
  if (err instanceof SsoDomainRefused) return (err.cause as { status?: number } | undefined)?.status ?? 400;
  if (err instanceof SsoDomainUnverified) return 409;
  return 400;
}

const REFUSALS = [SsoNotFound, SsoDomainRefused, SsoDomainUnverified, InvalidRequest, OrganizationForbidden];

/** The acting member of the active organization with `sso:manage`, then `work`; refusals as JSON (or back to the page). */
async function managing(req: AuthRequest, work: (organizationId: string) => Promise<Response>): Promise<Response> {
  if (req.method === 'POST') requireCsrf(req);
  const gate = await organizationGate(req, { permission: 'sso:manage' });
  if (!gate.ok) {
    if (gate.reason === 'signedOut' || gate.reason === 'stale') return answer(req, { error: 'SessionRequired' }, 401);
    const message = gate.reason === 'noOrganization' ? 'No active organization.' : 'This role lacks the permission "sso:manage".';
    return answer(req, { error: 'OrganizationForbidden', message }, 403);
  }
  try {
    return await work(gate.organization.organizationId);
  } catch (err) {
    if (err instanceof AuthError && REFUSALS.some((C) => err instanceof C)) {
      req.config.logger.debug('sso: an admin request refused', { type: err.type, message: err.message });
      if (fromPage(req)) return redirect(req, `${ssoPagePath(req)}?error=${encodeURIComponent(err.type)}`);
      return answer(req, { error: err.type, message: err.message }, statusOf(err));
    }
    throw err;
  }
}

/** A write's answer: JSON, or back to the page for its form. */
const done = (req: AuthRequest, body: unknown, status = 200) => (fromPage(req) ? redirect(req, `${ssoPagePath(req)}?notice=saved`) : answer(req, body, status));

const domainJson = (d: OrganizationDomain) => ({ ...d, txtHost: verificationHost(d.domain), txtValue: d.verificationToken });

/** The active organization's connections (no secrets) and domains. */
export async function ssoOverview(req: AuthRequest, organizationId: string): Promise<{ connections: Record<string, unknown>[]; domains: ReturnType<typeof domainJson>[] }> {
  const store = ssoStore(req.config);
  const [connections, domains] = await Promise.all([store.listSsoConnections(organizationId), store.listDomains(organizationId)]);
  return { connections: connections.map(publicConnection), domains: domains.map(domainJson) };
}

/** What an IdP's admin registers: an OIDC connection's redirect URI, a SAML connection's entity id, ACS and metadata URLs. */
function registration(req: AuthRequest, c: Record<string, unknown>): Record<string, string> {
  const id = String(c.id);
  if (c.kind === 'saml') {
    const { entityId, acsUrl, metadataUrl } = samlEndpoints(req.authUrl, id);
    return { spEntityId: entityId, acsUrl, spMetadataUrl: metadataUrl };
  }
  return { redirectUri: `${req.authUrl}/callback/sso-${id}` };
}

/** GET organizations/sso: the connections and domains, with what each connection's IdP needs registered. */
export function ssoListRoute(req: AuthRequest): Promise<Response> {
  return managing(req, async (organizationId) => {
    const overview = await ssoOverview(req, organizationId);
    return answer(req, { ...overview, connections: overview.connections.map((c) => ({ ...c, ...registration(req, c) })) });
  });
}

/** POST organizations/sso/connections: a new connection (kind, name, issuer, clientId, clientSecret, scopes, defaultRole). */
export function createConnectionRoute(req: AuthRequest): Promise<Response> {
  return managing(req, async (organizationId) => {
    const c = await createConnection(req.config, organizationId, req.body);
    const shown = publicConnection(c);
    return done(req, { ...shown, ...registration(req, shown) }, 201);
  });
}

/** POST organizations/sso/connections/:id: changes the given settings of the organization's connection. */
export function updateConnectionRoute(req: AuthRequest, id: string): Promise<Response> {
  return managing(req, async (organizationId) => done(req, publicConnection(await updateConnection(req.config, organizationId, id, req.body))));
}

/** POST organizations/sso/connections/:id/delete. */
export function deleteConnectionRoute(req: AuthRequest, id: string): Promise<Response> {
  return managing(req, async (organizationId) => {
    await deleteConnection(req.config, organizationId, id);
    return done(req, { deleted: id });
  });
}

/** POST organizations/sso/domains (`domain`): claims it; the answer names the TXT record to publish. */
export function claimDomainRoute(req: AuthRequest): Promise<Response> {
  return managing(req, async (organizationId) => done(req, domainJson(await claimDomain(req.config, organizationId, requireDomain(req.body.domain))), 201));
}

/** POST organizations/sso/domains/verify (`domain`): looks the TXT record up now. */
export function verifyDomainRoute(req: AuthRequest): Promise<Response> {
  return managing(req, async (organizationId) => done(req, domainJson(await verifyDomain(req.config, organizationId, requireDomain(req.body.domain)))));
}

/** POST organizations/sso/domains/route (`domain`, `connectionId`, empty to stop routing): a connection of the same organization. */
export function routeDomainRoute(req: AuthRequest): Promise<Response> {
  return managing(req, async (organizationId) => {
    const domain = requireDomain(req.body.domain);
    await ownClaim(req.config, organizationId, domain);
    const connectionId = bodyString(req, 'connectionId') || null;
    if (connectionId) await ownConnection(req.config, organizationId, connectionId);
    const routed = await ssoStore(req.config).setDomainConnection(organizationId, domain, connectionId);
    if (!routed) throw new SsoNotFound('No such domain or connection in this organization.', { domain });
    return done(req, domainJson(routed));
  });
}

/** POST organizations/sso/domains/delete (`domain`). */
export function deleteDomainRoute(req: AuthRequest): Promise<Response> {
  return managing(req, async (organizationId) => {
    const domain = requireDomain(req.body.domain);
    if (!(await ssoStore(req.config).deleteDomain(organizationId, domain))) throw new SsoNotFound('This organization has not claimed that domain.', { domain });
    return done(req, { deleted: domain });
  });
}

/**
 * The connection an address signs in through: its domain's verified claim, routed to an enabled OIDC connection of
 * the same organization (OIDC or SAML); null otherwise (the caller says "no SSO for this address", whatever the reason).
 */
async function connectionForAddress(req: AuthRequest, email: unknown): Promise<SsoConnection | null> {
  const domain = domainOfAddress(email);
  if (!domain) return null;
  const store = ssoStore(req.config);
  const claim = await store.getVerifiedDomain(domain);
  if (!claim?.connectionId) return null;
  const connection = await store.getSsoConnection(claim.connectionId);
  return connection && connection.enabled && connection.organizationId === claim.organizationId ? connection : null;
}

/**
 * POST {basePath}/sso (`email`): "Continue with SSO". An address with no connection gets the same answer whatever the
 * reason (no claim, not verified, not routed, turned off): what it tells is only that this domain has no SSO here.
 */
export async function continueWithSsoRoute(req: AuthRequest): Promise<Response> {
  requireCsrf(req);
  const email = typedValue(req.body.email);
  const connection = await connectionForAddress(req, email);
  if (!connection) {
    req.config.logger.debug('sso: no connection for an address', { domain: domainOfAddress(email) });
    if (wantsPage(req)) return signInPageResponse(req, { fieldErrors: { ssoEmail: 'signin.sso.none' }, email });
    return answer(req, { error: SsoNotFound.type, message: 'No single sign-on is set up for this address.' }, 404);
  }
  // A SAML connection: an AuthnRequest to its IdP, answered at its ACS (samlAcsRoute).
  if (connection.kind === 'saml') return handleFlow(req, samlProviderOf(connection), 'signin');
  return handleFlow(req, oidcProviderOf(req.config, connection), 'signin');
}

/** `{basePath}/callback/sso-<id>`: the IdP's answer to an OIDC connection's sign-in. */
export async function ssoCallbackRoute(req: AuthRequest, providerId: string): Promise<Response | undefined> {
  const id = connectionIdOf(providerId);
  if (!id) return undefined;
  const connection = await ssoStore(req.config).getSsoConnection(id);
  if (!connection || connection.kind !== 'oidc') return undefined;
  // Signed in, the runtime makes the user a member of the connection's organization (sso/provision.ts joinAfterSignIn).
  return handleFlow(req, oidcProviderOf(req.config, connection), 'callback');
}


/** An enabled SAML connection by id, or null (none, another kind, turned off: all read alike). */
async function samlConnection(req: AuthRequest, id: string): Promise<SamlConnection | null> {
  const connection = id && id.length <= 100 ? await ssoStore(req.config).getSsoConnection(id) : null;
  return connection && connection.kind === 'saml' && connection.enabled ? connection : null;
}

/**
 * `POST {basePath}/sso/saml/<id>/acs`: the IdP's HTTP-POST of `SAMLResponse` (and `RelayState`) for this browser's
 * SAML sign-in. No CSRF token can come from the IdP: the flow cookie binds the response to the request instead.
 */
export async function samlAcsRoute(req: AuthRequest, id: string): Promise<Response> {
  const connection = await samlConnection(req, id);
  if (!connection) {
    const error = new SsoNotFound('No SAML connection takes responses here.', { actual: id.slice(0, 100) });
    if (wantsPage(req)) return errorRedirect(req, error);
    req.config.logger.error(error);
    return answer(req, { error: error.type, message: error.message }, 404);
  }
  // Signed in, the runtime makes the user a member of the connection's organization (sso/provision.ts joinAfterSignIn).
  return handleFlow(req, samlProviderOf(connection), 'callback');
}

/** `GET {basePath}/sso/saml/<id>/metadata`: the SP metadata an IdP's admin imports (public, as every SP's is). */
export async function samlMetadataRoute(req: AuthRequest, id: string): Promise<Response> {
  const connection = await samlConnection(req, id);
  if (!connection) return answer(req, { error: SsoNotFound.type, message: 'No such SAML connection.' }, 404);
  const xml = (await samlMetadata())(req.authUrl, connection, req.config.secrets);
  return new Response(xml, { status: 200, headers: { 'content-type': 'application/samlmetadata+xml; charset=utf-8', 'cache-control': 'public, max-age=300' } });
}
