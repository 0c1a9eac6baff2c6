// An OIDC connection as a provider of the OAuth machine, built at runtime from the stored settings: discovery from
// the issuer, the client id and (opened) secret, the scopes, PKCE, state and nonce. One provider object per
// connection and settings, so discovery and keys are cached per connection (the OAuth layer caches by provider object).
import type { InternalConfig } from '../core/config.js';
import { SsoAddressRefused } from '../core/errors.js';
import type { ResolvedProvider } from '../core/provider.js';
import type { Profile, User } from '../core/types.js';
import { OIDC } from '../providers/oauth.js';
import { openClientSecret } from './connections.js';
import { ssoProviderId } from './provider-id.js';
import { checkSsoAddress } from './provision.js';
import type { OidcConnectionSettings, SsoConnection } from './types.js';

export { connectionIdOf, ssoProviderId } from './provider-id.js';

const MAX_CACHED = 500;
// Per configuration: connection id -> the provider built from one version of its settings.
const cache = new WeakMap<InternalConfig, Map<string, { version: string; provider: ResolvedProvider }>>();

/**
 * The OAuth machine's provider for an OIDC connection. Its `admitIdentity` (called by the OAuth steps once the ID
 * token is verified) refuses an address outside the connection's verified domains; an address the IdP says is not
 * verified (`email_verified: false`) is refused too.
 *
 * @example
 * const provider = oidcProviderOf(config, connection); await handleFlow(req, provider, 'signin')
 */
export function oidcProviderOf(config: InternalConfig, connection: SsoConnection & OidcConnectionSettings): ResolvedProvider {
  let byId = cache.get(config);
  if (!byId) cache.set(config, (byId = new Map()));
  const version = JSON.stringify([connection.issuer, connection.clientId, connection.clientSecret, connection.scopes, connection.name, connection.enabled, connection.defaultRole]);
  const hit = byId.get(connection.id);
  if (hit && hit.version === version) return hit.provider;
  const provider = OIDC({
    id: ssoProviderId(connection.id),
    name: connection.name,
    issuer: connection.issuer,
    clientId: connection.clientId,
    clientSecret: openClientSecret(config.secrets, connection.id, connection.clientSecret),
    authorization: { params: { scope: connection.scopes.join(' ') } },
    checks: ['pkce', 'state', 'nonce'],
  }) as unknown as ResolvedProvider;
  provider.admitIdentity = async (user: User, profile: Profile) => {
    if ((profile as { email_verified?: unknown }).email_verified === false) {
      throw new SsoAddressRefused('This address cannot sign in through this connection: the identity provider says it is not verified.', { connectionId: connection.id });
    }
    await checkSsoAddress(config, connection, user.email);
  };
  byId.delete(connection.id);
  byId.set(connection.id, { version, provider });
  // Oldest first out: a deployment with many connections keeps the ones in use.
  if (byId.size > MAX_CACHED) byId.delete(byId.keys().next().value!);
  return provider;
}
