// Mail.ru (VK) OAuth 2. `state` is mandatory, and the user-info endpoint takes the token in its query string.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { tokenInQuery, withTokenType } from './_http.js';

/** `GET https://oauth.mail.ru/userinfo?access_token=...` with scope `userinfo`. */
export interface MailruProfile {
  id: string;
  client_id: string;
  email: string;
  name?: string;
  first_name?: string;
  last_name?: string;
  nickname?: string;
  gender?: 'm' | 'f';
  birthday?: string;
  locale?: string;
  image?: string;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<MailruProfile>({
  id: 'mailru',
  name: 'Mail.ru',
  type: 'oauth',
  authorization: { url: 'https://oauth.mail.ru/login', params: { scope: 'userinfo' } },
  // The token answer may leave out token_type; the token is a bearer token.
  token: { url: 'https://oauth.mail.ru/token', conform: withTokenType },
  userinfo: { url: 'https://oauth.mail.ru/userinfo', request: tokenInQuery('access_token') },
  checks: ['state'],
  profile: (p) => ({
    id: String(p.id),
    name: p.name || [p.first_name, p.last_name].filter(Boolean).join(' ') || p.nickname || null,
    email: p.email || null,
    image: p.image || null,
  }),
  style: { brandColor: '#005ff9' },
});

/**
 * Sign in with Mail.ru. Reads `AUTH_MAILRU_ID` / `AUTH_MAILRU_SECRET`.
 *
 * @example
 * providers: [Mailru()]
 */
export default function Mailru(options?: OAuthUserConfig<MailruProfile>): OAuthConfig<MailruProfile> {
  return preset(options);
}
