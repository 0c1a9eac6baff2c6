// FreshBooks, OAuth 2; the identity comes from the auth API wrapped in `response`.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET https://api.freshbooks.com/auth/api/v1/users/me` (abridged: business memberships, roles, ...). */
export interface FreshbooksProfile {
  response: {
    id: number;
    identity_id?: number;
    first_name: string;
    last_name: string;
    email: string;
    confirmed_at?: string | null;
    created_at?: string;
    business_memberships?: unknown[];
    [key: string]: unknown;
  };
}

const preset = /* @__PURE__ */ definePreset<FreshbooksProfile>({
  id: 'freshbooks',
  name: 'FreshBooks',
  type: 'oauth',
  authorization: 'https://auth.freshbooks.com/oauth/authorize',
  token: 'https://api.freshbooks.com/auth/oauth/token',
  userinfo: 'https://api.freshbooks.com/auth/api/v1/users/me',
  client: { token_endpoint_auth_method: 'client_secret_post' },
  checks: ['state'],
  profile: ({ response: r }) => ({
    id: String(r.id),
    name: [r.first_name, r.last_name].filter(Boolean).join(' ') || null,
    email: r.email ?? null,
    image: null,
  }),
  style: { brandColor: '#0075dd' },
});

/**
 * Sign in with FreshBooks. Reads `AUTH_FRESHBOOKS_ID` / `AUTH_FRESHBOOKS_SECRET`.
 *
 * @example
 * Freshbooks({ authorization: { params: { scope: 'user:profile:read' } } })
 */
export default function Freshbooks(options?: OAuthUserConfig<FreshbooksProfile>): OAuthConfig<FreshbooksProfile> {
  return preset(options);
}
