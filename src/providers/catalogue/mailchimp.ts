// Mailchimp (Intuit) OAuth 2 apps. Tokens never expire; the account's data centre comes with the metadata.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { fetchJson, reshapeTokens, userinfoUrl } from './_http.js';

/** `GET /oauth2/metadata`: the account the token belongs to, and the login that authorised it. */
export interface MailchimpProfile {
  dc: string;
  role: string;
  accountname: string;
  user_id: number;
  login: { email: string; avatar: string | null; login_id: number; login_name: string; login_email: string };
  login_url: string;
  api_endpoint: string;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<MailchimpProfile>({
  id: 'mailchimp',
  name: 'Mailchimp',
  type: 'oauth',
  authorization: 'https://login.mailchimp.com/oauth2/authorize',
  token: {
    url: 'https://login.mailchimp.com/oauth2/token',
    // The answer is `{ access_token, expires_in: 0, scope: null }`: no token_type, a null scope, and 0 for never.
    conform: reshapeTokens(({ scope, expires_in, ...body }) => ({
      token_type: 'bearer',
      ...body,
      ...(typeof scope === 'string' ? { scope } : {}),
      ...(expires_in ? { expires_in } : {}),
    })),
  },
  userinfo: {
    url: 'https://login.mailchimp.com/oauth2/metadata',
    // The metadata endpoint takes the token as `Authorization: OAuth <token>`.
    request: ({ tokens, provider }) =>
      fetchJson<MailchimpProfile>(userinfoUrl(provider.userinfo), { headers: { authorization: `OAuth ${tokens.access_token ?? ''}` } }),
  },
  checks: ['state'],
  client: { token_endpoint_auth_method: 'client_secret_post' },
  profile: (p) => ({ id: String(p.login.login_id), name: p.accountname, email: p.login.email, image: p.login.avatar || null }),
  style: { brandColor: '#241c15' },
});

/**
 * Sign in with Mailchimp. Reads `AUTH_MAILCHIMP_ID` / `AUTH_MAILCHIMP_SECRET`.
 *
 * @example
 * providers: [Mailchimp()]
 */
export default function Mailchimp(options?: OAuthUserConfig<MailchimpProfile>): OAuthConfig<MailchimpProfile> {
  return preset(options);
}
