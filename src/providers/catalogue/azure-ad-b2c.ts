// Azure AD B2C (OpenID Connect). Each user flow (policy) has its own discovery document, whose issuer names the
// tenant by id: give both, `wellKnown` for the policy and `issuer` as the document states it.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims of a B2C user flow (which ones appear is set per flow). */
export interface AzureADB2CProfile {
  sub: string;
  oid?: string;
  /** The e-mail addresses of a local account: B2C sends a list, not `email`. */
  emails?: string[];
  email?: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  idp?: string;
  /** The user flow (policy) that signed the user in. */
  tfp?: string;
  acr?: string;
  ver: string;
  auth_time?: number;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<AzureADB2CProfile>({
  id: 'azure-ad-b2c',
  name: 'Azure AD B2C',
  type: 'oidc',
  authorization: { params: { scope: 'openid offline_access' } },
  checks: ['pkce', 'nonce'],
  profile: (p) => ({
    id: p.sub,
    name: p.name ?? ([p.given_name, p.family_name].filter(Boolean).join(' ') || null),
    email: p.emails?.[0] ?? p.email ?? null,
    image: null,
  }),
  style: { brandColor: '#0072c6' },
});

/**
 * Sign in with an Azure AD B2C user flow. Reads `AUTH_AZURE_AD_B2C_ID`, `_SECRET` and `_ISSUER`.
 *
 * @example
 * AzureADB2C({
 *   wellKnown: 'https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_signin/v2.0/.well-known/openid-configuration',
 *   issuer: 'https://contoso.b2clogin.com/775527ff-9a37-4307-8b3d-cc311f58d925/v2.0/',
 * })
 */
export default function AzureADB2C(options?: OIDCUserConfig<AzureADB2CProfile>): OIDCConfig<AzureADB2CProfile> {
  return preset(options);
}
