// Enterprise SSO as stored data: an organization's connections to its own identity provider (OIDC or SAML 2.0),
// the domains it has claimed and proven by DNS, and the adapter methods that keep both (an authchart extension of
// the Auth.js contract). Connections are configured at runtime through the API and pages, never in code.
import type { Awaitable } from '../core/types.js';

/** An OIDC connection: discovery from `issuer`, a confidential client. */
export interface OidcConnectionSettings {
  kind: 'oidc';
  issuer: string;
  clientId: string;
  /** Stored sealed; the adapter never sees it in the clear when a secret box is configured. */
  clientSecret: string;
  scopes: string[];
}

/** A SAML 2.0 connection: authchart is the service provider, the organization's IdP signs assertions. */
export interface SamlConnectionSettings {
  kind: 'saml';
  /** The IdP's entity id (the assertion's `Issuer`). */
  idpEntityId: string;
  /** The IdP's single sign-on URL (HTTP-Redirect or HTTP-POST binding). */
  idpSsoUrl: string;
  /** PEM or base64 signing certificates of the IdP; assertions signed by any of them are accepted. */
  idpCertificates: string[];
  /** The IdP wants signed AuthnRequests (`WantAuthnRequestsSigned`). */
  signAuthnRequests: boolean;
  /** The whole Response must be signed too, not only its assertion (which always must be). Default false. */
  wantResponseSigned?: boolean;
  /** IdP-initiated sign-in (no AuthnRequest); off by default, and single-use when on. */
  allowIdpInitiated: boolean;
  /** The SP's signing key for AuthnRequests, sealed under the auth secret (made with the connection; never shown). */
  spSigningKey?: string;
  /** Its self-signed certificate (PEM), in the SP metadata for the IdP to import. */
  spSigningCert?: string;
  /** Where the metadata was imported from, to refresh it. */
  metadataUrl?: string | null;
}

/** One connection of one organization. */
export type SsoConnection = {
  id: string;
  organizationId: string;
  /** Shown on the sign-in page ("Continue with Acme SSO"). */
  name: string;
  /** Role given to users provisioned just in time (default `member`). */
  defaultRole: string;
  enabled: boolean;
  createdAt: Date;
} & (OidcConnectionSettings | SamlConnectionSettings);

/** A domain an organization claims. It routes sign-ins and may be asserted only once `verifiedAt` is set. */
export interface OrganizationDomain {
  organizationId: string;
  /** Lower case, no trailing dot (`acme.example`). */
  domain: string;
  /** The value of the TXT record that proves the claim (`authchart-verification=…`). */
  verificationToken: string;
  verifiedAt: Date | null;
  /** The connection that sign-ins of this domain go to, once verified. */
  connectionId: string | null;
  createdAt: Date;
}

/** Adapter methods for SSO. All are required once `sso` is configured (checked at start). */
export interface SsoAdapterMethods {
  createSsoConnection(connection: SsoConnection): Awaitable<SsoConnection>;
  getSsoConnection(id: string): Awaitable<SsoConnection | null>;
  listSsoConnections(organizationId: string): Awaitable<SsoConnection[]>;
  /** Replaces the settings of the organization's connection; null when there is none (of that organization). */
  updateSsoConnection(organizationId: string, id: string, update: Partial<Omit<SsoConnection, 'id' | 'organizationId' | 'createdAt'>>): Awaitable<SsoConnection | null>;
  deleteSsoConnection(organizationId: string, id: string): Awaitable<boolean>;
  /** Claims the domain for the organization; an existing claim of the same organization is returned as it is. A domain verified by another organization is refused (null). */
  claimDomain(params: { organizationId: string; domain: string; verificationToken: string }): Awaitable<OrganizationDomain | null>;
  listDomains(organizationId: string): Awaitable<OrganizationDomain[]>;
  /** The verified claim of the domain, whichever organization holds it; null when none is verified. */
  getVerifiedDomain(domain: string): Awaitable<OrganizationDomain | null>;
  markDomainVerified(organizationId: string, domain: string): Awaitable<OrganizationDomain | null>;
  setDomainConnection(organizationId: string, domain: string, connectionId: string | null): Awaitable<OrganizationDomain | null>;
  deleteDomain(organizationId: string, domain: string): Awaitable<boolean>;
}

/** Names of {@link SsoAdapterMethods}, for the start-up check. */
export const ssoAdapterMethods = [
  'createSsoConnection',
  'getSsoConnection',
  'listSsoConnections',
  'updateSsoConnection',
  'deleteSsoConnection',
  'claimDomain',
  'listDomains',
  'getVerifiedDomain',
  'markDomainVerified',
  'setDomainConnection',
  'deleteDomain',
] as const satisfies readonly (keyof SsoAdapterMethods)[];
