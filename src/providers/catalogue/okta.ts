// Okta (OpenID Connect). The issuer is an authorization server of the Okta org.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims with `openid profile email`. */
export interface OktaProfile {
  sub: string;
  name?: string;
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
  locale?: string;
  zoneinfo?: string;
  picture?: string;
  ver: number;
  iss: string;
  aud: string;
  idp?: string;
  amr?: string[];
  auth_time?: number;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<OktaProfile>({
  id: 'okta',
  name: 'Okta',
  type: 'oidc',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['pkce', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? p.preferred_username ?? null, email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#007dc1' },
});

/**
 * Sign in with Okta. Reads `AUTH_OKTA_ID`, `_SECRET` and `_ISSUER` (e.g. `https://acme.okta.com/oauth2/default`).
 *
 * @example
 * Okta({ issuer: 'https://acme.okta.com/oauth2/default' })
 */
export default function Okta(options?: OIDCUserConfig<OktaProfile>): OIDCConfig<OktaProfile> {
  return preset(options);
}
