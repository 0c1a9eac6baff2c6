// Strava API applications. Strava exposes no e-mail address.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET /api/v3/athlete` (summary representation with scope `read`). */
export interface StravaProfile {
  id: number;
  username: string | null;
  firstname: string;
  lastname: string;
  city?: string | null;
  state?: string | null;
  country?: string | null;
  sex?: 'M' | 'F' | null;
  premium?: boolean;
  summit?: boolean;
  created_at: string;
  updated_at: string;
  /** 124x124 picture. */
  profile_medium: string;
  /** Large picture. */
  profile: string;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<StravaProfile>({
  id: 'strava',
  name: 'Strava',
  type: 'oauth',
  // Strava separates scopes with commas.
  authorization: { url: 'https://www.strava.com/oauth/authorize', params: { scope: 'read', approval_prompt: 'auto' } },
  token: 'https://www.strava.com/api/v3/oauth/token',
  userinfo: 'https://www.strava.com/api/v3/athlete',
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({
    id: String(p.id),
    name: [p.firstname, p.lastname].filter(Boolean).join(' ') || p.username,
    email: null,
    image: p.profile ?? null,
  }),
  style: { brandColor: '#fc4c02' },
});

/**
 * Sign in with Strava. Reads `AUTH_STRAVA_ID` / `AUTH_STRAVA_SECRET`.
 *
 * @example
 * Strava({ authorization: { params: { scope: 'read,activity:read' } } })
 */
export default function Strava(options?: OAuthUserConfig<StravaProfile>): OAuthConfig<StravaProfile> {
  return preset(options);
}
