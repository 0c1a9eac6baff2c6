// Netlify OAuth 2 applications (app.netlify.com).
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET https://api.netlify.com/api/v1/user`. */
export interface NetlifyProfile {
  id: string;
  uid?: string;
  full_name: string | null;
  avatar_url: string | null;
  email: string;
  affiliate_id?: string;
  site_count?: number;
  created_at: string;
  last_login?: string;
  login_providers?: string[];
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<NetlifyProfile>({
  id: 'netlify',
  name: 'Netlify',
  type: 'oauth',
  authorization: 'https://app.netlify.com/authorize',
  token: 'https://api.netlify.com/oauth/token',
  userinfo: 'https://api.netlify.com/api/v1/user',
  checks: ['state'],
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({ id: p.id, name: p.full_name || null, email: p.email || null, image: p.avatar_url || null }),
  style: { brandColor: '#05bdba' },
});

/**
 * Sign in with Netlify. Reads `AUTH_NETLIFY_ID` / `AUTH_NETLIFY_SECRET`.
 *
 * @example
 * providers: [Netlify()]
 */
export default function Netlify(options?: OAuthUserConfig<NetlifyProfile>): OAuthConfig<NetlifyProfile> {
  return preset(options);
}
