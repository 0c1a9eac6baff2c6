// 42 (the school network's intranet API, api.intra.42.fr), OAuth 2.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET /v2/me` (abridged: cursus, projects, campus and more come with it). */
export interface FortyTwoProfile {
  id: number;
  email: string;
  login: string;
  first_name: string;
  last_name: string;
  usual_full_name: string | null;
  displayname: string;
  /** Current API: the portrait and its sizes. */
  image?: { link: string | null; versions?: { large?: string; medium?: string; small?: string; micro?: string } };
  /** Older API versions: the portrait URL. */
  image_url?: string | null;
  'staff?': boolean;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<FortyTwoProfile>({
  id: '42-school',
  name: '42 School',
  type: 'oauth',
  authorization: { url: 'https://api.intra.42.fr/oauth/authorize', params: { scope: 'public' } },
  token: 'https://api.intra.42.fr/oauth/token',
  userinfo: 'https://api.intra.42.fr/v2/me',
  checks: ['pkce', 'state'],
  profile: (p) => ({
    id: String(p.id),
    name: p.usual_full_name ?? p.displayname ?? p.login,
    email: p.email ?? null,
    image: p.image?.link ?? p.image_url ?? null,
  }),
  style: { brandColor: '#000000' },
});

/**
 * Sign in with a 42 intranet account. Reads `AUTH_42_SCHOOL_ID` / `AUTH_42_SCHOOL_SECRET`.
 *
 * @example
 * providers: [FortyTwo()]
 */
export default function FortyTwo(options?: OAuthUserConfig<FortyTwoProfile>): OAuthConfig<FortyTwoProfile> {
  return preset(options);
}
