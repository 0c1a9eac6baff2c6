// Zoho Accounts OAuth 2. Zoho runs one accounts server per data centre: the issuer defaults to
// https://accounts.zoho.com; set it to your app's (https://accounts.zoho.eu, .in, .com.au, .jp, .ca, .sa, .com.cn).
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { errorBodyAs400 } from './_http.js';

/** `GET /oauth/user/info` with scope `AaaServer.profile.Read`. */
export interface ZohoProfile {
  ZUID: number;
  First_Name: string;
  Last_Name: string;
  Display_Name: string;
  Email: string;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<ZohoProfile>({
  id: 'zoho',
  name: 'Zoho',
  type: 'oauth',
  defaultIssuer: 'https://accounts.zoho.com',
  authorization: { url: '/oauth/v2/auth', params: { scope: 'AaaServer.profile.Read' } },
  // A bad code is answered with status 200 and `{ error: 'invalid_code' }`.
  token: { url: '/oauth/v2/token', conform: errorBodyAs400 },
  userinfo: '/oauth/user/info',
  checks: ['state'],
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({
    id: String(p.ZUID),
    name: p.Display_Name || [p.First_Name, p.Last_Name].filter(Boolean).join(' ') || null,
    email: p.Email || null,
    image: null,
  }),
  style: { brandColor: '#e42527' },
});

/**
 * Sign in with Zoho. Reads `AUTH_ZOHO_ID`, `_SECRET` and `_ISSUER` (the accounts server of your data centre).
 *
 * @example
 * Zoho({ issuer: 'https://accounts.zoho.eu' })
 */
export default function Zoho(options?: OAuthUserConfig<ZohoProfile>): OAuthConfig<ZohoProfile> {
  return preset(options);
}
