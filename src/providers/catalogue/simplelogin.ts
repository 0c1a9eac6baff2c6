// SimpleLogin (Proton) "Sign in with SimpleLogin", OpenID Connect. The e-mail is often a forwarding alias.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims (and user info) with `openid profile email`. */
export interface SimpleLoginProfile {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
  avatar_url: string | null;
  client?: string;
  id?: number;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<SimpleLoginProfile>({
  id: 'simplelogin',
  name: 'SimpleLogin',
  type: 'oidc',
  issuer: 'https://app.simplelogin.io',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['state', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name || null, email: p.email ?? null, image: p.avatar_url ?? null }),
  style: { brandColor: '#e3156a' },
});

/**
 * Sign in with SimpleLogin. Reads `AUTH_SIMPLELOGIN_ID` / `AUTH_SIMPLELOGIN_SECRET`.
 *
 * @example
 * providers: [SimpleLogin()]
 */
export default function SimpleLogin(options?: OIDCUserConfig<SimpleLoginProfile>): OIDCConfig<SimpleLoginProfile> {
  return preset(options);
}
