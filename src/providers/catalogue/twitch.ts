// Twitch (OpenID Connect on id.twitch.tv).
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';
import { scopeArrayAsString } from './_http.js';

/** ID token claims; Twitch includes the optional ones only when asked through `claims`. */
export interface TwitchProfile {
  sub: string;
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  updated_at?: string;
  iss: string;
  aud: string;
  azp?: string;
  nonce?: string;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<TwitchProfile>({
  id: 'twitch',
  name: 'Twitch',
  type: 'oidc',
  issuer: 'https://id.twitch.tv/oauth2',
  authorization: {
    url: 'https://id.twitch.tv/oauth2/authorize',
    params: {
      scope: 'openid user:read:email',
      // A literal, not JSON.stringify: a call here would keep the preset in bundles that never use it.
      claims: '{"id_token":{"email":null,"email_verified":null,"picture":null,"preferred_username":null}}',
    },
  },
  // Twitch returns `scope` as an array.
  token: { url: 'https://id.twitch.tv/oauth2/token', conform: scopeArrayAsString },
  userinfo: 'https://id.twitch.tv/oauth2/userinfo',
  jwks_endpoint: 'https://id.twitch.tv/oauth2/keys',
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({ id: p.sub, name: p.preferred_username ?? null, email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#9146ff' },
});

/**
 * Sign in with Twitch. Reads `AUTH_TWITCH_ID` / `AUTH_TWITCH_SECRET`.
 *
 * @example
 * providers: [Twitch()]
 */
export default function Twitch(options?: OIDCUserConfig<TwitchProfile>): OIDCConfig<TwitchProfile> {
  return preset(options);
}
