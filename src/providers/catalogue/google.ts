// Google accounts through OpenID Connect (accounts.google.com).
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims Google issues with `openid profile email`. */
export interface GoogleProfile {
  iss: string;
  azp?: string;
  aud: string;
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  locale?: string;
  /** Hosted domain of a Google Workspace account. */
  hd?: string;
  at_hash?: string;
  nonce?: string;
  iat: number;
  exp: number;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<GoogleProfile>({
  id: 'google',
  name: 'Google',
  type: 'oidc',
  issuer: 'https://accounts.google.com',
  authorization: { url: 'https://accounts.google.com/o/oauth2/v2/auth', params: { scope: 'openid profile email' } },
  token: 'https://oauth2.googleapis.com/token',
  userinfo: 'https://openidconnect.googleapis.com/v1/userinfo',
  jwks_endpoint: 'https://www.googleapis.com/oauth2/v3/certs',
  checks: ['pkce', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? null, email: p.email, image: p.picture ?? null }),
  style: { brandColor: '#1a73e8' },
});

/**
 * Sign in with Google. Reads `AUTH_GOOGLE_ID` / `AUTH_GOOGLE_SECRET`.
 *
 * @example
 * Google({ authorization: { params: { prompt: 'consent', access_type: 'offline' } } })
 */
export default function Google(options?: OIDCUserConfig<GoogleProfile>): OIDCConfig<GoogleProfile> {
  return preset(options);
}
