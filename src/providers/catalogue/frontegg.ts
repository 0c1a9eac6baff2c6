// Frontegg (OpenID Connect). The issuer is the workspace's domain (`https://<name>.frontegg.com` or a custom
// one); its metadata and endpoints live below `/oauth`, which is where they are looked up.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims. */
export interface FronteggProfile {
  sub: string;
  name?: string;
  email: string;
  email_verified?: boolean;
  profilePictureUrl?: string | null;
  roles?: string[];
  permissions?: string[];
  tenantId?: string;
  tenantIds?: string[];
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<FronteggProfile>({
  id: 'frontegg',
  name: 'Frontegg',
  type: 'oidc',
  wellKnown: '/oauth/.well-known/openid-configuration',
  authorization: { url: '/oauth/authorize', params: { scope: 'openid profile email' } },
  token: '/oauth/token',
  checks: ['pkce', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? null, email: p.email ?? null, image: p.profilePictureUrl ?? null }),
  style: { brandColor: '#4461f2' },
});

/**
 * Sign in with Frontegg. Reads `AUTH_FRONTEGG_ID`, `_SECRET` and `_ISSUER`.
 *
 * @example
 * Frontegg({ issuer: 'https://acme.frontegg.com' })
 */
export default function Frontegg(options?: OIDCUserConfig<FronteggProfile>): OIDCConfig<FronteggProfile> {
  return preset(options);
}
