// Mattermost as an OAuth 2 provider (OAuth 2.0 service provider enabled). The issuer is the server's URL.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** The User entity, `GET /api/v4/users/me`. */
export interface MattermostProfile {
  id: string;
  username: string;
  email: string;
  email_verified?: boolean;
  first_name: string;
  last_name: string;
  nickname: string;
  position?: string;
  roles: string;
  locale: string;
  create_at: number;
  update_at: number;
  delete_at: number;
  auth_service: string;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<MattermostProfile>({
  id: 'mattermost',
  name: 'Mattermost',
  type: 'oauth',
  authorization: '/oauth/authorize',
  token: '/oauth/access_token',
  userinfo: '/api/v4/users/me',
  checks: ['state'],
  // Mattermost reads the client credentials from the form body.
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({
    id: p.id,
    name: [p.first_name, p.last_name].filter(Boolean).join(' ') || p.nickname || p.username,
    email: p.email || null,
    // The picture (/api/v4/users/{id}/image) needs a session on the server: no public URL to store.
    image: null,
  }),
  style: { brandColor: '#1e325c' },
});

/**
 * Sign in with a Mattermost server. Reads `AUTH_MATTERMOST_ID`, `_SECRET` and `_ISSUER` (the server's URL).
 *
 * @example
 * Mattermost({ issuer: 'https://chat.example.com' })
 */
export default function Mattermost(options?: OAuthUserConfig<MattermostProfile>): OAuthConfig<MattermostProfile> {
  return preset(options);
}
