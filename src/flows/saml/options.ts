// The SAML library's settings for one connection, in one place so the request and the response are checked alike:
// the audience is this SP's entity id, every assertion must be signed by one of the connection's certificates (and
// the whole response too when the connection says `wantResponseSigned`), the
// clock skew is bounded, and InResponseTo is always required, save for an IdP-initiated response to a connection that
// allows it (then validate.ts refuses any InResponseTo).
import { ValidateInResponseTo, type CacheProvider, type SamlConfig } from '@node-saml/node-saml';
import type { SamlConnection } from '../../sso/saml-provider.js';
import type { SamlEndpoints } from '../../sso/saml-endpoints.js';

/** How far the IdP's clock may be from ours when NotBefore / NotOnOrAfter are checked. */
export const SAML_CLOCK_SKEW_MS = 60_000;

/** How long a started SAML sign-in waits for the IdP's answer. */
export const SAML_FLOW_TTL_MS = 15 * 60 * 1000;

/** The IdP's certificates as the library takes them: PEM bodies, whitespace removed. */
export function idpCertificates(connection: SamlConnection): string[] {
  return connection.idpCertificates.map((c) => c.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '')).filter((c) => c !== '');
}

/**
 * The library's configuration for `connection`. `requests` answers the library's InResponseTo look-ups: for a
 * response, it knows only the request id sealed in this browser's flow cookie.
 *
 * @example
 * new SAML(samlConfigOf(connection, samlEndpoints(authUrl, connection.id), onlyRequest(requestId)))
 */
export function samlConfigOf(connection: SamlConnection, endpoints: SamlEndpoints, requests: CacheProvider, generateUniqueId?: () => string, signingKey?: string, idpInitiated = false): SamlConfig {
  return {
    // A signing key signs the HTTP-Redirect AuthnRequest (SigAlg and Signature in the query), RSA-SHA256.
    ...(signingKey ? { privateKey: signingKey, signatureAlgorithm: 'sha256' as const } : {}),
    issuer: endpoints.entityId,
    callbackUrl: endpoints.acsUrl,
    entryPoint: connection.idpSsoUrl,
    idpCert: idpCertificates(connection),
    audience: endpoints.entityId,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: connection.wantResponseSigned === true,
    acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
    // IdP-initiated (allowed by the connection, no request of ours): validate.ts refuses any InResponseTo itself.
    validateInResponseTo: idpInitiated ? ValidateInResponseTo.never : ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: SAML_FLOW_TTL_MS,
    cacheProvider: requests,
    identifierFormat: null,
    disableRequestedAuthnContext: true,
    ...(generateUniqueId ? { generateUniqueId } : {}),
  };
}

/**
 * A request cache that knows one request id: the library asks it whether a response's InResponseTo was sent by us.
 * Nothing is shared between browsers, so a response to another browser's request is unknown here.
 */
export function onlyRequest(requestId: string | undefined): CacheProvider {
  return {
    saveAsync: async () => null,
    // Its age is the flow's to judge (the flow cookie expires, and the machine checks when the flow started).
    getAsync: async (key) => (requestId !== undefined && key === requestId ? new Date().toISOString() : null),
    removeAsync: async () => null,
  };
}
