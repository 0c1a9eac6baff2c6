// Microsoft Entra ID (formerly Azure AD), v2.0 endpoints. The issuer names the tenant.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims of the v2.0 endpoint. */
export interface MicrosoftEntraIDProfile {
  sub: string;
  /** Object id of the user in the tenant; stable across applications. */
  oid: string;
  /** Tenant id. */
  tid: string;
  name?: string;
  preferred_username?: string;
  email?: string;
  given_name?: string;
  family_name?: string;
  ver: string;
  iss: string;
  aud: string;
  nonce?: string;
  iat: number;
  nbf?: number;
  exp: number;
  [claim: string]: unknown;
}

// The issuer defaults (below `issuer` and AUTH_MICROSOFT_ENTRA_ID_ISSUER) to `common`: any work, school or personal
// account. Name one tenant (https://login.microsoftonline.com/<tenant-id>/v2.0), `consumers` for personal accounts
// or `organizations` for any work account instead. `common` and `organizations` publish a templated issuer
// (`{tenantid}`), and each ID token is checked against it with its own `tid` put in; which tenants may sign in is
// the signIn callback's call.
const preset = /* @__PURE__ */ definePreset<MicrosoftEntraIDProfile>({
  id: 'microsoft-entra-id',
  name: 'Microsoft Entra ID',
  type: 'oidc',
  defaultIssuer: 'https://login.microsoftonline.com/common/v2.0',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['pkce', 'nonce'],
  issuerPerTenant: true,
  profile: (p) => ({ id: p.sub, name: p.name ?? p.preferred_username ?? null, email: p.email ?? null, image: null }),
  style: { brandColor: '#0072c6' },
});

/**
 * Sign in with Microsoft Entra ID. Reads `AUTH_MICROSOFT_ENTRA_ID_ID`, `_SECRET` and `_ISSUER`; without an issuer,
 * the multi-tenant `common` endpoint (admit tenants in the signIn callback by `profile.tid`).
 *
 * @example
 * MicrosoftEntraID()  // https://login.microsoftonline.com/common/v2.0
 * MicrosoftEntraID({ issuer: `https://login.microsoftonline.com/${tenantId}/v2.0` })  // one tenant
 */
export default function MicrosoftEntraID(options?: OIDCUserConfig<MicrosoftEntraIDProfile>): OIDCConfig<MicrosoftEntraIDProfile> {
  return preset(options);
}
