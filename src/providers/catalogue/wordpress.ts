// WordPress.com OAuth 2 (also Jetpack-connected sites). The `auth` scope gives the user's profile.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET https://public-api.wordpress.com/rest/v1/me`. */
export interface WordPressProfile {
  ID: number;
  display_name: string;
  username: string;
  email: string;
  email_verified: boolean;
  primary_blog: number;
  primary_blog_url?: string;
  language: string;
  avatar_URL: string;
  profile_URL: string;
  verified: boolean;
  site_count?: number;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<WordPressProfile>({
  id: 'wordpress',
  name: 'WordPress.com',
  type: 'oauth',
  authorization: { url: 'https://public-api.wordpress.com/oauth2/authorize', params: { scope: 'auth' } },
  token: 'https://public-api.wordpress.com/oauth2/token',
  userinfo: 'https://public-api.wordpress.com/rest/v1/me',
  checks: ['state'],
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({ id: String(p.ID), name: p.display_name || p.username, email: p.email || null, image: p.avatar_URL || null }),
  style: { brandColor: '#3858e9' },
});

/**
 * Sign in with WordPress.com. Reads `AUTH_WORDPRESS_ID` / `AUTH_WORDPRESS_SECRET`.
 *
 * @example
 * WordPress({ authorization: { params: { scope: 'global' } } })
 */
export default function WordPress(options?: OAuthUserConfig<WordPressProfile>): OAuthConfig<WordPressProfile> {
  return preset(options);
}
