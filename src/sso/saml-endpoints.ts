// Where a SAML connection's service provider lives: its entity id (the metadata URL, as most IdPs expect), the
// assertion consumer service (ACS) the IdP posts to, and the metadata an IdP admin imports. One place, so the
// AuthnRequest, the metadata and the checks of a response all name the same URLs.

/** The URLs of one SAML connection's service provider, under `{authUrl}/sso/saml/<connection id>/`. */
export interface SamlEndpoints {
  /** The SP's entity id: the metadata URL (the Audience and the AuthnRequest's Issuer). */
  entityId: string;
  /** `POST` here, HTTP-POST binding: the Response's Destination and the assertion's Recipient. */
  acsUrl: string;
  metadataUrl: string;
}

/**
 * The endpoints of a connection for this deployment's auth URL.
 *
 * @example
 * samlEndpoints('https://app.example/auth', id).acsUrl // 'https://app.example/auth/sso/saml/<id>/acs'
 */
export function samlEndpoints(authUrl: string, connectionId: string): SamlEndpoints {
  const base = `${authUrl}/sso/saml/${encodeURIComponent(connectionId)}`;
  return { entityId: `${base}/metadata`, acsUrl: `${base}/acs`, metadataUrl: `${base}/metadata` };
}
