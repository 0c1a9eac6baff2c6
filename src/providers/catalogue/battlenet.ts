// Battle.net (OpenID Connect). Global accounts by default; China (`https://oauth.battlenet.com.cn`) or a region
// (`https://eu.battle.net/oauth`) by `issuer`. Battle.net has no e-mail or picture scope.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims. */
export interface BattleNetProfile {
  sub: string;
  /** `Name#1234`. */
  battle_tag: string;
  [claim: string]: unknown;
}

/** The issuers Battle.net documents. */
export type BattleNetIssuer =
  | 'https://oauth.battle.net'
  | 'https://oauth.battlenet.com.cn'
  | 'https://www.battlenet.com.cn/oauth'
  | `https://${'us' | 'eu' | 'kr' | 'tw'}.battle.net/oauth`;

const preset = /* @__PURE__ */ definePreset<BattleNetProfile>({
  id: 'battlenet',
  name: 'Battle.net',
  type: 'oidc',
  defaultIssuer: 'https://oauth.battle.net',
  authorization: { params: { scope: 'openid' } },
  checks: ['pkce', 'state', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.battle_tag ?? null, email: null, image: null }),
  style: { brandColor: '#148eff' },
});

/**
 * Sign in with Battle.net. Reads `AUTH_BATTLENET_ID`, `_SECRET` and (optionally) `_ISSUER`.
 *
 * @example
 * BattleNet({ issuer: 'https://oauth.battlenet.com.cn' })
 */
export default function BattleNet(options?: OIDCUserConfig<BattleNetProfile> & { issuer?: BattleNetIssuer | (string & {}) }): OIDCConfig<BattleNetProfile> {
  return preset(options);
}
