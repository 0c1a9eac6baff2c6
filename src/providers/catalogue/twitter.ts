// X (Twitter) OAuth 2.0 with PKCE, API v2.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET /2/users/me?user.fields=profile_image_url` (the user object sits under `data`). */
export interface TwitterProfile {
  data: {
    id: string;
    name: string;
    username: string;
    profile_image_url?: string;
    /** Only with the `users.email` scope and `user.fields=confirmed_email`. */
    confirmed_email?: string;
    verified?: boolean;
    created_at?: string;
    description?: string;
  };
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<TwitterProfile>({
  id: 'twitter',
  name: 'X',
  type: 'oauth',
  authorization: { url: 'https://x.com/i/oauth2/authorize', params: { scope: 'users.read tweet.read offline.access' } },
  token: 'https://api.x.com/2/oauth2/token',
  userinfo: { url: 'https://api.x.com/2/users/me', params: { 'user.fields': 'profile_image_url' } },
  // X rejects authorization requests without `state`.
  checks: ['pkce', 'state'],
  profile: ({ data }) => ({
    id: data.id,
    name: data.name,
    email: data.confirmed_email ?? null,
    // The default URL is the 48px "_normal" size; the original is the same path without the suffix.
    image: data.profile_image_url?.replace(/_normal(\.\w+)$/, '$1') ?? null,
  }),
  style: { brandColor: '#000000' },
});

/**
 * Sign in with X. Reads `AUTH_TWITTER_ID` / `AUTH_TWITTER_SECRET` (OAuth 2.0 client credentials).
 *
 * @example
 * Twitter({ authorization: { params: { scope: 'users.read tweet.read users.email' } },
 *   userinfo: { params: { 'user.fields': 'profile_image_url,confirmed_email' } } })
 */
export default function Twitter(options?: OAuthUserConfig<TwitterProfile>): OAuthConfig<TwitterProfile> {
  return preset(options);
}
