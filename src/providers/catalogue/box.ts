// Box (account.box.com), OAuth 2. Box takes the client credentials in the token request's body.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET /2.0/users/me`: a user object. `login` is the primary e-mail address. */
export interface BoxProfile {
  type: 'user';
  id: string;
  name: string;
  login: string;
  avatar_url?: string;
  language?: string;
  timezone?: string;
  status?: string;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<BoxProfile>({
  id: 'box',
  name: 'Box',
  type: 'oauth',
  authorization: 'https://account.box.com/api/oauth2/authorize',
  token: 'https://api.box.com/oauth2/token',
  userinfo: 'https://api.box.com/2.0/users/me',
  client: { token_endpoint_auth_method: 'client_secret_post' },
  checks: ['state'],
  profile: (p) => ({ id: p.id, name: p.name, email: p.login ?? null, image: p.avatar_url ?? null }),
  style: { brandColor: '#0061d5' },
});

/**
 * Sign in with Box. Reads `AUTH_BOX_ID` / `AUTH_BOX_SECRET`.
 *
 * @example
 * providers: [Box()]
 */
export default function Box(options?: OAuthUserConfig<BoxProfile>): OAuthConfig<BoxProfile> {
  return preset(options);
}
