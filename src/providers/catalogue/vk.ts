// VK ID (OAuth 2.1 on id.vk.ru): PKCE and `state` are mandatory, and the code exchange also needs the
// `device_id` that VK appends to the callback, so the token request is VK's own.
import type { TokenSet } from '../../core/types.js';
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { fetchJson, userinfoUrl } from './_http.js';

/** `POST /oauth2/user_info` answers `{ user: VKProfile }`. */
export interface VKProfile {
  user_id: string;
  first_name: string;
  last_name: string;
  avatar?: string;
  email?: string;
  phone?: string;
  sex?: 0 | 1 | 2;
  verified?: boolean;
  birthday?: string;
  [key: string]: unknown;
}

const form = (fields: Record<string, string | undefined>) =>
  new URLSearchParams(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined));

const preset = /* @__PURE__ */ definePreset<VKProfile>({
  id: 'vk',
  name: 'VK ID',
  type: 'oauth',
  authorization: { url: 'https://id.vk.ru/authorize', params: { scope: 'vkid.personal_info email' } },
  token: {
    url: 'https://id.vk.ru/oauth2/auth',
    async request({ params, checks, provider }) {
      const body = form({
        grant_type: 'authorization_code',
        code: params.code,
        code_verifier: checks.code_verifier,
        client_id: provider.clientId,
        device_id: params.device_id,
        redirect_uri: provider.redirectUri,
        state: checks.state,
      });
      const tokens = await fetchJson<TokenSet>(provider.token.url!, { method: 'POST', body });
      if (typeof tokens.access_token !== 'string') throw new Error('VK ID: the token response has no access_token.', { cause: tokens });
      return { tokens };
    },
  },
  userinfo: {
    url: 'https://id.vk.ru/oauth2/user_info',
    async request({ tokens, provider }) {
      const body = form({ client_id: provider.clientId, access_token: tokens.access_token });
      const { user } = await fetchJson<{ user: VKProfile }>(userinfoUrl(provider.userinfo), { method: 'POST', body });
      return user;
    },
  },
  checks: ['pkce', 'state'],
  // The client is public (PKCE); the exchange carries no secret.
  client: { token_endpoint_auth_method: 'none' },
  profile: (p) => ({
    id: String(p.user_id),
    name: [p.first_name, p.last_name].filter(Boolean).join(' ') || null,
    email: p.email || null,
    image: p.avatar || null,
  }),
  style: { brandColor: '#0077ff' },
});

/**
 * Sign in with VK ID. Reads `AUTH_VK_ID`.
 *
 * @example
 * VK({ authorization: { params: { scope: 'vkid.personal_info email phone' } } })
 */
export default function VK(options?: OAuthUserConfig<VKProfile>): OAuthConfig<VKProfile> {
  return preset(options);
}
