// Cisco Webex integrations (OAuth 2). The token answer carries no token_type; its tokens are bearer tokens.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { withTokenType } from './_http.js';

/** `GET https://webexapis.com/v1/people/me` with scope `spark:people_read`. */
export interface WebexProfile {
  id: string;
  emails: string[];
  displayName: string;
  nickName?: string;
  firstName?: string;
  lastName?: string;
  avatar?: string;
  orgId: string;
  type: 'person' | 'bot' | 'appuser';
  created?: string;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<WebexProfile>({
  id: 'webex',
  name: 'Webex',
  type: 'oauth',
  authorization: { url: 'https://webexapis.com/v1/authorize', params: { scope: 'spark:kms spark:people_read' } },
  token: { url: 'https://webexapis.com/v1/access_token', conform: withTokenType },
  userinfo: 'https://webexapis.com/v1/people/me',
  checks: ['pkce', 'state'],
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({ id: p.id, name: p.displayName || null, email: p.emails?.[0] ?? null, image: p.avatar || null }),
  style: { brandColor: '#07c1e4' },
});

/**
 * Sign in with Webex. Reads `AUTH_WEBEX_ID` / `AUTH_WEBEX_SECRET`. Webex for Government: override the three URLs.
 *
 * @example
 * providers: [Webex()]
 */
export default function Webex(options?: OAuthUserConfig<WebexProfile>): OAuthConfig<WebexProfile> {
  return preset(options);
}
