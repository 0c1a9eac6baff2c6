// Oracle NetSuite OAuth 2 (authorization code). Endpoints are per account; NetSuite has no standard user-info
// endpoint, so `userinfo` is a RESTlet of yours that answers the current user.
import { definePreset, mergeProviderOptions, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** What a RESTlet built on `runtime.getCurrentUser()` typically answers. */
export interface NetSuiteProfile {
  id: number;
  name: string;
  email: string;
  location?: number;
  role?: number;
  roleId?: string;
  subsidiary?: number;
  department?: number;
  [key: string]: unknown;
}

/** NetSuite-specific options: the account id (`1234567`, or `1234567_SB1` for a sandbox). */
export type NetSuiteOptions = OAuthUserConfig<NetSuiteProfile> & { accountID?: string };

const preset = /* @__PURE__ */ definePreset<NetSuiteProfile>({
  id: 'netsuite',
  name: 'NetSuite',
  type: 'oauth',
  authorization: { params: { scope: 'restlets rest_webservices' } },
  // NetSuite requires a state of 22 to 1024 characters; PKCE too for public clients.
  checks: ['pkce', 'state'],
  profile: (p) => ({ id: String(p.id), name: p.name || null, email: p.email || null, image: null }),
  style: { brandColor: '#125580' },
});

/**
 * Sign in with NetSuite. Reads `AUTH_NETSUITE_ID` / `AUTH_NETSUITE_SECRET`.
 *
 * @example
 * NetSuite({ accountID: '1234567_SB1', userinfo: 'https://1234567-sb1.restlets.api.netsuite.com/app/site/hosting/restlet.nl?script=42&deploy=1' })
 */
export default function NetSuite(options: NetSuiteOptions = {}): OAuthConfig<NetSuiteProfile> {
  const { accountID, ...rest } = options;
  if (accountID === undefined) return preset(rest);
  // Account ids go into host names in lower case, with `-` for `_` (1234567_SB1 -> 1234567-sb1).
  const host = accountID.toLowerCase().replace(/_/g, '-');
  const endpoints = preset({
    authorization: `https://${host}.app.netsuite.com/app/login/oauth2/authorize.nl`,
    token: `https://${host}.suitetalk.api.netsuite.com/services/rest/auth/oauth2/v1/token`,
  });
  return mergeProviderOptions(endpoints, rest);
}
