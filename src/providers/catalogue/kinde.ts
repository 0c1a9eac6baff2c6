// Kinde (OpenID Connect). The issuer is the business's domain (`https://<business>.kinde.com` or a custom one).
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims with `openid profile email`. */
export interface KindeProfile {
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string | null;
  org_codes?: string[];
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<KindeProfile>({
  id: 'kinde',
  name: 'Kinde',
  type: 'oidc',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['pkce', 'state', 'nonce'],
  profile: (p) => ({
    id: p.sub,
    name: p.name ?? ([p.given_name, p.family_name].filter(Boolean).join(' ') || null),
    email: p.email ?? null,
    image: p.picture ?? null,
  }),
  style: { brandColor: '#0f0f0f' },
});

/**
 * Sign in with Kinde. Reads `AUTH_KINDE_ID`, `_SECRET` and `_ISSUER`.
 *
 * @example
 * Kinde({ issuer: 'https://acme.kinde.com' })
 */
export default function Kinde(options?: OIDCUserConfig<KindeProfile>): OIDCConfig<KindeProfile> {
  return preset(options);
}
