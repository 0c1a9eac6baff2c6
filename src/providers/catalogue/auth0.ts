// Auth0 tenants (OpenID Connect). The issuer is the tenant's domain.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims with `openid profile email`. */
export interface Auth0Profile {
  sub: string;
  nickname?: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  email?: string;
  email_verified?: boolean;
  locale?: string;
  updated_at?: string;
  org_id?: string;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<Auth0Profile>({
  id: 'auth0',
  name: 'Auth0',
  type: 'oidc',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['pkce', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? p.nickname ?? null, email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#eb5424' },
});

/**
 * Sign in with Auth0. Reads `AUTH_AUTH0_ID`, `_SECRET` and `_ISSUER` (e.g. `https://acme.eu.auth0.com/`).
 *
 * @example
 * Auth0({ issuer: 'https://acme.eu.auth0.com/', authorization: { params: { audience: 'https://api.acme.test' } } })
 */
export default function Auth0(options?: OIDCUserConfig<Auth0Profile>): OIDCConfig<Auth0Profile> {
  return preset(options);
}
