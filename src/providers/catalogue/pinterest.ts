// Pinterest API v5 OAuth 2. Pinterest discloses no e-mail address; the token endpoint takes Basic auth only.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET https://api.pinterest.com/v5/user_account` with scope `user_accounts:read`. */
export interface PinterestProfile {
  id?: string;
  account_type: 'PINNER' | 'BUSINESS';
  username: string;
  profile_image: string;
  website_url?: string;
  business_name?: string | null;
  about?: string;
  board_count?: number;
  pin_count?: number;
  follower_count?: number;
  following_count?: number;
  monthly_views?: number;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<PinterestProfile>({
  id: 'pinterest',
  name: 'Pinterest',
  type: 'oauth',
  authorization: { url: 'https://www.pinterest.com/oauth/', params: { scope: 'user_accounts:read' } },
  token: 'https://api.pinterest.com/v5/oauth/token',
  userinfo: 'https://api.pinterest.com/v5/user_account',
  checks: ['state'],
  // The account id is stable; the username (Auth.js's choice) can be changed and then taken by someone else.
  profile: (p) => ({ id: p.id ?? p.username, name: p.business_name || p.username, email: null, image: p.profile_image || null }),
  style: { brandColor: '#e60023' },
});

/**
 * Sign in with Pinterest. Reads `AUTH_PINTEREST_ID` / `AUTH_PINTEREST_SECRET`.
 *
 * @example
 * Pinterest({ authorization: { params: { scope: 'user_accounts:read boards:read' } } })
 */
export default function Pinterest(options?: OAuthUserConfig<PinterestProfile>): OAuthConfig<PinterestProfile> {
  return preset(options);
}
