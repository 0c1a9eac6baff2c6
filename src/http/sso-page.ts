// `GET {basePath}/organizations/sso/page`: the built-in page where an organization's admin manages its SSO
// connections and domains (the forms post to the admin API, which brings them back here). Needs `sso:manage` in the
// active organization; signed out, the sign-in page first.
import { samlEndpoints } from '../sso/saml-endpoints.js';
import { messagesFor } from '../core/messages/request.js';
import { organizationGate } from '../organizations/gate.js';
import { rolesOf } from '../organizations/roles.js';
import { notRecent } from './account.js';
import { csrf } from './csrf.js';
import { renderSsoPage } from './pages/sso.js';
import { pageNonce, type AuthRequest } from './request.js';
import { html } from './response.js';
import { ssoOverview } from './routes/sso.js';

export async function ssoPageRoute(req: AuthRequest): Promise<Response> {
  const gate = await organizationGate(req, { permission: 'sso:manage' });
  if (!gate.ok && (gate.reason === 'signedOut' || gate.reason === 'stale')) return notRecent(req, 'signedOut');
  const i18n = await messagesFor(req);
  if (!gate.ok) return html(req, renderSsoPage({ theme: req.config.theme, authUrl: req.authUrl, csrfToken: csrf(req).token, connections: [], domains: [], roles: [], error: 'OrganizationForbidden', nonce: pageNonce(req), i18n }), 403);
  const overview = await ssoOverview(req, gate.organization.organizationId);
  return html(
    req,
    renderSsoPage({
      theme: req.config.theme,
      authUrl: req.authUrl,
      csrfToken: csrf(req).token,
      connections: overview.connections.map((c) => ({
        id: String(c.id),
        name: String(c.name),
        kind: String(c.kind),
        enabled: c.enabled === true,
        defaultRole: String(c.defaultRole),
        ...(typeof c.issuer === 'string' ? { issuer: c.issuer } : {}),
        ...(c.kind === 'saml'
          ? { redirectUri: samlEndpoints(req.authUrl, String(c.id)).acsUrl, spMetadataUrl: samlEndpoints(req.authUrl, String(c.id)).metadataUrl }
          : { redirectUri: `${req.authUrl}/callback/sso-${String(c.id)}` }),
      })),
      domains: overview.domains.map((d) => ({ domain: d.domain, verified: d.verifiedAt !== null, txtHost: d.txtHost, txtValue: d.txtValue, connectionId: d.connectionId })),
      roles: [...rolesOf(req.config).keys()].filter((r) => r !== 'owner'),
      ...(req.query.notice === 'saved' ? { notice: 'saved' as const } : {}),
      ...(typeof req.query.error === 'string' ? { error: req.query.error } : {}),
      nonce: pageNonce(req),
      i18n,
    }),
  );
}
