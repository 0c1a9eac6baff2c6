// Bitbucket Cloud OAuth consumers; scopes are set on the consumer, the e-mail needs `email`.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { bearer, fetchJson, userinfoUrl } from './_http.js';

/** `GET /2.0/user`, with `email` filled in by authchart from `/2.0/user/emails`. */
export interface BitbucketProfile {
  type: 'user';
  /** `{xxxxxxxx-...}`, braces included. */
  uuid: string;
  account_id: string;
  username?: string;
  nickname: string;
  display_name: string;
  account_status?: string;
  created_on: string;
  links: { avatar: { href: string }; html?: { href: string } };
  email?: string | null;
  [key: string]: unknown;
}

interface BitbucketEmails {
  values: { email: string; is_primary: boolean; is_confirmed: boolean; type: 'email' }[];
}

const preset = /* @__PURE__ */ definePreset<BitbucketProfile>({
  id: 'bitbucket',
  name: 'Bitbucket',
  type: 'oauth',
  authorization: 'https://bitbucket.org/site/oauth2/authorize',
  token: 'https://bitbucket.org/site/oauth2/access_token',
  userinfo: {
    url: 'https://api.bitbucket.org/2.0/user',
    async request({ tokens, provider }) {
      const url = userinfoUrl(provider.userinfo);
      const profile = await fetchJson<BitbucketProfile>(url, { headers: bearer(tokens) });
      const emails = await fetchJson<BitbucketEmails>(`${url.origin}${url.pathname}/emails`, { headers: bearer(tokens) }).catch(() => undefined);
      const primary = emails?.values.find((e) => e.is_primary && e.is_confirmed);
      return { ...profile, email: primary?.email ?? null };
    },
  },
  profile: (p) => ({ id: p.uuid, name: p.display_name || p.nickname, email: p.email ?? null, image: p.links?.avatar?.href ?? null }),
  style: { brandColor: '#0052cc' },
});

/**
 * Sign in with Bitbucket. Reads `AUTH_BITBUCKET_ID` / `AUTH_BITBUCKET_SECRET`.
 *
 * @example
 * providers: [Bitbucket()]
 */
export default function Bitbucket(options?: OAuthUserConfig<BitbucketProfile>): OAuthConfig<BitbucketProfile> {
  return preset(options);
}
