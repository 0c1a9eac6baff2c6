// ClickUp, OAuth 2. Its token answer carries only `access_token` (no `token_type`) and no PKCE is offered.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { withTokenType } from './_http.js';

/** `GET /api/v2/user`. */
export interface ClickUpProfile {
  user: {
    id: number;
    username: string;
    email: string;
    color: string | null;
    profilePicture: string | null;
    initials?: string;
    week_start_day?: number | null;
    timezone?: string;
  };
}

const preset = /* @__PURE__ */ definePreset<ClickUpProfile>({
  id: 'click-up',
  name: 'ClickUp',
  type: 'oauth',
  authorization: 'https://app.clickup.com/api',
  token: { url: 'https://api.clickup.com/api/v2/oauth/token', conform: withTokenType },
  userinfo: 'https://api.clickup.com/api/v2/user',
  client: { token_endpoint_auth_method: 'client_secret_post' },
  checks: ['state'],
  profile: ({ user }) => ({ id: String(user.id), name: user.username, email: user.email ?? null, image: user.profilePicture ?? null }),
  style: { brandColor: '#7b68ee' },
});

/**
 * Sign in with ClickUp. Reads `AUTH_CLICK_UP_ID` / `AUTH_CLICK_UP_SECRET`.
 *
 * @example
 * providers: [ClickUp()]
 */
export default function ClickUp(options?: OAuthUserConfig<ClickUpProfile>): OAuthConfig<ClickUpProfile> {
  return preset(options);
}
