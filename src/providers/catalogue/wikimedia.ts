// Wikimedia (Wikipedia and sister projects) OAuth 2 on meta.wikimedia.org. Wikimedia's API policy requires a
// User-Agent; the e-mail address comes only with the "authonlyprivate" grant.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { bearer, fetchJson, USER_AGENT, userinfoUrl } from './_http.js';

/** `GET /w/rest.php/oauth2/resource/profile`. */
export interface WikimediaProfile {
  /** The central (global) user id. */
  sub: number;
  username: string;
  editcount: number;
  confirmed_email: boolean;
  blocked: boolean;
  registered: string;
  groups: string[];
  rights: string[];
  realname?: string;
  email?: string;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<WikimediaProfile>({
  id: 'wikimedia',
  name: 'Wikimedia',
  type: 'oauth',
  authorization: 'https://meta.wikimedia.org/w/rest.php/oauth2/authorize',
  token: 'https://meta.wikimedia.org/w/rest.php/oauth2/access_token',
  userinfo: {
    url: 'https://meta.wikimedia.org/w/rest.php/oauth2/resource/profile',
    request: ({ tokens, provider }) =>
      fetchJson<WikimediaProfile>(userinfoUrl(provider.userinfo), { headers: { ...bearer(tokens), 'user-agent': USER_AGENT } }),
  },
  checks: ['pkce', 'state'],
  client: { token_endpoint_auth_method: 'client_secret_post' },
  // Only a confirmed address is passed on: an unconfirmed one could be anyone's.
  profile: (p) => ({ id: String(p.sub), name: p.realname || p.username, email: (p.confirmed_email && p.email) || null, image: null }),
  style: { brandColor: '#3366cc' },
});

/**
 * Sign in with a Wikimedia account. Reads `AUTH_WIKIMEDIA_ID` / `AUTH_WIKIMEDIA_SECRET`.
 *
 * @example
 * providers: [Wikimedia()]
 */
export default function Wikimedia(options?: OAuthUserConfig<WikimediaProfile>): OAuthConfig<WikimediaProfile> {
  return preset(options);
}
