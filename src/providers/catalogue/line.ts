// LINE Login v2.1 (OpenID Connect).
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims with `openid profile email` (email needs the channel's e-mail permission). */
export interface LineProfile {
  iss: string;
  sub: string;
  aud: string;
  exp: number;
  iat: number;
  nonce?: string;
  amr?: string[];
  name?: string;
  picture?: string;
  email?: string;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<LineProfile>({
  id: 'line',
  name: 'LINE',
  type: 'oidc',
  issuer: 'https://access.line.me',
  authorization: { url: 'https://access.line.me/oauth2/v2.1/authorize', params: { scope: 'openid profile email' } },
  token: 'https://api.line.me/oauth2/v2.1/token',
  userinfo: 'https://api.line.me/oauth2/v2.1/userinfo',
  jwks_endpoint: 'https://api.line.me/oauth2/v2.1/certs',
  // Web-login ID tokens are HMAC-signed with the channel secret, whatever the discovery document lists.
  client: { token_endpoint_auth_method: 'client_secret_post', id_token_signed_response_alg: 'HS256' },
  checks: ['pkce', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? null, email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#06c755' },
});

/**
 * Sign in with LINE. Reads `AUTH_LINE_ID` (channel id) / `AUTH_LINE_SECRET` (channel secret).
 *
 * @example
 * Line({ authorization: { params: { bot_prompt: 'aggressive' } } })
 */
export default function Line(options?: OIDCUserConfig<LineProfile>): OIDCConfig<LineProfile> {
  return preset(options);
}
