// Atlassian accounts (OAuth 2.0 3LO apps).
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET https://api.atlassian.com/me` with scope `read:me`. */
export interface AtlassianProfile {
  account_type: string;
  account_id: string;
  email: string;
  email_verified?: boolean;
  name: string;
  picture: string;
  account_status: string;
  nickname?: string;
  zoneinfo?: string;
  locale?: string;
  extended_profile?: { job_title?: string; organization?: string; department?: string; location?: string };
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<AtlassianProfile>({
  id: 'atlassian',
  name: 'Atlassian',
  type: 'oauth',
  // `audience` and `prompt=consent` are required by Atlassian's authorization endpoint.
  authorization: {
    url: 'https://auth.atlassian.com/authorize',
    params: { audience: 'api.atlassian.com', prompt: 'consent', scope: 'read:me' },
  },
  token: 'https://auth.atlassian.com/oauth/token',
  userinfo: 'https://api.atlassian.com/me',
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({ id: p.account_id, name: p.name, email: p.email, image: p.picture }),
  style: { brandColor: '#0052cc' },
});

/**
 * Sign in with Atlassian. Reads `AUTH_ATLASSIAN_ID` / `AUTH_ATLASSIAN_SECRET`.
 *
 * @example
 * Atlassian({ authorization: { params: { scope: 'read:me read:jira-user offline_access' } } })
 */
export default function Atlassian(options?: OAuthUserConfig<AtlassianProfile>): OAuthConfig<AtlassianProfile> {
  return preset(options);
}
