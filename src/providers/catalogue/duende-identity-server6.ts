// Duende IdentityServer (v6 and later; OpenID Connect). The issuer is the server's base URL.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims of the standard identity resources (`openid profile email`). */
export interface DuendeISUser {
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  idp?: string;
  amr?: string[];
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<DuendeISUser>({
  id: 'duende-identity-server6',
  name: 'Duende IdentityServer',
  type: 'oidc',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['pkce', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? p.preferred_username ?? null, email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#1d4f91' },
});

/**
 * Sign in with Duende IdentityServer. Reads `AUTH_DUENDE_IDENTITY_SERVER6_ID`, `_SECRET` and `_ISSUER`.
 *
 * @example
 * DuendeIdentityServer6({ issuer: 'https://demo.duendesoftware.com' })
 */
export default function DuendeIdentityServer6(options?: OIDCUserConfig<DuendeISUser>): OIDCConfig<DuendeISUser> {
  return preset(options);
}
