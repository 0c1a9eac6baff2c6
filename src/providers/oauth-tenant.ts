// Multi-tenant issuers, as Microsoft Entra ID's `common` and `organizations` endpoints publish them: the discovery
// document's issuer holds `{tenantid}` in place of the configured tenant alias, and every ID token comes from one
// tenant, named by its `tid` claim. Such a token is checked against the issuer with its own tenant id put in.
import type * as oauth from 'oauth4webapi';
import { InvalidCheck } from '../core/errors.js';

const PLACEHOLDER = '{tenantid}';
/** Entra tenant ids are GUIDs; nothing else may be spliced into an issuer. */
const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether an issuer is a multi-tenant template. */
export function isTenantTemplate(issuer: string): boolean {
  return issuer.includes(PLACEHOLDER);
}

/**
 * Whether `discovered` is the `configured` issuer with exactly one path segment (the tenant alias) replaced by
 * `{tenantid}`, and nothing else different.
 *
 * @example isTenantTemplateOf('https://login.microsoftonline.com/{tenantid}/v2.0', new URL('https://login.microsoftonline.com/common/v2.0')) // true
 */
export function isTenantTemplateOf(discovered: string, configured: URL): boolean {
  return tenantSegment(discovered, configured) === PLACEHOLDER;
}

/**
 * The one path segment of `discovered` that differs from `configured`, when exactly one does and all else (scheme,
 * host, the other segments) is the same.
 */
function tenantSegment(discovered: string, configured: URL): string | undefined {
  const theirs = discovered.split('/');
  const ours = configured.href.split('/');
  if (theirs.length !== ours.length) return undefined;
  // Segments 0-2 are the scheme and the host.
  const differing = theirs.flatMap((segment, i) => (segment === ours[i] ? [] : [i]));
  return differing.length === 1 && differing[0] > 2 ? theirs[differing[0]] : undefined;
}

/**
 * Whether `discovered` is the `configured` issuer with its tenant alias replaced by one tenant id, as Entra ID's
 * `consumers` endpoint publishes the fixed tenant of personal accounts. Tokens are then checked against it as is.
 *
 * @example isTenantOf('https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0', new URL('https://login.microsoftonline.com/consumers/v2.0')) // true
 */
export function isTenantOf(discovered: string, configured: URL): boolean {
  return TENANT_ID.test(tenantSegment(discovered, configured) ?? '');
}

/** The issuer of one tenant, or undefined when `tid` is not a tenant id. */
export function tenantIssuer(template: string, tid: unknown): string | undefined {
  return typeof tid === 'string' && TENANT_ID.test(tid) ? template.replace(PLACEHOLDER, tid) : undefined;
}

/** The claims of a compact JWT, read without any check (only to learn which tenant to check it against). */
function unverifiedClaims(jwt: string): Record<string, unknown> | undefined {
  try {
    const claims: unknown = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return claims && typeof claims === 'object' ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The authorization server as the tenant of `idToken` sees it: unchanged for an ordinary issuer. For a template,
 * the issuer of the token's `tid`; the usual checks then hold the token's `iss` to it. Throws InvalidCheck when
 * the token names no tenant id.
 */
export function forTenantOf(as: oauth.AuthorizationServer, idToken: unknown): oauth.AuthorizationServer {
  if (!isTenantTemplate(as.issuer) || typeof idToken !== 'string') return as;
  const tid = unverifiedClaims(idToken)?.tid;
  const issuer = tenantIssuer(as.issuer, tid);
  if (!issuer) throw new InvalidCheck('The ID token of a multi-tenant issuer names no tenant id (tid).', { expected: 'a tenant id (GUID)', actual: tid ?? null });
  return { ...as, issuer };
}

/**
 * The authorization server for checking an authorization response's `iss` parameter: for a template, the issuer
 * that parameter names when it is one of the template's tenants (the check then passes); otherwise unchanged.
 */
export function forAuthorizationResponse(as: oauth.AuthorizationServer, iss: string | undefined): oauth.AuthorizationServer {
  if (!isTenantTemplate(as.issuer) || iss === undefined) return as;
  const tid = iss.split('/').find((segment) => TENANT_ID.test(segment));
  return tid !== undefined && tenantIssuer(as.issuer, tid) === iss ? { ...as, issuer: iss } : as;
}
