// Logto (OpenID Connect). Each tenant has its own issuer: `https://<tenant-id>.logto.app/oidc`, or your own
// domain, or a self-hosted instance's `https://<host>/oidc`.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims with the `openid profile email` scopes. */
export interface LogtoProfile {
  sub: string;
  name?: string | null;
  username?: string | null;
  picture?: string | null;
  email?: string | null;
  email_verified?: boolean;
  phone_number?: string | null;
  phone_number_verified?: boolean;
  updated_at?: number;
  created_at?: number;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<LogtoProfile>({
  id: 'logto',
  name: 'Logto',
  type: 'oidc',
  // `offline_access` only yields a refresh token with `prompt=consent`, which Logto then requires.
  authorization: { params: { scope: 'openid offline_access profile email', prompt: 'consent' } },
  checks: ['pkce', 'state', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? p.username ?? null, email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#5d34f2' },
});

/**
 * Sign in with Logto. Reads `AUTH_LOGTO_ID`, `_SECRET` and `_ISSUER`.
 *
 * @example
 * Logto({ issuer: 'https://abc123.logto.app/oidc' })
 */
export default function Logto(options?: OIDCUserConfig<LogtoProfile>): OIDCConfig<LogtoProfile> {
  return preset(options);
}
