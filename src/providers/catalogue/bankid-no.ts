// BankID Norge (OpenID Connect, auth.bankid.no). The e-mail address comes only from the user-info endpoint, which
// answers a signed JWT; the client authenticates in the token request's body.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** User info (and ID token) claims; `nnin_altsub` needs the `nnin_altsub` scope. */
export interface BankIDNorwayProfile {
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  birthdate?: string;
  email?: string;
  phone_number?: string;
  /** Personal identifier from the BankID certificate. */
  bankid_altsub?: string;
  /** Norwegian national identity number. */
  nnin_altsub?: string;
  /** `BID` (BankID), `BIM` (mobile), `BIS` (app). */
  amr?: string;
  acr?: string;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<BankIDNorwayProfile>({
  id: 'bankid-no',
  name: 'BankID Norge',
  type: 'oidc',
  issuer: 'https://auth.bankid.no/auth/realms/prod',
  authorization: { params: { scope: 'openid profile email', ui_locales: 'no', login_hint: 'BIS' } },
  client: { token_endpoint_auth_method: 'client_secret_post', userinfo_signed_response_alg: 'RS256' },
  idToken: false,
  checks: ['pkce', 'state', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? null, email: p.email ?? null, image: null }),
  style: { brandColor: '#39134c' },
});

/**
 * Sign in with BankID. Reads `AUTH_BANKID_NO_ID` / `AUTH_BANKID_NO_SECRET`; the test environment is an `issuer`
 * away (`https://auth.current.bankid.no/auth/realms/current`).
 *
 * @example
 * BankIDNorway({ authorization: { params: { scope: 'openid profile nnin_altsub', login_hint: 'BID' } } })
 */
export default function BankIDNorway(options?: OIDCUserConfig<BankIDNorwayProfile>): OIDCConfig<BankIDNorwayProfile> {
  return preset(options);
}
