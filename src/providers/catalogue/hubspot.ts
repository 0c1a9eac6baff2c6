// HubSpot, OAuth 2. There is no user-info endpoint: the access token's own metadata (token in the URL path)
// names the user, by e-mail, and the portal (hub).
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { fetchJson, userinfoUrl } from './_http.js';

/** `GET https://api.hubapi.com/oauth/v1/access-tokens/{token}`. */
export interface HubSpotProfile {
  token: string;
  /** The user's e-mail address. */
  user: string;
  user_id: number;
  hub_domain: string;
  hub_id: number;
  app_id: number;
  scopes: string[];
  expires_in: number;
  token_type: string;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<HubSpotProfile>({
  id: 'hubspot',
  name: 'HubSpot',
  type: 'oauth',
  authorization: { url: 'https://app.hubspot.com/oauth/authorize', params: { scope: 'oauth' } },
  token: 'https://api.hubapi.com/oauth/v1/token',
  userinfo: {
    url: 'https://api.hubapi.com/oauth/v1/access-tokens',
    request: ({ tokens, provider }) => {
      const url = userinfoUrl(provider.userinfo);
      url.pathname = `${url.pathname.replace(/\/$/, '')}/${encodeURIComponent(String(tokens.access_token ?? ''))}`;
      return fetchJson<HubSpotProfile>(url);
    },
  },
  client: { token_endpoint_auth_method: 'client_secret_post' },
  checks: ['state'],
  profile: (p) => ({ id: String(p.user_id), name: p.user, email: p.user ?? null, image: null }),
  style: { brandColor: '#ff7a59' },
});

/**
 * Sign in with HubSpot. Reads `AUTH_HUBSPOT_ID` / `AUTH_HUBSPOT_SECRET`.
 *
 * @example
 * HubSpot({ authorization: { params: { scope: 'oauth crm.objects.contacts.read' } } })
 */
export default function HubSpot(options?: OAuthUserConfig<HubSpotProfile>): OAuthConfig<HubSpotProfile> {
  return preset(options);
}
