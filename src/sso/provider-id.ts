// The provider id of an organization's SSO connection, `sso-<connection id>`: the account an SSO sign-in links, and the
// callback path `{basePath}/callback/sso-<connection id>`. Its own file: the runtime reads the prefix without loading SSO.

export const SSO_PROVIDER_PREFIX = 'sso-';

/** The provider id of a connection. */
export const ssoProviderId = (connectionId: string): string => `${SSO_PROVIDER_PREFIX}${connectionId}`;

/** The connection id a provider id names, or null when it is no SSO connection's. */
export const connectionIdOf = (providerId: string): string | null =>
  providerId.startsWith(SSO_PROVIDER_PREFIX) && providerId.length > SSO_PROVIDER_PREFIX.length ? providerId.slice(SSO_PROVIDER_PREFIX.length) : null;
