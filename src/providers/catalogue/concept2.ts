// Concept2 Logbook (log.concept2.com), OAuth 2; scopes are comma-separated, the profile comes wrapped in `data`.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET /api/users/me`. */
export interface Concept2Profile {
  data: {
    id: number;
    username: string;
    first_name: string;
    last_name: string;
    gender?: string;
    dob?: string;
    email: string;
    country?: string;
    profile_image: string | null;
    age_restricted?: boolean;
    email_permission?: boolean | null;
    max_heart_rate?: number | null;
    weight?: number | null;
    logbook_privacy?: string | null;
  };
}

const preset = /* @__PURE__ */ definePreset<Concept2Profile>({
  id: 'concept2',
  name: 'Concept2',
  type: 'oauth',
  authorization: { url: 'https://log.concept2.com/oauth/authorize', params: { scope: 'user:read' } },
  token: 'https://log.concept2.com/oauth/access_token',
  userinfo: 'https://log.concept2.com/api/users/me',
  client: { token_endpoint_auth_method: 'client_secret_post' },
  checks: ['state'],
  profile: ({ data }) => ({
    id: String(data.id),
    name: [data.first_name, data.last_name].filter(Boolean).join(' ') || data.username,
    email: data.email ?? null,
    image: data.profile_image ?? null,
  }),
  style: { brandColor: '#003a70' },
});

/**
 * Sign in with a Concept2 Logbook account. Reads `AUTH_CONCEPT2_ID` / `AUTH_CONCEPT2_SECRET`.
 *
 * @example
 * Concept2({ authorization: { params: { scope: 'user:read,results:read' } } })
 */
export default function Concept2(options?: OAuthUserConfig<Concept2Profile>): OAuthConfig<Concept2Profile> {
  return preset(options);
}
