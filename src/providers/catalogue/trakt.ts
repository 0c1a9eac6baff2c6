// Trakt OAuth 2. Every API call names the app (`trakt-api-key`) and the API version; Trakt discloses no e-mail.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { bearer, fetchJson, USER_AGENT, userinfoUrl } from './_http.js';

/** `GET https://api.trakt.tv/users/me?extended=full`. */
export interface TraktProfile {
  username: string;
  private: boolean;
  name: string | null;
  vip: boolean;
  vip_ep: boolean;
  ids: { slug: string; uuid?: string };
  joined_at: string;
  location?: string | null;
  about?: string | null;
  gender?: string | null;
  age?: number | null;
  images?: { avatar: { full: string } };
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<TraktProfile>({
  id: 'trakt',
  name: 'Trakt',
  type: 'oauth',
  authorization: 'https://trakt.tv/oauth/authorize',
  token: 'https://api.trakt.tv/oauth/token',
  userinfo: {
    url: 'https://api.trakt.tv/users/me',
    params: { extended: 'full' },
    request: ({ tokens, provider }) =>
      fetchJson<TraktProfile>(userinfoUrl(provider.userinfo), {
        headers: { ...bearer(tokens), 'trakt-api-version': '2', 'trakt-api-key': provider.clientId ?? '', 'user-agent': USER_AGENT },
      }),
  },
  checks: ['state'],
  client: { token_endpoint_auth_method: 'client_secret_post' },
  // The slug, as Auth.js stores it (accounts carry over).
  profile: (p) => ({ id: p.ids.slug, name: p.name || p.username, email: null, image: p.images?.avatar.full ?? null }),
  style: { brandColor: '#ed1c24' },
});

/**
 * Sign in with Trakt. Reads `AUTH_TRAKT_ID` / `AUTH_TRAKT_SECRET`.
 *
 * @example
 * providers: [Trakt()]
 */
export default function Trakt(options?: OAuthUserConfig<TraktProfile>): OAuthConfig<TraktProfile> {
  return preset(options);
}
