// Yandex ID (OAuth 2). The user-info API takes the token with the `OAuth` scheme.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { fetchJson, userinfoUrl } from './_http.js';

/** `GET https://login.yandex.ru/info?format=json` with `login:info login:email login:avatar`. */
export interface YandexProfile {
  id: string;
  login: string;
  client_id: string;
  psuid: string;
  display_name?: string;
  real_name?: string;
  first_name?: string;
  last_name?: string;
  sex?: 'male' | 'female' | null;
  default_email?: string;
  emails?: string[];
  default_avatar_id?: string;
  is_avatar_empty?: boolean;
  birthday?: string | null;
  default_phone?: { id: number; number: string };
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<YandexProfile>({
  id: 'yandex',
  name: 'Yandex',
  type: 'oauth',
  authorization: { url: 'https://oauth.yandex.ru/authorize', params: { scope: 'login:info login:email login:avatar' } },
  token: 'https://oauth.yandex.ru/token',
  userinfo: {
    url: 'https://login.yandex.ru/info',
    params: { format: 'json' },
    request: ({ tokens, provider }) =>
      fetchJson<YandexProfile>(userinfoUrl(provider.userinfo), { headers: { authorization: `OAuth ${tokens.access_token ?? ''}` } }),
  },
  profile: (p) => ({
    id: p.id,
    name: p.display_name ?? p.real_name ?? p.login,
    email: p.default_email ?? p.emails?.[0] ?? null,
    image: !p.is_avatar_empty && p.default_avatar_id ? `https://avatars.yandex.net/get-yapic/${p.default_avatar_id}/islands-200` : null,
  }),
  style: { brandColor: '#fc3f1d' },
});

/**
 * Sign in with Yandex. Reads `AUTH_YANDEX_ID` / `AUTH_YANDEX_SECRET`.
 *
 * @example
 * providers: [Yandex()]
 */
export default function Yandex(options?: OAuthUserConfig<YandexProfile>): OAuthConfig<YandexProfile> {
  return preset(options);
}
