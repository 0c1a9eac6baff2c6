// Dribbble, OAuth 2 (API v2). The client credentials go in the token request's body.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET https://api.dribbble.com/v2/user`. */
export interface DribbbleProfile {
  id: number;
  name: string;
  login: string;
  html_url?: string;
  avatar_url: string | null;
  bio?: string;
  location?: string | null;
  email?: string | null;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<DribbbleProfile>({
  id: 'dribbble',
  name: 'Dribbble',
  type: 'oauth',
  authorization: { url: 'https://dribbble.com/oauth/authorize', params: { scope: 'public' } },
  token: 'https://dribbble.com/oauth/token',
  userinfo: 'https://api.dribbble.com/v2/user',
  client: { token_endpoint_auth_method: 'client_secret_post' },
  checks: ['state'],
  profile: (p) => ({ id: String(p.id), name: p.name || p.login, email: p.email ?? null, image: p.avatar_url ?? null }),
  style: { brandColor: '#ea4c89' },
});

/**
 * Sign in with Dribbble. Reads `AUTH_DRIBBBLE_ID` / `AUTH_DRIBBBLE_SECRET`.
 *
 * @example
 * Dribbble({ authorization: { params: { scope: 'public upload' } } })
 */
export default function Dribbble(options?: OAuthUserConfig<DribbbleProfile>): OAuthConfig<DribbbleProfile> {
  return preset(options);
}
