// LinkedIn "Sign In with LinkedIn using OpenID Connect".
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token / user-info claims with `openid profile email`. */
export interface LinkedInProfile {
  sub: string;
  name: string;
  given_name: string;
  family_name: string;
  picture?: string;
  locale?: { country: string; language: string } | string;
  email?: string;
  email_verified?: boolean;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<LinkedInProfile>({
  id: 'linkedin',
  name: 'LinkedIn',
  type: 'oidc',
  issuer: 'https://www.linkedin.com/oauth',
  wellKnown: 'https://www.linkedin.com/oauth/.well-known/openid-configuration',
  authorization: { url: 'https://www.linkedin.com/oauth/v2/authorization', params: { scope: 'openid profile email' } },
  token: 'https://www.linkedin.com/oauth/v2/accessToken',
  userinfo: 'https://api.linkedin.com/v2/userinfo',
  jwks_endpoint: 'https://www.linkedin.com/oauth/openid/jwks',
  // LinkedIn reads the client credentials from the form body only.
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({ id: p.sub, name: p.name, email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#0a66c2' },
});

/**
 * Sign in with LinkedIn. Reads `AUTH_LINKEDIN_ID` / `AUTH_LINKEDIN_SECRET`.
 *
 * @example
 * providers: [LinkedIn()]
 */
export default function LinkedIn(options?: OIDCUserConfig<LinkedInProfile>): OIDCConfig<LinkedInProfile> {
  return preset(options);
}
