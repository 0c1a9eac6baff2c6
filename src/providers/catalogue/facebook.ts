// Facebook Login through the Graph API (pinned API version).
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET /me?fields=id,name,email,picture`. */
export interface FacebookProfile {
  id: string;
  name: string;
  /** Absent when the user has no confirmed address or declined the `email` permission. */
  email?: string;
  picture?: { data: { url: string; width: number; height: number; is_silhouette: boolean } };
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<FacebookProfile>({
  id: 'facebook',
  name: 'Facebook',
  type: 'oauth',
  authorization: { url: 'https://www.facebook.com/v22.0/dialog/oauth', params: { scope: 'email public_profile' } },
  token: 'https://graph.facebook.com/v22.0/oauth/access_token',
  // The Graph API returns only `id` and `name` unless fields are named.
  userinfo: { url: 'https://graph.facebook.com/v22.0/me', params: { fields: 'id,name,email,picture' } },
  profile: (p) => ({ id: p.id, name: p.name, email: p.email ?? null, image: p.picture?.data.url ?? null }),
  style: { brandColor: '#0866ff' },
});

/**
 * Sign in with Facebook. Reads `AUTH_FACEBOOK_ID` / `AUTH_FACEBOOK_SECRET`.
 *
 * @example
 * Facebook({ userinfo: { params: { fields: 'id,name,email,picture.width(400)' } } })
 */
export default function Facebook(options?: OAuthUserConfig<FacebookProfile>): OAuthConfig<FacebookProfile> {
  return preset(options);
}
