// Threads (Meta) OAuth 2. The token answer is `{ access_token, user_id }`, and the Graph API takes the token in
// the query string. Threads discloses no e-mail address.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { tokenInQuery, withTokenType } from './_http.js';

/** `GET https://graph.threads.net/v1.0/me?fields=...` with scope `threads_basic`. */
export interface ThreadsProfile {
  id: string;
  username: string;
  name?: string;
  threads_profile_picture_url?: string;
  threads_biography?: string;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<ThreadsProfile>({
  id: 'threads',
  name: 'Threads',
  type: 'oauth',
  authorization: { url: 'https://threads.net/oauth/authorize', params: { scope: 'threads_basic' } },
  token: { url: 'https://graph.threads.net/oauth/access_token', conform: withTokenType },
  userinfo: {
    url: 'https://graph.threads.net/v1.0/me',
    params: { fields: 'id,username,name,threads_profile_picture_url' },
    request: tokenInQuery('access_token'),
  },
  checks: ['state'],
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({ id: p.id, name: p.name || p.username || null, email: null, image: p.threads_profile_picture_url || null }),
  style: { brandColor: '#000000' },
});

/**
 * Sign in with Threads. Reads `AUTH_THREADS_ID` / `AUTH_THREADS_SECRET`.
 *
 * @example
 * providers: [Threads()]
 */
export default function Threads(options?: OAuthUserConfig<ThreadsProfile>): OAuthConfig<ThreadsProfile> {
  return preset(options);
}
