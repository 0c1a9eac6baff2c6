// Osso (open-source SAML to OAuth 2 bridge), self-hosted: the issuer is your Osso instance's URL.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET /oauth/me`: the user as the organisation's SAML identity provider described them. */
export interface OssoProfile {
  id: string;
  email: string;
  /** The identity provider's own id for the user. */
  idp: string;
  /** The authorization request's parameters (domain or e-mail) that picked the organisation. */
  requested?: Record<string, unknown>;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<OssoProfile>({
  id: 'osso',
  name: 'Osso',
  type: 'oauth',
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  userinfo: '/oauth/me',
  checks: ['state'],
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({ id: p.id, name: null, email: p.email || null, image: null }),
  style: { brandColor: '#4a2bd2' },
});

/**
 * Sign in through Osso. Reads `AUTH_OSSO_ID`, `_SECRET` and `_ISSUER`. Pass `domain` (or `email`) to skip
 * Osso's organisation picker.
 *
 * @example
 * signIn('osso', undefined, { domain: 'example.com' })
 */
export default function Osso(options?: OAuthUserConfig<OssoProfile>): OAuthConfig<OssoProfile> {
  return preset(options);
}
