// Instagram API with Instagram Login (professional accounts; the Basic Display API it replaces ended in December
// 2024), OAuth 2. The token answer is wrapped in `data: [...]` and has no `token_type`.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { reshapeTokens } from './_http.js';

/** `GET https://graph.instagram.com/me?fields=user_id,username,name,profile_picture_url`. */
export interface InstagramProfile {
  /** App-scoped id of the account. */
  id: string;
  /** The professional account's Instagram id. */
  user_id?: string;
  username: string;
  name?: string;
  profile_picture_url?: string;
  account_type?: string;
  [key: string]: unknown;
}

// `{ data: [{ access_token, user_id, permissions }] }` -> one RFC 6749 token response.
const unwrap = /* @__PURE__ */ reshapeTokens((body) => {
  const inner = Array.isArray(body.data) && body.data[0] && typeof body.data[0] === 'object' ? (body.data[0] as Record<string, unknown>) : body;
  return { token_type: 'bearer', ...inner };
});

const preset = /* @__PURE__ */ definePreset<InstagramProfile>({
  id: 'instagram',
  name: 'Instagram',
  type: 'oauth',
  authorization: { url: 'https://www.instagram.com/oauth/authorize', params: { scope: 'instagram_business_basic' } },
  token: { url: 'https://api.instagram.com/oauth/access_token', conform: unwrap },
  userinfo: { url: 'https://graph.instagram.com/me', params: { fields: 'id,user_id,username,name,profile_picture_url,account_type' } },
  client: { token_endpoint_auth_method: 'client_secret_post' },
  checks: ['state'],
  profile: (p) => ({ id: p.id, name: p.name || p.username, email: null, image: p.profile_picture_url ?? null }),
  style: { brandColor: '#e1306c' },
});

/**
 * Sign in with an Instagram professional account. Reads `AUTH_INSTAGRAM_ID` / `AUTH_INSTAGRAM_SECRET`.
 *
 * @example
 * providers: [Instagram()]
 */
export default function Instagram(options?: OAuthUserConfig<InstagramProfile>): OAuthConfig<InstagramProfile> {
  return preset(options);
}
