// Beyond Identity (passwordless, OpenID Connect). The issuer is an application's:
// `https://auth-<region>.beyondidentity.com/v1/tenants/<tenant>/realms/<realm>/applications/<application>`.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims with `openid profile email`. */
export interface BeyondIdentityProfile {
  sub: string;
  name?: string;
  preferred_username?: string;
  email?: string;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<BeyondIdentityProfile>({
  id: 'beyondidentity',
  name: 'Beyond Identity',
  type: 'oidc',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['pkce', 'state'],
  profile: (p) => ({ id: p.sub, name: p.name ?? p.preferred_username ?? null, email: p.email ?? null, image: null }),
  style: { brandColor: '#5077c5' },
});

/**
 * Sign in with Beyond Identity. Reads `AUTH_BEYONDIDENTITY_ID`, `_SECRET` and `_ISSUER`.
 *
 * @example
 * BeyondIdentity({ issuer: 'https://auth-us.beyondidentity.com/v1/tenants/t1/realms/r1/applications/a1' })
 */
export default function BeyondIdentity(options?: OIDCUserConfig<BeyondIdentityProfile>): OIDCConfig<BeyondIdentityProfile> {
  return preset(options);
}
