// Todoist OAuth 2 (todoist.com). The user is read from the Todoist API v1.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET https://api.todoist.com/api/v1/user`. */
export interface TodoistProfile {
  id: string;
  email: string;
  full_name: string;
  avatar_big?: string | null;
  avatar_medium?: string | null;
  avatar_s640?: string | null;
  avatar_small?: string | null;
  is_premium?: boolean;
  lang?: string;
  tz_info?: { timezone: string; [key: string]: unknown };
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<TodoistProfile>({
  id: 'todoist',
  name: 'Todoist',
  type: 'oauth',
  authorization: { url: 'https://todoist.com/oauth/authorize', params: { scope: 'data:read' } },
  token: 'https://todoist.com/oauth/access_token',
  userinfo: 'https://api.todoist.com/api/v1/user',
  // Todoist requires `state`; the client credentials go in the form body.
  checks: ['state'],
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({ id: String(p.id), name: p.full_name || null, email: p.email || null, image: p.avatar_big || p.avatar_medium || null }),
  style: { brandColor: '#e44332' },
});

/**
 * Sign in with Todoist. Reads `AUTH_TODOIST_ID` / `AUTH_TODOIST_SECRET`.
 *
 * @example
 * Todoist({ authorization: { params: { scope: 'data:read,task:add' } } })
 */
export default function Todoist(options?: OAuthUserConfig<TodoistProfile>): OAuthConfig<TodoistProfile> {
  return preset(options);
}
