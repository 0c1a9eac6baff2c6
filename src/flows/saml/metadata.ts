// The service provider's metadata of one SAML connection, for the IdP's admin to import: its entity id, the ACS
// (HTTP-POST), and that assertions must be signed. Served at `GET {basePath}/sso/saml/<connection id>/metadata`.
import { generateServiceProviderMetadata } from '@node-saml/node-saml';
import { samlEndpoints } from '../../sso/saml-endpoints.js';

/**
 * The SP metadata XML of a connection.
 *
 * @example
 * const xml = samlMetadata(req.authUrl, connection.id)
 */
export function samlMetadata(authUrl: string, connectionId: string): string {
  const { entityId, acsUrl } = samlEndpoints(authUrl, connectionId);
  return generateServiceProviderMetadata({ issuer: entityId, callbackUrl: acsUrl, wantAssertionsSigned: true, identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress' });
}
