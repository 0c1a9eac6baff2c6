// Coinbase (login.coinbase.com), OAuth 2; the profile comes from the v2 API wrapped in `data`.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET https://api.coinbase.com/v2/user` (the e-mail needs `wallet:user:email`). */
export interface CoinbaseProfile {
  data: {
    id: string;
    name: string | null;
    username: string | null;
    profile_location?: string | null;
    profile_bio?: string | null;
    profile_url?: string | null;
    avatar_url: string | null;
    resource: 'user';
    resource_path: string;
    email?: string;
    [key: string]: unknown;
  };
}

const preset = /* @__PURE__ */ definePreset<CoinbaseProfile>({
  id: 'coinbase',
  name: 'Coinbase',
  type: 'oauth',
  authorization: { url: 'https://login.coinbase.com/oauth2/auth', params: { scope: 'wallet:user:read wallet:user:email' } },
  token: 'https://login.coinbase.com/oauth2/token',
  userinfo: 'https://api.coinbase.com/v2/user',
  client: { token_endpoint_auth_method: 'client_secret_post' },
  checks: ['pkce', 'state'],
  profile: ({ data }) => ({ id: data.id, name: data.name ?? data.username, email: data.email ?? null, image: data.avatar_url ?? null }),
  style: { brandColor: '#0052ff' },
});

/**
 * Sign in with Coinbase. Reads `AUTH_COINBASE_ID` / `AUTH_COINBASE_SECRET`.
 *
 * @example
 * providers: [Coinbase()]
 */
export default function Coinbase(options?: OAuthUserConfig<CoinbaseProfile>): OAuthConfig<CoinbaseProfile> {
  return preset(options);
}
