// Zoom OAuth apps; scopes are chosen in the app's Marketplace settings.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET /v2/users/me`. */
export interface ZoomProfile {
  id: string;
  first_name: string;
  last_name: string;
  display_name?: string;
  email: string;
  type: number;
  role_name?: string;
  pmi?: number;
  personal_meeting_url?: string;
  timezone?: string;
  verified?: number;
  dept?: string;
  pic_url?: string;
  language?: string;
  status?: string;
  account_id: string;
  created_at?: string;
  last_login_time?: string;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<ZoomProfile>({
  id: 'zoom',
  name: 'Zoom',
  type: 'oauth',
  authorization: 'https://zoom.us/oauth/authorize',
  token: 'https://zoom.us/oauth/token',
  userinfo: 'https://api.zoom.us/v2/users/me',
  profile: (p) => ({
    id: p.id,
    name: p.display_name || [p.first_name, p.last_name].filter(Boolean).join(' ') || null,
    email: p.email,
    image: p.pic_url ?? null,
  }),
  style: { brandColor: '#0b5cff' },
});

/**
 * Sign in with Zoom. Reads `AUTH_ZOOM_ID` / `AUTH_ZOOM_SECRET`.
 *
 * @example
 * providers: [Zoom()]
 */
export default function Zoom(options?: OAuthUserConfig<ZoomProfile>): OAuthConfig<ZoomProfile> {
  return preset(options);
}
