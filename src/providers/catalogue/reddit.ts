// Reddit OAuth2 apps. Reddit exposes no e-mail address.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { bearer, fetchJson, userinfoUrl } from './_http.js';

/** `GET /api/v1/me` with scope `identity`. */
export interface RedditProfile {
  /** Base-36 account id (without the `t2_` prefix). */
  id: string;
  /** The username. */
  name: string;
  icon_img: string;
  snoovatar_img?: string;
  created_utc: number;
  verified: boolean;
  has_verified_email: boolean;
  total_karma?: number;
  over_18?: boolean;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<RedditProfile>({
  id: 'reddit',
  name: 'Reddit',
  type: 'oauth',
  authorization: { url: 'https://www.reddit.com/api/v1/authorize', params: { scope: 'identity' } },
  token: 'https://www.reddit.com/api/v1/access_token',
  userinfo: {
    url: 'https://oauth.reddit.com/api/v1/me',
    // Reddit throttles or refuses requests without a descriptive User-Agent.
    request: ({ tokens, provider }) =>
      fetchJson<RedditProfile>(userinfoUrl(provider.userinfo), { headers: { ...bearer(tokens), 'user-agent': 'web:authchart:v1' } }),
  },
  profile: (p) => ({
    id: p.id,
    name: p.name,
    email: null,
    // Reddit HTML-escapes the query string of image URLs.
    image: (p.icon_img || p.snoovatar_img || '').replace(/&amp;/g, '&') || null,
  }),
  style: { brandColor: '#ff4500' },
});

/**
 * Sign in with Reddit. Reads `AUTH_REDDIT_ID` / `AUTH_REDDIT_SECRET`.
 *
 * @example
 * Reddit({ authorization: { params: { duration: 'permanent' } } })  // to receive a refresh token
 */
export default function Reddit(options?: OAuthUserConfig<RedditProfile>): OAuthConfig<RedditProfile> {
  return preset(options);
}
