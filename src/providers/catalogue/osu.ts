// osu! OAuth 2 (API v2). osu! discloses no e-mail address.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** The UserExtended object, `GET https://osu.ppy.sh/api/v2/me` with scope `identify`. */
export interface OsuProfile {
  id: number;
  username: string;
  avatar_url: string;
  country_code: string;
  default_group: string;
  is_active: boolean;
  is_bot: boolean;
  is_online: boolean;
  is_supporter: boolean;
  join_date: string;
  playmode: string;
  previous_usernames?: string[];
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<OsuProfile>({
  id: 'osu',
  name: 'osu!',
  type: 'oauth',
  authorization: { url: 'https://osu.ppy.sh/oauth/authorize', params: { scope: 'identify' } },
  token: 'https://osu.ppy.sh/oauth/token',
  userinfo: 'https://osu.ppy.sh/api/v2/me',
  checks: ['state'],
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({ id: String(p.id), name: p.username, email: null, image: p.avatar_url || null }),
  style: { brandColor: '#ff66aa' },
});

/**
 * Sign in with osu!. Reads `AUTH_OSU_ID` / `AUTH_OSU_SECRET`.
 *
 * @example
 * providers: [Osu()]
 */
export default function Osu(options?: OAuthUserConfig<OsuProfile>): OAuthConfig<OsuProfile> {
  return preset(options);
}
