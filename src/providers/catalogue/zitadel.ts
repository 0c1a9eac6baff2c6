// ZITADEL instances (OpenID Connect). The issuer is the instance's domain.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims with `openid profile email`. */
export interface ZitadelProfile {
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  nickname?: string;
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  locale?: string;
  gender?: string;
  updated_at?: number;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<ZitadelProfile>({
  id: 'zitadel',
  name: 'ZITADEL',
  type: 'oidc',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['pkce', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? p.preferred_username ?? null, email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#1b1d27' },
});

/**
 * Sign in with ZITADEL. Reads `AUTH_ZITADEL_ID`, `_SECRET` and `_ISSUER` (e.g. `https://acme-abc123.zitadel.cloud`).
 *
 * @example
 * Zitadel({ issuer: 'https://acme-abc123.zitadel.cloud', client: { token_endpoint_auth_method: 'none' } })
 */
export default function Zitadel(options?: OIDCUserConfig<ZitadelProfile>): OIDCConfig<ZitadelProfile> {
  return preset(options);
}
