// BoxyHQ SAML Jackson: SAML single sign-on exposed as OAuth 2 by a Jackson service the app runs (`issuer`).
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET {issuer}/api/oauth/userinfo`: the SAML assertion's attributes. */
export interface BoxyHQSAMLProfile {
  id: string;
  email: string;
  firstName?: string;
  lastName?: string;
  requested?: Record<string, unknown>;
  raw?: Record<string, unknown>;
  [key: string]: unknown;
}

// Paths hang under the issuer (the Jackson service's base URL), so AUTH_BOXYHQ_SAML_ISSUER alone places them.
const preset = /* @__PURE__ */ definePreset<BoxyHQSAMLProfile>({
  id: 'boxyhq-saml',
  name: 'BoxyHQ SAML',
  type: 'oauth',
  authorization: { url: '/api/oauth/authorize', params: { provider: 'saml' } },
  token: '/api/oauth/token',
  userinfo: '/api/oauth/userinfo',
  client: { token_endpoint_auth_method: 'client_secret_post' },
  checks: ['pkce', 'state'],
  profile: (p) => ({
    id: p.id,
    name: [p.firstName, p.lastName].filter(Boolean).join(' ') || null,
    email: p.email ?? null,
    image: null,
  }),
  style: { brandColor: '#25c2a0' },
});

/**
 * Sign in through SAML Jackson. Reads `AUTH_BOXYHQ_SAML_ID`, `_SECRET` and `_ISSUER`; the client id names the
 * tenant and product (`tenant=acme.com&product=app`), the secret is Jackson's (`dummy` unless configured).
 *
 * @example
 * BoxyHQSAML({ issuer: 'https://jackson.acme.test', clientId: 'tenant=acme.com&product=app', clientSecret: 'dummy' })
 */
export default function BoxyHQSAML(options?: OAuthUserConfig<BoxyHQSAMLProfile>): OAuthConfig<BoxyHQSAMLProfile> {
  return preset(options);
}
