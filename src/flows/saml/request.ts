// The start of a SAML sign-in: an AuthnRequest for the connection's IdP over the HTTP-Redirect binding, its id and a
// RelayState that this browser's flow cookie keeps, so the answer is taken only for this very request. Signed (the
// query's SigAlg and Signature, RSA-SHA256, with the connection's SP key) when the IdP wants signed requests.
import { randomBytes } from 'node:crypto';
import { SAML } from '@node-saml/node-saml';
import { OAuthSignInError } from '../../core/errors.js';
import { samlEndpoints } from '../../sso/saml-endpoints.js';
import { openSpSigningKey } from '../../sso/sp-signing-key.js';
import type { SamlConnection } from '../../sso/saml-provider.js';
import { idpCertificates, onlyRequest, samlConfigOf } from './options.js';

/** The connection's SP signing key, opened; OAuthSignInError when it has none or no configured secret opens it. */
export function spSigningKeyOf(connection: SamlConnection, secrets: readonly string[]): string {
  try {
    if (!connection.spSigningKey) throw new Error('no key');
    return openSpSigningKey(secrets, connection.id, connection.spSigningKey);
  } catch {
    throw new OAuthSignInError('This SAML connection must sign its AuthnRequests but has no signing key this server can open.', { actual: connection.id });
  }
}

/** A sent AuthnRequest: where the browser goes, and what its flow cookie keeps. */
export interface PreparedSamlRequest {
  url: string;
  requestId: string;
  relayState: string;
}

/**
 * Builds the redirect to the IdP for `connection`.
 *
 * @example
 * const { url, requestId, relayState } = await prepareAuthnRequest(connection, req.authUrl)
 */
export async function prepareAuthnRequest(connection: SamlConnection, authUrl: string, secrets: readonly string[]): Promise<PreparedSamlRequest> {
  if (idpCertificates(connection).length === 0) throw new OAuthSignInError('This SAML connection has no IdP signing certificate: its assertions could not be checked.', { actual: connection.id });
  const signingKey = connection.signAuthnRequests ? spSigningKeyOf(connection, secrets) : undefined;
  // An xs:ID starts with a letter or underscore.
  const requestId = `_${randomBytes(20).toString('hex')}`;
  const relayState = randomBytes(24).toString('base64url');
  const saml = new SAML(samlConfigOf(connection, samlEndpoints(authUrl, connection.id), onlyRequest(requestId), () => requestId, signingKey));
  const url = await saml.getAuthorizeUrlAsync(relayState, undefined, {});
  return { url, requestId, relayState };
}
