// Naver Login (OAuth 2). Naver requires `state` and does not implement PKCE.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET https://openapi.naver.com/v1/nid/me`: the user sits under `response`. */
export interface NaverProfile {
  resultcode: string;
  message: string;
  response: {
    id: string;
    nickname?: string;
    name?: string;
    email?: string;
    gender?: 'F' | 'M' | 'U';
    age?: string;
    birthday?: string;
    birthyear?: string;
    profile_image?: string;
    mobile?: string;
  };
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<NaverProfile>({
  id: 'naver',
  name: 'Naver',
  type: 'oauth',
  authorization: 'https://nid.naver.com/oauth2.0/authorize',
  token: 'https://nid.naver.com/oauth2.0/token',
  userinfo: 'https://openapi.naver.com/v1/nid/me',
  client: { token_endpoint_auth_method: 'client_secret_post' },
  checks: ['state'],
  profile: ({ response: u }) => ({
    id: u.id,
    name: u.nickname ?? u.name ?? null,
    email: u.email ?? null,
    image: u.profile_image ?? null,
  }),
  style: { brandColor: '#03c75a' },
});

/**
 * Sign in with Naver. Reads `AUTH_NAVER_ID` / `AUTH_NAVER_SECRET`.
 *
 * @example
 * providers: [Naver()]
 */
export default function Naver(options?: OAuthUserConfig<NaverProfile>): OAuthConfig<NaverProfile> {
  return preset(options);
}
