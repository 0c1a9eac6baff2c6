// TikTok Login Kit (v2). The client id is called `client_key` everywhere, so the token request is TikTok's own.
import type { TokenSet } from '../../core/types.js';
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { bearer, fetchJson, userinfoUrl } from './_http.js';

/** `GET /v2/user/info/?fields=...` answers `{ data: { user }, error: { code: 'ok', ... } }`. No e-mail. */
export interface TikTokProfile {
  data: { user: { open_id: string; union_id?: string; avatar_url?: string; avatar_large_url?: string; display_name: string; username?: string } };
  error: { code: string; message: string; log_id: string };
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<TikTokProfile>({
  id: 'tiktok',
  name: 'TikTok',
  type: 'oauth',
  authorization: {
    url: 'https://www.tiktok.com/v2/auth/authorize/',
    params: { scope: 'user.info.basic' },
    conform: (url) => {
      url.searchParams.set('client_key', url.searchParams.get('client_id') ?? '');
      return url;
    },
  },
  token: {
    url: 'https://open.tiktokapis.com/v2/oauth/token/',
    async request({ params, checks, provider }) {
      const body = new URLSearchParams({
        client_key: provider.clientId ?? '',
        client_secret: provider.clientSecret ?? '',
        code: params.code ?? '',
        grant_type: 'authorization_code',
        redirect_uri: provider.redirectUri,
      });
      if (checks.code_verifier) body.set('code_verifier', checks.code_verifier);
      // Errors may come with status 200, as `{ error, error_description, log_id }`.
      const tokens = await fetchJson<TokenSet & { error?: string; error_description?: string }>(provider.token.url!, { method: 'POST', body });
      if (typeof tokens.access_token !== 'string') throw new Error(`TikTok: ${tokens.error ?? 'no access_token'}: ${tokens.error_description ?? ''}`, { cause: tokens });
      return { tokens: { token_type: 'bearer', ...tokens } };
    },
  },
  userinfo: {
    url: 'https://open.tiktokapis.com/v2/user/info/',
    params: { fields: 'open_id,union_id,avatar_url,display_name' },
    async request({ tokens, provider }) {
      const profile = await fetchJson<TikTokProfile>(userinfoUrl(provider.userinfo), { headers: bearer(tokens) });
      if (profile.error?.code !== 'ok') throw new Error(`TikTok user info: ${profile.error?.code}: ${profile.error?.message}`, { cause: profile.error });
      return profile;
    },
  },
  checks: ['state'],
  profile: ({ data: { user } }) => ({ id: user.open_id, name: user.display_name || null, email: null, image: user.avatar_url || null }),
  style: { brandColor: '#000000' },
});

/**
 * Sign in with TikTok. Reads `AUTH_TIKTOK_ID` (the client key) / `AUTH_TIKTOK_SECRET`.
 *
 * @example
 * TikTok({ authorization: { params: { scope: 'user.info.basic,user.info.profile' } } })
 */
export default function TikTok(options?: OAuthUserConfig<TikTokProfile>): OAuthConfig<TikTokProfile> {
  return preset(options);
}
