// PingOne (Ping Identity, OpenID Connect). The issuer names the environment and region:
// `https://auth.pingone.com/<environment-id>/as` (`.eu`, `.ca`, `.asia` for other regions).
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims with `openid profile email`. */
export interface PingIdProfile {
  sub: string;
  iss: string;
  aud: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  picture?: string;
  /** The PingOne environment and organisation ids. */
  env?: string;
  org?: string;
  sid?: string;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<PingIdProfile>({
  id: 'ping-id',
  name: 'Ping Identity',
  type: 'oidc',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['pkce', 'state', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? p.preferred_username ?? null, email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#b3282d' },
});

/**
 * Sign in with PingOne. Reads `AUTH_PING_ID_ID`, `_SECRET` and `_ISSUER`.
 *
 * @example
 * PingId({ issuer: `https://auth.pingone.com/${environmentId}/as` })
 */
export default function PingId(options?: OIDCUserConfig<PingIdProfile>): OIDCConfig<PingIdProfile> {
  return preset(options);
}
