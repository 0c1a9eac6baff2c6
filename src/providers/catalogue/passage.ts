// Passage by 1Password hosted login (OpenID Connect). The issuer is the app's authentication domain
// (https://<app>.withpassage.com, or your own domain).
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims with `openid email phone`. Passage users have no name or picture. */
export interface PassageProfile {
  iss: string;
  sub: string;
  aud: string[] | string;
  exp: number;
  iat: number;
  auth_time?: number;
  azp?: string;
  client_id?: string;
  email?: string;
  email_verified?: boolean;
  phone?: string;
  phone_number_verified?: boolean;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<PassageProfile>({
  id: 'passage',
  name: 'Passage',
  type: 'oidc',
  authorization: { params: { scope: 'openid email' } },
  checks: ['pkce', 'state', 'nonce'],
  profile: (p) => ({ id: p.sub, name: null, email: p.email ?? null, image: null }),
  style: { brandColor: '#3d53f6' },
});

/**
 * Sign in with Passage. Reads `AUTH_PASSAGE_ID`, `_SECRET` and `_ISSUER`.
 *
 * @example
 * Passage({ issuer: 'https://my-app.withpassage.com' })
 */
export default function Passage(options?: OIDCUserConfig<PassageProfile>): OIDCConfig<PassageProfile> {
  return preset(options);
}
