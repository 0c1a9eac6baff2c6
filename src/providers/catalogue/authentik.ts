// authentik (OpenID Connect). The issuer is per application: `https://<host>/application/o/<slug>/`.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims of the default `openid profile email` scope mappings. */
export interface AuthentikProfile {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  nickname?: string;
  groups?: string[];
  picture?: string;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<AuthentikProfile>({
  id: 'authentik',
  name: 'authentik',
  type: 'oidc',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['pkce', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? p.preferred_username ?? null, email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#fd4b2d' },
});

/**
 * Sign in with authentik. Reads `AUTH_AUTHENTIK_ID`, `_SECRET` and `_ISSUER`.
 *
 * @example
 * Authentik({ issuer: 'https://auth.acme.test/application/o/intranet/' })
 */
export default function Authentik(options?: OIDCUserConfig<AuthentikProfile>): OIDCConfig<AuthentikProfile> {
  return preset(options);
}
