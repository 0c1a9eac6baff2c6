// Descope (OpenID Connect). The issuer is `https://api.descope.com/<project id>`, and the client id is the
// project id, so naming the client names the issuer.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims with `openid profile email`. */
export interface DescopeProfile {
  sub: string;
  name?: string;
  email?: string;
  email_verified?: boolean;
  phone_number?: string;
  phone_number_verified?: boolean;
  picture?: string;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<DescopeProfile>({
  id: 'descope',
  name: 'Descope',
  type: 'oidc',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['pkce', 'state'],
  profile: (p) => ({ id: p.sub, name: p.name ?? null, email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#1c1c23' },
});

/**
 * Sign in with Descope. Reads `AUTH_DESCOPE_ID` (the project id), `_SECRET` and `_ISSUER`; with only a `clientId`
 * option the issuer is derived from it.
 *
 * @example
 * Descope({ clientId: 'P2abc123', clientSecret: process.env.DESCOPE_ACCESS_KEY })
 */
export default function Descope(options?: OIDCUserConfig<DescopeProfile>): OIDCConfig<DescopeProfile> {
  if (options?.clientId && !options.issuer) return preset({ ...options, issuer: `https://api.descope.com/${options.clientId}` });
  return preset(options);
}
