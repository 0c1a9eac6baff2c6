// Ory Hydra / Ory OAuth2 (OpenID Connect). The issuer is the Hydra public URL or the Ory project's
// (https://<slug>.projects.oryapis.com). The id is `hydra`, as Auth.js has it: callback URL and env names carry over.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims; beyond `sub`, what the login and consent app puts in the session. */
export interface OryHydraProfile {
  sub: string;
  iss: string;
  aud: string[] | string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
  picture?: string;
  sid?: string;
  amr?: string[];
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<OryHydraProfile>({
  id: 'hydra',
  name: 'Ory Hydra',
  type: 'oidc',
  authorization: { params: { scope: 'openid offline_access profile email' } },
  checks: ['pkce', 'state', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? p.preferred_username ?? null, email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#0f172a' },
});

/**
 * Sign in with Ory Hydra. Reads `AUTH_HYDRA_ID`, `_SECRET` and `_ISSUER`.
 *
 * @example
 * OryHydra({ issuer: 'https://auth.example.com' })
 */
export default function OryHydra(options?: OIDCUserConfig<OryHydraProfile>): OIDCConfig<OryHydraProfile> {
  return preset(options);
}
