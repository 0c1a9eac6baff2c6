// Amazon Cognito user pools (OpenID Connect). The issuer is `https://cognito-idp.<region>.amazonaws.com/<pool id>`.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims of a user pool. */
export interface CognitoProfile {
  sub: string;
  email?: string;
  email_verified?: boolean;
  'cognito:username': string;
  'cognito:groups'?: string[];
  name?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  phone_number?: string;
  token_use: 'id';
  auth_time?: number;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<CognitoProfile>({
  id: 'cognito',
  name: 'Cognito',
  type: 'oidc',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['pkce', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? p['cognito:username'], email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#ff9900' },
});

/**
 * Sign in with an Amazon Cognito user pool. Reads `AUTH_COGNITO_ID`, `_SECRET` and `_ISSUER`.
 *
 * @example
 * Cognito({ issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEfGhI' })
 */
export default function Cognito(options?: OIDCUserConfig<CognitoProfile>): OIDCConfig<CognitoProfile> {
  return preset(options);
}
