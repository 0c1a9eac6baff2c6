// Vipps MobilePay Login (OpenID Connect). The profile comes from the user-info endpoint; the test environment's
// issuer is https://apitest.vipps.no/access-management-1.0/access/ (set it as `issuer` or AUTH_VIPPS_ISSUER).
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** `GET /vipps-userinfo-api/userinfo` with `openid name email phoneNumber` (standard claims, api_version_2). */
export interface VippsProfile {
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  email?: string;
  email_verified?: boolean;
  phone_number?: string;
  birthdate?: string;
  address?: Record<string, unknown>;
  sid?: string;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<VippsProfile>({
  id: 'vipps',
  name: 'Vipps',
  type: 'oidc',
  defaultIssuer: 'https://api.vipps.no/access-management-1.0/access/',
  authorization: { params: { scope: 'openid name email phoneNumber api_version_2' } },
  // The ID token names only the subject; the rest is user info.
  idToken: false,
  checks: ['pkce', 'state', 'nonce'],
  profile: (p) => ({
    id: p.sub,
    name: p.name ?? ([p.given_name, p.family_name].filter(Boolean).join(' ') || null),
    email: p.email ?? null,
    image: null,
  }),
  style: { brandColor: '#ff5b24' },
});

/**
 * Sign in with Vipps MobilePay. Reads `AUTH_VIPPS_ID`, `_SECRET` and (for the test environment) `_ISSUER`.
 *
 * @example
 * Vipps({ authorization: { params: { scope: 'openid name email phoneNumber address api_version_2' } } })
 */
export default function Vipps(options?: OIDCUserConfig<VippsProfile>): OIDCConfig<VippsProfile> {
  return preset(options);
}
