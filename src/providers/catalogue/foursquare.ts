// Foursquare (API v2), OAuth 2: no `token_type` in the token answer, the access token goes in the query as
// `oauth_token`, and every call names an API version date (`v`).
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { tokenInQuery, withTokenType } from './_http.js';

/** `GET https://api.foursquare.com/v2/users/self`. */
export interface FoursquareProfile {
  meta: { code: number; requestId?: string };
  response: {
    user: {
      id: string;
      firstName: string;
      lastName?: string;
      photo?: { prefix: string; suffix: string };
      contact?: { email?: string; phone?: string };
      [key: string]: unknown;
    };
  };
}

const preset = /* @__PURE__ */ definePreset<FoursquareProfile>({
  id: 'foursquare',
  name: 'Foursquare',
  type: 'oauth',
  authorization: 'https://foursquare.com/oauth2/authenticate',
  token: { url: 'https://foursquare.com/oauth2/access_token', conform: withTokenType },
  userinfo: { url: 'https://api.foursquare.com/v2/users/self', params: { v: '20230131' }, request: tokenInQuery('oauth_token') },
  client: { token_endpoint_auth_method: 'client_secret_post' },
  checks: ['state'],
  profile: ({ response: { user } }) => ({
    id: user.id,
    name: [user.firstName, user.lastName].filter(Boolean).join(' '),
    email: user.contact?.email ?? null,
    image: user.photo ? `${user.photo.prefix}original${user.photo.suffix}` : null,
  }),
  style: { brandColor: '#f94877' },
});

/**
 * Sign in with Foursquare. Reads `AUTH_FOURSQUARE_ID` / `AUTH_FOURSQUARE_SECRET`. `apiVersion` sets the `v` date.
 *
 * @example
 * Foursquare({ apiVersion: '20240601' })
 */
export default function Foursquare(options?: OAuthUserConfig<FoursquareProfile> & { apiVersion?: string }): OAuthConfig<FoursquareProfile> {
  const { apiVersion, ...rest } = options ?? {};
  if (!apiVersion) return preset(rest);
  const userinfo = typeof rest.userinfo === 'string' ? { url: rest.userinfo } : rest.userinfo;
  return preset({ ...rest, userinfo: { ...userinfo, params: { ...userinfo?.params, v: apiVersion } } });
}
