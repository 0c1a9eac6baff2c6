// "Sign in with Slack" (OpenID Connect).
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';
import { errorBodyAs400 } from './_http.js';

/** ID token claims; Slack adds its own under `https://slack.com/...` names. */
export interface SlackProfile {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  picture?: string;
  given_name?: string;
  family_name?: string;
  locale?: string;
  'https://slack.com/user_id': string;
  'https://slack.com/team_id': string;
  'https://slack.com/team_name'?: string;
  'https://slack.com/team_domain'?: string;
  'https://slack.com/user_image_512'?: string;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<SlackProfile>({
  id: 'slack',
  name: 'Slack',
  type: 'oidc',
  issuer: 'https://slack.com',
  authorization: { url: 'https://slack.com/openid/connect/authorize', params: { scope: 'openid profile email' } },
  // Slack's Web API answers errors with 200 and `{ ok: false, error }`.
  token: { url: 'https://slack.com/api/openid.connect.token', conform: errorBodyAs400 },
  userinfo: 'https://slack.com/api/openid.connect.userInfo',
  jwks_endpoint: 'https://slack.com/openid/connect/keys',
  profile: (p) => ({
    id: p.sub,
    name: p.name ?? null,
    email: p.email ?? null,
    image: p['https://slack.com/user_image_512'] ?? p.picture ?? null,
  }),
  style: { brandColor: '#4a154b' },
});

/**
 * Sign in with Slack. Reads `AUTH_SLACK_ID` / `AUTH_SLACK_SECRET`.
 *
 * @example
 * Slack({ authorization: { params: { team: 'T0123456' } } })
 */
export default function Slack(options?: OIDCUserConfig<SlackProfile>): OIDCConfig<SlackProfile> {
  return preset(options);
}
