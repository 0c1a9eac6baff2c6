// Mastodon: every server is its own OAuth 2 provider. The issuer is the server's URL (https://mastodon.social).
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** The Account entity, `GET /api/v1/accounts/verify_credentials`. Mastodon discloses no e-mail address. */
export interface MastodonProfile {
  id: string;
  username: string;
  /** `username` on this server, `username@domain` for a remote account. */
  acct: string;
  display_name: string;
  locked: boolean;
  bot: boolean;
  created_at: string;
  note: string;
  url: string;
  avatar: string;
  avatar_static: string;
  header: string;
  followers_count: number;
  following_count: number;
  statuses_count: number;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<MastodonProfile>({
  id: 'mastodon',
  name: 'Mastodon',
  type: 'oauth',
  // Paths: they hang under the issuer (the server).
  authorization: { url: '/oauth/authorize', params: { scope: 'read:accounts' } },
  token: '/oauth/token',
  userinfo: '/api/v1/accounts/verify_credentials',
  // PKCE is enforced from Mastodon 4.3; older servers ignore it, so state guards them.
  checks: ['pkce', 'state'],
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({ id: p.id, name: p.display_name || p.username, email: null, image: p.avatar_static || p.avatar || null }),
  style: { brandColor: '#6364ff' },
});

/**
 * Sign in with a Mastodon server. Reads `AUTH_MASTODON_ID`, `_SECRET` and `_ISSUER` (the server's URL).
 *
 * @example
 * Mastodon({ issuer: 'https://mastodon.social' })
 */
export default function Mastodon(options?: OAuthUserConfig<MastodonProfile>): OAuthConfig<MastodonProfile> {
  return preset(options);
}
