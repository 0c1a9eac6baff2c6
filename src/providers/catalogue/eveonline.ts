// EVE Online single sign-on (login.eveonline.com, SSO v2), OAuth 2; who signed in is a character.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET https://login.eveonline.com/oauth/verify`: the character the access token was issued for. */
export interface EVEOnlineProfile {
  CharacterID: number;
  CharacterName: string;
  ExpiresOn: string;
  Scopes: string;
  TokenType: string;
  /** Changes when the character moves to another account. */
  CharacterOwnerHash: string;
  IntellectualProperty: string;
}

const preset = /* @__PURE__ */ definePreset<EVEOnlineProfile>({
  id: 'eveonline',
  name: 'EVE Online',
  type: 'oauth',
  authorization: { url: 'https://login.eveonline.com/v2/oauth/authorize', params: { scope: 'publicData' } },
  token: 'https://login.eveonline.com/v2/oauth/token',
  userinfo: 'https://login.eveonline.com/oauth/verify',
  // The SSO requires `state`.
  checks: ['state'],
  profile: (p) => ({
    id: String(p.CharacterID),
    name: p.CharacterName,
    email: null,
    image: `https://images.evetech.net/characters/${p.CharacterID}/portrait?size=128`,
  }),
  style: { brandColor: '#1b1b1b' },
});

/**
 * Sign in with an EVE Online character. Reads `AUTH_EVEONLINE_ID` / `AUTH_EVEONLINE_SECRET`.
 *
 * @example
 * providers: [EVEOnline()]
 */
export default function EVEOnline(options?: OAuthUserConfig<EVEOnlineProfile>): OAuthConfig<EVEOnlineProfile> {
  return preset(options);
}
