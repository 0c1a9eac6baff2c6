// Salesforce (OpenID Connect). Defaults to production logins; sandboxes and My Domains set `issuer`.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** The user-info response (richer than the ID token, hence `idToken: false`). */
export interface SalesforceProfile {
  /** `https://login.salesforce.com/id/<org id>/<user id>`. */
  sub: string;
  user_id: string;
  organization_id: string;
  preferred_username: string;
  nickname?: string;
  name: string;
  email: string;
  email_verified: boolean;
  given_name?: string;
  family_name?: string;
  zoneinfo?: string;
  picture?: string;
  photos?: { picture: string; thumbnail: string };
  user_type?: string;
  active?: boolean;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<SalesforceProfile>({
  id: 'salesforce',
  name: 'Salesforce',
  type: 'oidc',
  // Endpoints are discovered so that a sandbox (test.salesforce.com) or My Domain issuer just works.
  issuer: 'https://login.salesforce.com',
  authorization: { params: { scope: 'openid profile email' } },
  idToken: false,
  profile: (p) => ({ id: p.user_id, name: p.name, email: p.email, image: p.picture ?? p.photos?.picture ?? null }),
  style: { brandColor: '#00a1e0' },
});

/**
 * Sign in with Salesforce. Reads `AUTH_SALESFORCE_ID`, `_SECRET` and optionally `_ISSUER`.
 *
 * @example
 * Salesforce({ issuer: 'https://test.salesforce.com' })
 */
export default function Salesforce(options?: OIDCUserConfig<SalesforceProfile>): OIDCConfig<SalesforceProfile> {
  return preset(options);
}
