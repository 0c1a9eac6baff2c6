// Kakao Login (OAuth 2). Consent items are configured in the Kakao Developers console.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET /v2/user/me`. */
export interface KakaoProfile {
  id: number;
  connected_at?: string;
  properties?: { nickname?: string; profile_image?: string; thumbnail_image?: string };
  kakao_account?: {
    profile_needs_agreement?: boolean;
    profile?: { nickname?: string; thumbnail_image_url?: string; profile_image_url?: string; is_default_image?: boolean };
    email_needs_agreement?: boolean;
    has_email?: boolean;
    is_email_valid?: boolean;
    is_email_verified?: boolean;
    email?: string;
    name?: string;
    age_range?: string;
    birthday?: string;
    gender?: 'female' | 'male';
    phone_number?: string;
  };
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<KakaoProfile>({
  id: 'kakao',
  name: 'Kakao',
  type: 'oauth',
  authorization: 'https://kauth.kakao.com/oauth/authorize',
  token: 'https://kauth.kakao.com/oauth/token',
  userinfo: 'https://kapi.kakao.com/v2/user/me',
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => {
    const account = p.kakao_account;
    return {
      id: String(p.id),
      name: account?.profile?.nickname ?? p.properties?.nickname ?? null,
      // Only a valid, verified address is worth keeping.
      email: account?.email && account.is_email_valid !== false && account.is_email_verified !== false ? account.email : null,
      image: account?.profile?.profile_image_url ?? p.properties?.profile_image ?? null,
    };
  },
  style: { brandColor: '#fee500', text: '#191919' },
});

/**
 * Sign in with Kakao. Reads `AUTH_KAKAO_ID` (REST API key) / `AUTH_KAKAO_SECRET`.
 *
 * @example
 * Kakao({ authorization: { params: { scope: 'profile_nickname account_email' } } })
 */
export default function Kakao(options?: OAuthUserConfig<KakaoProfile>): OAuthConfig<KakaoProfile> {
  return preset(options);
}
