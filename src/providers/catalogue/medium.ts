// Medium's (legacy) OAuth 2 API. `state` is mandatory; Medium discloses no e-mail address.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { reshapeTokens } from './_http.js';

/** `GET https://api.medium.com/v1/me` answers `{ data: MediumProfile }`. */
export interface MediumProfile {
  data: { id: string; username: string; name: string; url: string; imageUrl: string };
  [key: string]: unknown;
}

const conformBody = /* @__PURE__ */ reshapeTokens(({ scope, expires_at, ...body }) => ({
  ...body,
  ...(Array.isArray(scope) ? { scope: scope.join(' ') } : typeof scope === 'string' ? { scope } : {}),
  ...(typeof expires_at === 'number' ? { expires_at: Math.floor(expires_at / 1000) } : {}),
}));

const preset = /* @__PURE__ */ definePreset<MediumProfile>({
  id: 'medium',
  name: 'Medium',
  type: 'oauth',
  authorization: { url: 'https://medium.com/m/oauth/authorize', params: { scope: 'basicProfile' } },
  token: {
    url: 'https://api.medium.com/v1/tokens',
    // Medium answers 201 Created, with `scope` as an array and `expires_at` in milliseconds.
    conform: async (response) => conformBody(response.status === 201 ? new Response(response.body, { status: 200, headers: response.headers }) : response),
  },
  userinfo: 'https://api.medium.com/v1/me',
  checks: ['state'],
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: ({ data }) => ({ id: data.id, name: data.name || data.username, email: null, image: data.imageUrl || null }),
  style: { brandColor: '#000000' },
});

/**
 * Sign in with Medium. Reads `AUTH_MEDIUM_ID` / `AUTH_MEDIUM_SECRET`.
 *
 * @example
 * providers: [Medium()]
 */
export default function Medium(options?: OAuthUserConfig<MediumProfile>): OAuthConfig<MediumProfile> {
  return preset(options);
}
