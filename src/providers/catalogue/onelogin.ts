// OneLogin (OpenID Connect). The issuer names the account: `https://<subdomain>.onelogin.com/oidc/2`.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims with `openid profile email` (and `groups`/`params` when the app maps them). */
export interface OneLoginProfile {
  sub: string;
  email?: string;
  preferred_username?: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  updated_at?: number;
  groups?: string[];
  params?: Record<string, unknown>;
  sid?: string;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<OneLoginProfile>({
  id: 'onelogin',
  name: 'OneLogin',
  type: 'oidc',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['pkce', 'state', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? p.preferred_username ?? null, email: p.email ?? null, image: null }),
  style: { brandColor: '#1c1f2a' },
});

/**
 * Sign in with OneLogin. Reads `AUTH_ONELOGIN_ID`, `_SECRET` and `_ISSUER`.
 *
 * @example
 * OneLogin({ issuer: 'https://acme.onelogin.com/oidc/2' })
 */
export default function OneLogin(options?: OIDCUserConfig<OneLoginProfile>): OIDCConfig<OneLoginProfile> {
  return preset(options);
}
