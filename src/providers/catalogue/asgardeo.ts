// WSO2 Asgardeo (OpenID Connect). The issuer is the organisation's token endpoint:
// `https://api.asgardeo.io/t/<org>/oauth2/token`, whose discovery document sits right under it.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims with `openid profile email`. */
export interface AsgardeoProfile {
  sub: string;
  username?: string;
  given_name?: string;
  family_name?: string;
  name?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  org_id?: string;
  org_name?: string;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<AsgardeoProfile>({
  id: 'asgardeo',
  name: 'Asgardeo',
  type: 'oidc',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['pkce', 'nonce'],
  profile: (p) => ({
    id: p.sub,
    name: p.name ?? ([p.given_name, p.family_name].filter(Boolean).join(' ') || p.username || null),
    email: p.email ?? null,
    image: p.picture ?? null,
  }),
  style: { brandColor: '#ff7300' },
});

/**
 * Sign in with Asgardeo. Reads `AUTH_ASGARDEO_ID`, `_SECRET` and `_ISSUER` (the `/oauth2/token` URL). An issuer
 * given as the organisation's base (`https://api.asgardeo.io/t/<org>`, as Auth.js takes it) gets `/oauth2/token` added.
 *
 * @example
 * Asgardeo({ issuer: 'https://api.asgardeo.io/t/acme/oauth2/token' })
 */
export default function Asgardeo(options?: OIDCUserConfig<AsgardeoProfile>): OIDCConfig<AsgardeoProfile> {
  const issuer = options?.issuer;
  if (issuer && !/\/oauth2\/token\/?$/.test(issuer)) return preset({ ...options, issuer: `${issuer.replace(/\/+$/, '')}/oauth2/token` });
  return preset(options);
}
