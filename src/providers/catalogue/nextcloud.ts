// Nextcloud's OAuth 2 app. The issuer is the server's URL, with its sub-path if it has one
// (https://cloud.example.com/nextcloud); the user comes from the OCS API.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { bearer, fetchJson, userinfoUrl } from './_http.js';

/** `data` of `GET /ocs/v2.php/cloud/user?format=json`; `avatar` is added by authchart (the server's avatar URL). */
export interface NextcloudProfile {
  id: string;
  displayname: string | null;
  email: string | null;
  enabled?: boolean;
  groups?: string[];
  language?: string;
  locale?: string;
  quota?: Record<string, unknown>;
  avatar: string;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<NextcloudProfile>({
  id: 'nextcloud',
  name: 'Nextcloud',
  type: 'oauth',
  authorization: '/apps/oauth2/authorize',
  token: '/apps/oauth2/api/v1/token',
  userinfo: {
    url: '/ocs/v2.php/cloud/user',
    params: { format: 'json' },
    async request({ tokens, provider }) {
      const url = userinfoUrl(provider.userinfo);
      // OCS answers only requests that say they are OCS API requests.
      const { ocs } = await fetchJson<{ ocs: { data: NextcloudProfile } }>(url, { headers: { ...bearer(tokens), 'ocs-apirequest': 'true' } });
      const base = url.href.slice(0, url.href.indexOf('/ocs/v2.php/'));
      return { ...ocs.data, avatar: `${base}/index.php/avatar/${encodeURIComponent(ocs.data.id)}/512` };
    },
  },
  checks: ['state'],
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({ id: p.id, name: p.displayname || p.id, email: p.email || null, image: p.avatar }),
  style: { brandColor: '#0082c9' },
});

/**
 * Sign in with a Nextcloud server. Reads `AUTH_NEXTCLOUD_ID`, `_SECRET` and `_ISSUER` (the server's URL).
 *
 * @example
 * Nextcloud({ issuer: 'https://cloud.example.com' })
 */
export default function Nextcloud(options?: OAuthUserConfig<NextcloudProfile>): OAuthConfig<NextcloudProfile> {
  return preset(options);
}
