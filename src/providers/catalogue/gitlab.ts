// GitLab (gitlab.com; self-managed instances by overriding the endpoint URLs).
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET /api/v4/user` with scope `read_user`. */
export interface GitLabProfile {
  id: number;
  username: string;
  name: string;
  state: string;
  avatar_url: string | null;
  web_url: string;
  email: string;
  public_email?: string | null;
  bio?: string;
  location?: string | null;
  created_at: string;
  confirmed_at?: string;
  two_factor_enabled?: boolean;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<GitLabProfile>({
  id: 'gitlab',
  name: 'GitLab',
  type: 'oauth',
  authorization: { url: 'https://gitlab.com/oauth/authorize', params: { scope: 'read_user' } },
  token: 'https://gitlab.com/oauth/token',
  userinfo: 'https://gitlab.com/api/v4/user',
  profile: (p) => ({ id: String(p.id), name: p.name || p.username, email: p.email ?? null, image: p.avatar_url }),
  style: { brandColor: '#fc6d26' },
});

/**
 * Sign in with GitLab. Reads `AUTH_GITLAB_ID` / `AUTH_GITLAB_SECRET`.
 *
 * @example
 * GitLab({ authorization: 'https://git.corp.test/oauth/authorize', token: 'https://git.corp.test/oauth/token', userinfo: 'https://git.corp.test/api/v4/user' })
 */
export default function GitLab(options?: OAuthUserConfig<GitLabProfile>): OAuthConfig<GitLabProfile> {
  return preset(options);
}
