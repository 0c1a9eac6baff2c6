// Keycloak realms (OpenID Connect). The issuer is `https://<host>/realms/<realm>`.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims of the default client scopes (`profile`, `email`). */
export interface KeycloakProfile {
  sub: string;
  email_verified?: boolean;
  name?: string;
  preferred_username: string;
  given_name?: string;
  family_name?: string;
  email?: string;
  picture?: string;
  sid?: string;
  acr?: string;
  azp?: string;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<KeycloakProfile>({
  id: 'keycloak',
  name: 'Keycloak',
  type: 'oidc',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['pkce', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? p.preferred_username, email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#428bca' },
});

/**
 * Sign in with Keycloak. Reads `AUTH_KEYCLOAK_ID`, `_SECRET` and `_ISSUER`.
 *
 * @example
 * Keycloak({ issuer: 'https://sso.acme.test/realms/staff' })
 */
export default function Keycloak(options?: OIDCUserConfig<KeycloakProfile>): OIDCConfig<KeycloakProfile> {
  return preset(options);
}
