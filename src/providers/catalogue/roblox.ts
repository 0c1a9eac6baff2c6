// Roblox OAuth 2.0 / OpenID Connect (apis.roblox.com). Roblox discloses no e-mail address.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims with `openid profile`. */
export interface RobloxProfile {
  sub: string;
  name: string;
  nickname: string;
  preferred_username: string;
  created_at: number;
  profile: string;
  picture: string | null;
  iss: string;
  aud: string;
  exp: number;
  iat: number;
  nonce?: string;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<RobloxProfile>({
  id: 'roblox',
  name: 'Roblox',
  type: 'oidc',
  issuer: 'https://apis.roblox.com/oauth/',
  authorization: { params: { scope: 'openid profile' } },
  checks: ['pkce', 'state', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name || p.nickname || p.preferred_username, email: null, image: p.picture ?? null }),
  style: { brandColor: '#335fff' },
});

/**
 * Sign in with Roblox. Reads `AUTH_ROBLOX_ID` / `AUTH_ROBLOX_SECRET`.
 *
 * @example
 * providers: [Roblox()]
 */
export default function Roblox(options?: OIDCUserConfig<RobloxProfile>): OIDCConfig<RobloxProfile> {
  return preset(options);
}
