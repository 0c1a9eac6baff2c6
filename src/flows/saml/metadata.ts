// The service provider's metadata of one SAML connection, for the IdP's admin to import: its entity id, the ACS
// (HTTP-POST), that assertions must be signed, and the SP's signing certificate (with AuthnRequestsSigned when the
// connection signs its requests). Served at `GET {basePath}/sso/saml/<connection id>/metadata`.
import { generateServiceProviderMetadata } from '@node-saml/node-saml';
import { samlEndpoints } from '../../sso/saml-endpoints.js';
import type { SamlConnection } from '../../sso/saml-provider.js';
import { openSpSigningKey } from '../../sso/sp-signing-key.js';

/**
 * The SP metadata XML of a connection.
 *
 * @example
 * const xml = samlMetadata(req.authUrl, connection, req.config.secrets)
 */
export function samlMetadata(authUrl: string, connection: SamlConnection, secrets: readonly string[]): string {
  const { entityId, acsUrl } = samlEndpoints(authUrl, connection.id);
  let signing: { privateKey: string; publicCerts: string } | object = {};
  try {
    if (connection.spSigningKey && connection.spSigningCert) signing = { privateKey: openSpSigningKey(secrets, connection.id, connection.spSigningKey), publicCerts: connection.spSigningCert };
  } catch {
    // A key no configured secret opens (the secret rotated out): the metadata goes without it.
  }
  const xml = generateServiceProviderMetadata({ issuer: entityId, callbackUrl: acsUrl, wantAssertionsSigned: true, identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress', ...signing });
  // The library says AuthnRequestsSigned whenever it is given a key; the connection says whether it signs.
  return connection.signAuthnRequests ? xml : xml.replace('AuthnRequestsSigned="true"', 'AuthnRequestsSigned="false"');
}
