// Pipedrive OAuth 2 apps (the Marketplace). The client authenticates with Basic auth at the token endpoint.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET /v1/users/me` answers `{ success, data: PipedriveProfile['data'] }`. */
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
  userinfo: 'https://api.pipedrive.com/v1/users/me',
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
