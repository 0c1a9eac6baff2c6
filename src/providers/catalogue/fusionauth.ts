// FusionAuth (OpenID Connect). The issuer is the tenant's configured issuer, usually its URL.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims of a FusionAuth application. */
export interface FusionAuthProfile {
  sub: string;
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  applicationId: string;
  roles?: string[];
  /** Tenant id. */
  tid?: string;
  authenticationType?: string;
  auth_time?: number;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<FusionAuthProfile>({
  id: 'fusionauth',
  name: 'FusionAuth',
  type: 'oidc',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['pkce', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? p.preferred_username ?? null, email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#f58320' },
});

/**
 * Sign in with FusionAuth. Reads `AUTH_FUSIONAUTH_ID`, `_SECRET` and `_ISSUER`.
 *
 * @example
 * FusionAuth({ issuer: 'https://auth.acme.test', authorization: { params: { tenantId: '...' } } })
 */
export default function FusionAuth(options?: OIDCUserConfig<FusionAuthProfile>): OIDCConfig<FusionAuthProfile> {
  return preset(options);
}
