// GitHub OAuth apps (github.com; GitHub Enterprise Server by overriding the three endpoint URLs).
import type { TokenSet } from '../../core/types.js';
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { bearer, errorBodyAs400, fetchJson, userinfoUrl } from './_http.js';

/** The signed-in user, `GET /user` of the REST API. */
export interface GitHubProfile {
  login: string;
  id: number;
  node_id: string;
  avatar_url: string;
  gravatar_id: string | null;
  html_url: string;
  type: string;
  site_admin: boolean;
  name: string | null;
  company: string | null;
  blog: string | null;
  location: string | null;
  email: string | null;
  hireable: boolean | null;
  bio: string | null;
  twitter_username?: string | null;
  public_repos: number;
  followers: number;
  following: number;
  created_at: string;
  updated_at: string;
  [key: string]: unknown;
}

/** An entry of `GET /user/emails`. */
export interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
  visibility: 'public' | 'private' | null;
}

const apiHeaders = (tokens: TokenSet) => ({
  ...bearer(tokens),
  accept: 'application/vnd.github+json',
  'user-agent': 'authchart',
  'x-github-api-version': '2022-11-28',
});

const preset = /* @__PURE__ */ definePreset<GitHubProfile>({
  id: 'github',
  name: 'GitHub',
  type: 'oauth',
  authorization: { url: 'https://github.com/login/oauth/authorize', params: { scope: 'read:user user:email' } },
  // GitHub answers a bad code with 200 and `{ error }`.
  token: { url: 'https://github.com/login/oauth/access_token', conform: errorBodyAs400 },
  userinfo: {
    url: 'https://api.github.com/user',
    async request({ tokens, provider }) {
      const url = userinfoUrl(provider.userinfo);
      const profile = await fetchJson<GitHubProfile>(url, { headers: apiHeaders(tokens) });
      // A private address shows as null on /user; /user/emails (scope user:email) still lists it.
      if (!profile.email) {
        const emails = await fetchJson<GitHubEmail[]>(`${url.origin}${url.pathname}/emails`, { headers: apiHeaders(tokens) }).catch(
          () => [] as GitHubEmail[],
        );
        profile.email = (emails.find((e) => e.primary && e.verified) ?? emails.find((e) => e.verified))?.email ?? null;
      }
      return profile;
    },
  },
  profile: (p) => ({ id: String(p.id), name: p.name ?? p.login, email: p.email, image: p.avatar_url }),
  style: { brandColor: '#24292f' },
});

/**
 * Sign in with GitHub. Reads `AUTH_GITHUB_ID` / `AUTH_GITHUB_SECRET`.
 *
 * @example
 * providers: [GitHub()]  // or GitHub({ authorization: { params: { scope: 'read:user' } } })
 */
export default function GitHub(options?: OAuthUserConfig<GitHubProfile>): OAuthConfig<GitHubProfile> {
  return preset(options);
}
