// Pipedrive OAuth 2 apps. The token response names the company's API domain, where the user is read.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { bearer, fetchJson, userinfoUrl } from './_http.js';

/** `GET /api/v1/users/me` answers `{ success, data: PipedriveProfile['data'] }`. */
export interface PipedriveProfile {
  success: boolean;
  data: {
    id: number;
    name: string;
    email: string;
    icon_url: string | null;
    company_id: number;
    company_name: string;
    company_domain: string;
    active_flag: boolean;
    is_admin: number;
    lang: number;
    locale: string;
    timezone_name: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<PipedriveProfile>({
  id: 'pipedrive',
  name: 'Pipedrive',
  type: 'oauth',
  authorization: 'https://oauth.pipedrive.com/oauth/authorize',
  token: 'https://oauth.pipedrive.com/oauth/token',
  userinfo: {
    url: 'https://api.pipedrive.com/api/v1/users/me',
    async request({ tokens, provider }) {
      const url = userinfoUrl(provider.userinfo);
      // `api_domain` (https://<company>.pipedrive.com) is the company's API host; only Pipedrive's own hosts are used.
      const domain = typeof tokens.api_domain === 'string' ? new URL(tokens.api_domain) : undefined;
      if (domain?.protocol === 'https:' && domain.hostname.endsWith('.pipedrive.com')) url.host = domain.host;
      return fetchJson<PipedriveProfile>(url, { headers: bearer(tokens) });
    },
  },
  checks: ['state'],
  profile: ({ data: p }) => ({ id: String(p.id), name: p.name, email: p.email || null, image: p.icon_url || null }),
  style: { brandColor: '#017737' },
});

/**
 * Sign in with Pipedrive. Reads `AUTH_PIPEDRIVE_ID` / `AUTH_PIPEDRIVE_SECRET`.
 *
 * @example
 * providers: [Pipedrive()]
 */
export default function Pipedrive(options?: OAuthUserConfig<PipedriveProfile>): OAuthConfig<PipedriveProfile> {
  return preset(options);
}
