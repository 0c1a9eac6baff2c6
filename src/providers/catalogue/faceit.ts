// FACEIT, OAuth 2; the token request authenticates the client with HTTP Basic.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET https://api.faceit.com/auth/v1/resources/userinfo`. */
export interface FaceitProfile {
  guid: string;
  nickname: string;
  email?: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  locale?: string;
  membership?: string;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<FaceitProfile>({
  id: 'faceit',
  name: 'FACEIT',
  type: 'oauth',
  authorization: { url: 'https://accounts.faceit.com/accounts', params: { redirect_popup: 'true' } },
  token: 'https://api.faceit.com/auth/v1/oauth/token',
  userinfo: 'https://api.faceit.com/auth/v1/resources/userinfo',
  checks: ['pkce', 'state'],
  profile: (p) => ({ id: p.guid, name: p.name ?? p.nickname, email: p.email ?? null, image: p.picture || null }),
  style: { brandColor: '#ff5500' },
});

/**
 * Sign in with FACEIT. Reads `AUTH_FACEIT_ID` / `AUTH_FACEIT_SECRET`.
 *
 * @example
 * providers: [FACEIT()]
 */
export default function FACEIT(options?: OAuthUserConfig<FaceitProfile>): OAuthConfig<FaceitProfile> {
  return preset(options);
}
