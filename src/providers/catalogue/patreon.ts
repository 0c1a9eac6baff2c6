// Patreon OAuth 2 (API v2). The identity endpoint is JSON:API and returns only the fields asked for.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET /api/oauth2/v2/identity?fields[user]=...` with scopes `identity identity[email]`. */
export interface PatreonProfile {
  data: {
    id: string;
    type: 'user';
    attributes: {
      full_name?: string;
      email?: string;
      is_email_verified?: boolean;
      image_url?: string;
      thumb_url?: string;
      vanity?: string | null;
      url?: string;
      created?: string;
    };
  };
  links?: { self: string };
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<PatreonProfile>({
  id: 'patreon',
  name: 'Patreon',
  type: 'oauth',
  authorization: { url: 'https://www.patreon.com/oauth2/authorize', params: { scope: 'identity identity[email]' } },
  token: 'https://www.patreon.com/api/oauth2/token',
  userinfo: {
    url: 'https://www.patreon.com/api/oauth2/v2/identity',
    params: { 'fields[user]': 'email,full_name,image_url,is_email_verified,vanity' },
  },
  checks: ['state'],
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: ({ data: { id, attributes: a } }) => ({ id, name: a.full_name || a.vanity || null, email: a.email || null, image: a.image_url || null }),
  style: { brandColor: '#ff424d' },
});

/**
 * Sign in with Patreon. Reads `AUTH_PATREON_ID` / `AUTH_PATREON_SECRET`.
 *
 * @example
 * Patreon({ authorization: { params: { scope: 'identity identity[email] identity.memberships' } } })
 */
export default function Patreon(options?: OAuthUserConfig<PatreonProfile>): OAuthConfig<PatreonProfile> {
  return preset(options);
}
