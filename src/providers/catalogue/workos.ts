// WorkOS SSO (enterprise SAML/OIDC connections behind one OAuth 2 API). The authorization request names the
// connection, organization or provider; the issuer defaults to https://api.workos.com (or your custom domain).
import { definePreset, mergeProviderOptions, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { withTokenType } from './_http.js';

/** The Profile object, `GET /sso/profile` (also returned with the token). */
export interface WorkOSProfile {
  object: 'profile';
  id: string;
  idp_id: string;
  organization_id: string | null;
  connection_id: string;
  connection_type: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  role?: { slug: string } | null;
  groups?: string[];
  raw_attributes: Record<string, any>;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<WorkOSProfile>({
  id: 'workos',
  name: 'WorkOS',
  type: 'oauth',
  defaultIssuer: 'https://api.workos.com',
  authorization: '/sso/authorize',
  // The answer is `{ access_token, profile }`: no token_type.
  token: { url: '/sso/token', conform: withTokenType },
  userinfo: '/sso/profile',
  checks: ['state'],
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({
    id: p.id,
    name: [p.first_name, p.last_name].filter(Boolean).join(' ') || null,
    email: p.email || null,
    image: typeof p.raw_attributes?.picture === 'string' ? p.raw_attributes.picture : null,
  }),
  style: { brandColor: '#6363f1' },
});

/**
 * Sign in with WorkOS SSO. Reads `AUTH_WORKOS_ID` / `AUTH_WORKOS_SECRET`. Name the `connection` here or pass
 * `organization` / `provider` as authorization params (or per sign-in).
 *
 * @example
 * WorkOS({ connection: 'conn_01E4ZCR3C56J083X43JQXF3JK5' })
 */
export default function WorkOS(options: OAuthUserConfig<WorkOSProfile> & { connection?: string } = {}): OAuthConfig<WorkOSProfile> {
  const { connection, ...rest } = options;
  if (!connection) return preset(rest);
  return mergeProviderOptions(preset({ authorization: { params: { connection } } }), rest);
}
