// Catalogue presets logto..zoho (and Microsoft Entra ID's default `common` issuer): authorization URL, token and
// user-info exchange against a fake of each provider's documented API (quirks included), and the user and account.
import { describe, expect, it } from 'vitest';
import { InvalidEndpoints } from '../../src/core/errors.js';
import {
  Logto, Mailchimp, Mailru, Mastodon, Mattermost, Medium, MicrosoftEntraID, Netlify, NetSuite, Nextcloud, OneLogin, OryHydra, Osso, Osu,
  Passage, Patreon, PingId, Pinterest, Pipedrive, Roblox, SimpleLogin, Threads, TikTok, Todoist, Trakt, UnitedEffects, Vipps, Webex, WeChat,
  Wikimedia, WordPress, WorkOS, Zoho,
} from '../../src/providers/catalogue/index.js';
import { buildAuthorizationUrl } from '../../src/providers/oauth-authorization-url.js';
import { normalizeOAuthProvider } from '../../src/providers/oauth-normalize.js';
import { describeExchangeCases, EXCHANGE_NOW, type ExchangeCase, type FakeReply, type FakeRequest } from './catalogue-exchange.js';

const NOW_S = EXCHANGE_NOW / 1000;
const OIDC = ['openid', 'profile', 'email'];
const bearer = (access_token: string, extra: Record<string, unknown> = {}) => ({ json: { access_token, token_type: 'Bearer', expires_in: 3600, ...extra } });
/** A route that first checks the request (throwing makes the fake answer 599, failing the case). */
const checked = (check: (req: FakeRequest) => void, reply: FakeReply) => (req: FakeRequest) => {
  check(req);
  return reply;
};
const want = (what: string, actual: unknown, expected: unknown) => {
  if (actual !== expected) throw new Error(`${what}: ${String(actual)} (expected ${String(expected)})`);
};

const TENANT = '9188040d-6c67-4c5b-b112-36a304b66dad';

const cases: Record<string, ExchangeCase> = {
  logto: {
    factory: Logto,
    options: { issuer: 'https://abc123.logto.app/oidc' },
    authorize: { url: 'https://abc123.logto.app/oidc/auth', scopes: ['openid', 'offline_access', 'profile', 'email'], params: { prompt: 'consent' } },
    token: { url: 'https://abc123.logto.app/oidc/token', reply: bearer('logto-at', { refresh_token: 'logto-rt', scope: 'openid offline_access profile email' }) },
    idToken: { sub: 'u7g2ab3kx9', name: null, username: 'ann', picture: 'https://cdn.logto.test/ann.png', email: 'Ann@Example.com', email_verified: true },
    user: { id: 'u7g2ab3kx9', name: 'ann', email: 'ann@example.com', image: 'https://cdn.logto.test/ann.png' },
    account: { access_token: 'logto-at', refresh_token: 'logto-rt', expires_at: NOW_S + 3600 },
  },
  mailchimp: {
    factory: Mailchimp,
    authorize: { url: 'https://login.mailchimp.com/oauth2/authorize' },
    // As documented: no token_type, a null scope, and expires_in 0 for a token that never expires.
    token: { url: 'https://login.mailchimp.com/oauth2/token', reply: { json: { access_token: 'mc-at', expires_in: 0, scope: null } } },
    routes: {
      'GET https://login.mailchimp.com/oauth2/metadata': checked((req) => want('authorization', req.headers.authorization, 'OAuth mc-at'), {
        json: {
          dc: 'us1', role: 'owner', accountname: 'Freddie Industries', user_id: 8675309,
          login: { email: 'Freddie@Example.com', avatar: null, login_id: 33334444, login_name: 'freddie', login_email: 'freddie@example.com' },
          login_url: 'https://login.mailchimp.com', api_endpoint: 'https://us1.api.mailchimp.com',
        },
      }),
    },
    user: { id: '33334444', name: 'Freddie Industries', email: 'freddie@example.com', image: null },
    account: { access_token: 'mc-at', token_type: 'bearer' },
  },
  mailru: {
    factory: Mailru,
    authorize: { url: 'https://oauth.mail.ru/login', scopes: ['userinfo'] },
    token: { url: 'https://oauth.mail.ru/token', reply: { json: { access_token: 'mr-at', refresh_token: 'mr-rt', expires_in: 3600 } } },
    routes: {
      // The token goes in the query string.
      'GET https://oauth.mail.ru/userinfo': checked((req) => want('access_token', req.url.searchParams.get('access_token'), 'mr-at'), {
        json: {
          id: '1234567890', client_id: 'client-123', gender: 'm', name: 'Иван Петров', first_name: 'Иван', last_name: 'Петров', nickname: 'ivan',
          locale: 'ru_RU', email: 'Ivan@Mail.ru', birthday: '01.01.1990', image: 'https://filin.mail.ru/pic?d=abc&width=180&height=180',
        },
      }),
    },
    user: { id: '1234567890', name: 'Иван Петров', email: 'ivan@mail.ru', image: 'https://filin.mail.ru/pic?d=abc&width=180&height=180' },
    account: { access_token: 'mr-at', refresh_token: 'mr-rt', token_type: 'bearer' },
  },
  mastodon: {
    factory: Mastodon,
    options: { issuer: 'https://mastodon.social' },
    authorize: { url: 'https://mastodon.social/oauth/authorize', scopes: ['read:accounts'] },
    token: { url: 'https://mastodon.social/oauth/token', reply: { json: { access_token: 'ma-at', token_type: 'Bearer', scope: 'read:accounts', created_at: NOW_S } } },
    routes: {
      'GET https://mastodon.social/api/v1/accounts/verify_credentials': {
        json: {
          id: '14715', username: 'trwnh', acct: 'trwnh', display_name: 'infinite love ⴳ', locked: false, bot: false, created_at: '2016-11-24T00:00:00.000Z',
          note: '<p>a</p>', url: 'https://mastodon.social/@trwnh', avatar: 'https://files.mastodon.social/accounts/avatars/000/014/715/original/a.png',
          avatar_static: 'https://files.mastodon.social/accounts/avatars/000/014/715/original/a.png', header: '', followers_count: 821, following_count: 178,
          statuses_count: 33120, source: { privacy: 'public', sensitive: false, language: '', note: 'a', fields: [] },
        },
      },
    },
    user: { id: '14715', name: 'infinite love ⴳ', email: null, image: 'https://files.mastodon.social/accounts/avatars/000/014/715/original/a.png' },
    account: { access_token: 'ma-at', scope: 'read:accounts' },
  },
  mattermost: {
    factory: Mattermost,
    options: { issuer: 'https://chat.example.com' },
    authorize: { url: 'https://chat.example.com/oauth/authorize' },
    token: { url: 'https://chat.example.com/oauth/access_token', reply: bearer('mm-at', { refresh_token: 'mm-rt', scope: 'user' }) },
    routes: {
      'GET https://chat.example.com/api/v4/users/me': {
        json: {
          id: 'ukyy6w7zrtgi8ybxdqe5tofm1e', username: 'ann', email: 'Ann@Example.com', email_verified: true, first_name: 'Ann', last_name: 'Lee', nickname: 'annie',
          position: '', roles: 'system_user', locale: 'en', create_at: 1700000000000, update_at: 1700000000000, delete_at: 0, auth_service: '',
        },
      },
    },
    user: { id: 'ukyy6w7zrtgi8ybxdqe5tofm1e', name: 'Ann Lee', email: 'ann@example.com', image: null },
    account: { access_token: 'mm-at', refresh_token: 'mm-rt' },
  },
  medium: {
    factory: Medium,
    authorize: { url: 'https://medium.com/m/oauth/authorize', scopes: ['basicProfile'] },
    // `scope` is an array and `expires_at` is in milliseconds.
    token: {
      url: 'https://api.medium.com/v1/tokens',
      reply: { status: 201, json: { token_type: 'Bearer', access_token: 'md-at', refresh_token: 'md-rt', scope: ['basicProfile'], expires_at: (NOW_S + 5184000) * 1000 } },
    },
    routes: {
      'GET https://api.medium.com/v1/me': {
        json: { data: { id: '5303d74c64f66366f00cb9b2a94f3251bf5', username: 'majelbstoat', name: 'Jamie Talbot', url: 'https://medium.com/@majelbstoat', imageUrl: 'https://images.medium.com/0*fkfQiTzT7TlUGGyI.png' } },
      },
    },
    user: { id: '5303d74c64f66366f00cb9b2a94f3251bf5', name: 'Jamie Talbot', email: null, image: 'https://images.medium.com/0*fkfQiTzT7TlUGGyI.png' },
    account: { access_token: 'md-at', refresh_token: 'md-rt', scope: 'basicProfile', expires_at: NOW_S + 5184000 },
  },
  netlify: {
    factory: Netlify,
    authorize: { url: 'https://app.netlify.com/authorize' },
    token: { url: 'https://api.netlify.com/oauth/token', reply: { json: { access_token: 'nf-at', token_type: 'Bearer', scope: 'public', created_at: NOW_S } } },
    routes: {
      'GET https://api.netlify.com/api/v1/user': {
        json: {
          id: '5b2a7f1e1e2a3b4c5d6e7f80', uid: null, full_name: 'Ann Lee', avatar_url: 'https://avatars.netlify.test/ann.png', email: 'Ann@Example.com',
          affiliate_id: '', site_count: 3, created_at: '2020-01-01T00:00:00.000Z', last_login: '2026-01-15T11:00:00.000Z', login_providers: ['github', 'email'],
        },
      },
    },
    user: { id: '5b2a7f1e1e2a3b4c5d6e7f80', name: 'Ann Lee', email: 'ann@example.com', image: 'https://avatars.netlify.test/ann.png' },
    account: { access_token: 'nf-at' },
  },
  netsuite: {
    factory: NetSuite,
    options: { accountID: '1234567_SB1', userinfo: 'https://1234567-sb1.restlets.api.netsuite.com/app/site/hosting/restlet.nl?script=42&deploy=1' },
    authorize: { url: 'https://1234567-sb1.app.netsuite.com/app/login/oauth2/authorize.nl', scopes: ['restlets', 'rest_webservices'] },
    // NetSuite sends expires_in as a string.
    token: { url: 'https://1234567-sb1.suitetalk.api.netsuite.com/services/rest/auth/oauth2/v1/token', reply: bearer('ns-at', { refresh_token: 'ns-rt', expires_in: '3600' }) },
    routes: {
      'GET https://1234567-sb1.restlets.api.netsuite.com/app/site/hosting/restlet.nl': checked((req) => want('script', req.url.searchParams.get('script'), '42'), {
        json: { id: 1234, name: 'Ann Lee', email: 'Ann@Example.com', location: 1, role: 3, roleId: 'administrator', subsidiary: 1, department: 0 },
      }),
    },
    user: { id: '1234', name: 'Ann Lee', email: 'ann@example.com', image: null },
    account: { access_token: 'ns-at', refresh_token: 'ns-rt', expires_at: NOW_S + 3600 },
  },
  nextcloud: {
    factory: Nextcloud,
    options: { issuer: 'https://cloud.example.com/nextcloud' },
    authorize: { url: 'https://cloud.example.com/nextcloud/apps/oauth2/authorize' },
    token: { url: 'https://cloud.example.com/nextcloud/apps/oauth2/api/v1/token', reply: bearer('nc-at', { refresh_token: 'nc-rt', user_id: 'frank' }) },
    routes: {
      'GET https://cloud.example.com/nextcloud/ocs/v2.php/cloud/user': checked(
        (req) => {
          want('OCS-APIRequest', req.headers['ocs-apirequest'], 'true');
          want('format', req.url.searchParams.get('format'), 'json');
        },
        {
          json: {
            ocs: {
              meta: { status: 'ok', statuscode: 200, message: 'OK' },
              data: { enabled: true, id: 'frank', displayname: 'Frank K.', email: 'Frank@Example.com', groups: ['admin'], language: 'en', locale: 'en_US', quota: { used: 0 } },
            },
          },
        },
      ),
    },
    user: { id: 'frank', name: 'Frank K.', email: 'frank@example.com', image: expect.stringMatching(/\/cloud\.example\.com\/nextcloud\/index\.php\/avatar\/frank\/512$/) },
    account: { access_token: 'nc-at', refresh_token: 'nc-rt' },
  },
  onelogin: {
    factory: OneLogin,
    options: { issuer: 'https://acme.onelogin.com/oidc/2' },
    authorize: { url: 'https://acme.onelogin.com/oidc/2/auth', scopes: OIDC },
    token: { url: 'https://acme.onelogin.com/oidc/2/token', reply: bearer('ol-at', { scope: 'openid profile email' }) },
    idToken: { sub: '52441788', email: 'Ann@Acme.test', preferred_username: 'ann', name: 'Ann Lee', given_name: 'Ann', family_name: 'Lee', sid: 'c2a1b3d4' },
    user: { id: '52441788', name: 'Ann Lee', email: 'ann@acme.test', image: null },
    account: { access_token: 'ol-at' },
  },
  // Auth.js's ory-hydra module makes the provider `hydra`.
  hydra: {
    factory: OryHydra,
    options: { issuer: 'https://auth.example.com' },
    authorize: { url: 'https://auth.example.com/oauth2/auth', scopes: ['openid', 'offline_access', 'profile', 'email'] },
    token: { url: 'https://auth.example.com/oauth2/token', reply: bearer('ory_at_abc', { refresh_token: 'ory_rt_abc', scope: 'openid offline_access profile email' }) },
    idToken: { sub: 'f7a1d0c2-3b4e-4f5a-8b6c-7d8e9f0a1b2c', email: 'Ann@Example.com', email_verified: true, name: 'Ann Lee', amr: ['pwd'], sid: 'a-sid' },
    user: { id: 'f7a1d0c2-3b4e-4f5a-8b6c-7d8e9f0a1b2c', name: 'Ann Lee', email: 'ann@example.com', image: null },
    account: { access_token: 'ory_at_abc', refresh_token: 'ory_rt_abc' },
  },
  osso: {
    factory: Osso,
    options: { issuer: 'https://demo.ossoapp.com' },
    authorize: { url: 'https://demo.ossoapp.com/oauth/authorize' },
    token: { url: 'https://demo.ossoapp.com/oauth/token', reply: bearer('osso-at', { expires_in: 600 }) },
    routes: {
      'GET https://demo.ossoapp.com/oauth/me': { json: { id: '1f6c2f4e-b9a0-4a89-9d8e-3f1c2b3a4d5e', email: 'Ann@Example.com', idp: 'Okta', requested: { domain: 'example.com' } } },
    },
    user: { id: '1f6c2f4e-b9a0-4a89-9d8e-3f1c2b3a4d5e', name: null, email: 'ann@example.com', image: null },
    account: { access_token: 'osso-at', expires_at: NOW_S + 600 },
  },
  osu: {
    factory: Osu,
    authorize: { url: 'https://osu.ppy.sh/oauth/authorize', scopes: ['identify'] },
    token: { url: 'https://osu.ppy.sh/oauth/token', reply: bearer('osu-at', { expires_in: 86400, refresh_token: 'osu-rt' }) },
    routes: {
      'GET https://osu.ppy.sh/api/v2/me': {
        json: {
          id: 7562902, username: 'mrekk', avatar_url: 'https://a.ppy.sh/7562902?1700000000.jpeg', country_code: 'AU', default_group: 'default', is_active: true,
          is_bot: false, is_online: false, is_supporter: true, join_date: '2015-12-03T00:00:00+00:00', playmode: 'osu', previous_usernames: ['ekk'],
        },
      },
    },
    user: { id: '7562902', name: 'mrekk', email: null, image: 'https://a.ppy.sh/7562902?1700000000.jpeg' },
    account: { access_token: 'osu-at', refresh_token: 'osu-rt', expires_at: NOW_S + 86400 },
  },
  passage: {
    factory: Passage,
    options: { issuer: 'https://my-app.withpassage.com' },
    authorize: { url: 'https://my-app.withpassage.com/authorize', scopes: ['openid', 'email'] },
    token: { url: 'https://my-app.withpassage.com/token', reply: bearer('psg-at', { scope: 'openid email' }) },
    idToken: { sub: 'p7aMhXrqXQMb3oGqKmEhQbZD', email: 'Ann@Example.com', email_verified: true, phone: '', phone_number_verified: false, client_id: 'client-123' },
    user: { id: 'p7aMhXrqXQMb3oGqKmEhQbZD', name: null, email: 'ann@example.com', image: null },
  },
  patreon: {
    factory: Patreon,
    authorize: { url: 'https://www.patreon.com/oauth2/authorize', scopes: ['identity', 'identity[email]'] },
    token: { url: 'https://www.patreon.com/api/oauth2/token', reply: bearer('pt-at', { expires_in: 2678400, refresh_token: 'pt-rt', scope: 'identity identity[email]', version: '0.0.1' }) },
    routes: {
      // JSON:API, with its own media type; only the fields asked for come back.
      'GET https://www.patreon.com/api/oauth2/v2/identity': checked((req) => want('fields[user]', req.url.searchParams.get('fields[user]')?.includes('email'), true), {
        headers: { 'content-type': 'application/vnd.api+json' },
        json: {
          data: { id: '2822191', type: 'user', attributes: { email: 'Ann@Example.com', full_name: 'Ann Lee', image_url: 'https://c8.patreon.com/2/200/2822191', is_email_verified: true, vanity: null } },
          links: { self: 'https://www.patreon.com/api/oauth2/v2/user/2822191' },
        },
      }),
    },
    user: { id: '2822191', name: 'Ann Lee', email: 'ann@example.com', image: 'https://c8.patreon.com/2/200/2822191' },
    account: { access_token: 'pt-at', refresh_token: 'pt-rt' },
  },
  'ping-id': {
    factory: PingId,
    options: { issuer: 'https://auth.pingone.com/2b8d1c7a-6e4f-4f5c-9d2e-3c1a5b7e9f00/as' },
    authorize: { url: 'https://auth.pingone.com/2b8d1c7a-6e4f-4f5c-9d2e-3c1a5b7e9f00/as/authorize', scopes: OIDC },
    token: { url: 'https://auth.pingone.com/2b8d1c7a-6e4f-4f5c-9d2e-3c1a5b7e9f00/as/token', reply: bearer('ping-at', { scope: 'openid profile email' }) },
    idToken: {
      sub: '6f2f3c0e-1a2b-4c3d-9e8f-7a6b5c4d3e2f', email: 'Ann@Example.com', given_name: 'Ann', family_name: 'Lee', preferred_username: 'ann',
      env: '2b8d1c7a-6e4f-4f5c-9d2e-3c1a5b7e9f00', org: '0a1b2c3d-4e5f-4061-8273-9a8b7c6d5e4f',
    },
    user: { id: '6f2f3c0e-1a2b-4c3d-9e8f-7a6b5c4d3e2f', name: 'ann', email: 'ann@example.com', image: null },
  },
  pinterest: {
    factory: Pinterest,
    authorize: { url: 'https://www.pinterest.com/oauth/', scopes: ['user_accounts:read'] },
    token: {
      url: 'https://api.pinterest.com/v5/oauth/token',
      reply: bearer('pina_AMA', { token_type: 'bearer', response_type: 'authorization_code', expires_in: 2592000, refresh_token: 'pinr_AQA', refresh_token_expires_in: 31536000, scope: 'user_accounts:read' }),
    },
    routes: {
      'GET https://api.pinterest.com/v5/user_account': {
        json: {
          account_type: 'PINNER', id: '549755885175', profile_image: 'https://i.pinimg.com/280x280_RS/42/03/a5/4203a57a78f6f1b1e8a5c4b8c0a5f0e3.jpg',
          website_url: 'https://example.com', username: 'annlee', about: '', business_name: null, board_count: 12, pin_count: 340, follower_count: 10,
          following_count: 20, monthly_views: 1000,
        },
      },
    },
    user: { id: '549755885175', name: 'annlee', email: null, image: 'https://i.pinimg.com/280x280_RS/42/03/a5/4203a57a78f6f1b1e8a5c4b8c0a5f0e3.jpg' },
    account: { access_token: 'pina_AMA', refresh_token: 'pinr_AQA' },
  },
  pipedrive: {
    factory: Pipedrive,
    authorize: { url: 'https://oauth.pipedrive.com/oauth/authorize' },
    token: { url: 'https://oauth.pipedrive.com/oauth/token', reply: bearer('pd-at', { refresh_token: 'pd-rt', scope: 'base', expires_in: 3599, api_domain: 'https://acme.pipedrive.com' }) },
    routes: {
      'GET https://api.pipedrive.com/v1/users/me': {
        json: {
          success: true,
          data: {
            id: 123, name: 'Ann Lee', email: 'Ann@Example.com', icon_url: 'https://pipedrive-profile-pics.s3.amazonaws.com/ann.png', company_id: 77, company_name: 'Acme',
            company_domain: 'acme', active_flag: true, is_admin: 1, lang: 1, locale: 'en_US', timezone_name: 'Europe/Tallinn',
          },
        },
      },
    },
    user: { id: '123', name: 'Ann Lee', email: 'ann@example.com', image: 'https://pipedrive-profile-pics.s3.amazonaws.com/ann.png' },
    account: { access_token: 'pd-at', refresh_token: 'pd-rt', expires_at: NOW_S + 3599 },
  },
  roblox: {
    factory: Roblox,
    authorize: { url: 'https://apis.roblox.com/oauth/v1/authorize', scopes: ['openid', 'profile'] },
    token: { url: 'https://apis.roblox.com/oauth/v1/token', reply: bearer('rbx-at', { expires_in: 899, refresh_token: 'rbx-rt', scope: 'openid profile' }) },
    idToken: {
      sub: '1516563360', name: 'Example Display', nickname: 'Example Display', preferred_username: 'exampleuser', created_at: 1584682495,
      profile: 'https://www.roblox.com/users/1516563360/profile', picture: 'https://tr.rbxcdn.com/30DAY-AvatarHeadshot-1516563360/150/150/AvatarHeadshot/Png',
    },
    user: { id: '1516563360', name: 'Example Display', email: null, image: 'https://tr.rbxcdn.com/30DAY-AvatarHeadshot-1516563360/150/150/AvatarHeadshot/Png' },
    account: { access_token: 'rbx-at', refresh_token: 'rbx-rt', expires_at: NOW_S + 899 },
  },
  simplelogin: {
    factory: SimpleLogin,
    authorize: { url: 'https://app.simplelogin.io/oauth2/authorize', scopes: OIDC },
    token: { url: 'https://app.simplelogin.io/oauth2/token', reply: bearer('sl-at', { scope: 'openid profile email' }) },
    // The address is usually a forwarding alias.
    idToken: { sub: '5123', email: 'Random.Alias42@SimpleLogin.co', email_verified: true, name: 'Ann', avatar_url: null, client: 'My App', id: 5123 },
    user: { id: '5123', name: 'Ann', email: 'random.alias42@simplelogin.co', image: null },
  },
  threads: {
    factory: Threads,
    authorize: { url: 'https://threads.net/oauth/authorize', scopes: ['threads_basic'] },
    // `{ access_token, user_id }` only: no token_type.
    token: { url: 'https://graph.threads.net/oauth/access_token', reply: { json: { access_token: 'THQVJ-short', user_id: 1784140000000001 } } },
    routes: {
      'GET https://graph.threads.net/v1.0/me': checked(
        (req) => {
          want('access_token', req.url.searchParams.get('access_token'), 'THQVJ-short');
          want('fields', req.url.searchParams.get('fields'), 'id,username,name,threads_profile_picture_url');
        },
        { json: { id: '1784140000000001', username: 'ann.lee', name: 'Ann Lee', threads_profile_picture_url: 'https://scontent.cdninstagram.com/v/t51.2885-19/ann.jpg' } },
      ),
    },
    user: { id: '1784140000000001', name: 'Ann Lee', email: null, image: 'https://scontent.cdninstagram.com/v/t51.2885-19/ann.jpg' },
    account: { access_token: 'THQVJ-short', token_type: 'bearer' },
  },
  tiktok: {
    factory: TikTok,
    authorize: { url: 'https://www.tiktok.com/v2/auth/authorize/', scopes: ['user.info.basic'], params: { client_key: 'client-123' } },
    token: {
      url: 'https://open.tiktokapis.com/v2/oauth/token/',
      check: (req) => {
        expect(req.form.get('client_key')).toBe('client-123');
        expect(req.form.get('client_secret')).toBe('secret-456');
        expect(req.form.get('grant_type')).toBe('authorization_code');
        expect(req.form.get('redirect_uri')).toBe('https://app.test/auth/callback/tiktok');
      },
      reply: {
        json: {
          access_token: 'act.example12345Example12345Example', expires_in: 86400, open_id: 'afd97af1-b87b-48b9-ac98-410aghda5344', refresh_expires_in: 31536000,
          refresh_token: 'rft.example12345Example12345Example', scope: 'user.info.basic', token_type: 'Bearer',
        },
      },
    },
    routes: {
      'GET https://open.tiktokapis.com/v2/user/info/': checked((req) => want('fields', req.url.searchParams.get('fields'), 'open_id,union_id,avatar_url,display_name'), {
        json: {
          data: { user: { open_id: 'afd97af1-b87b-48b9-ac98-410aghda5344', union_id: '8c0d5a1e-1d7f-4f1b-9b5e-2c3d4e5f6a7b', avatar_url: 'https://p16-sign.tiktokcdn.test/a.jpeg', display_name: 'Tik Toker' } },
          error: { code: 'ok', message: '', log_id: '20220829194722CBE87ED59D524E727021' },
        },
      }),
    },
    user: { id: 'afd97af1-b87b-48b9-ac98-410aghda5344', name: 'Tik Toker', email: null, image: 'https://p16-sign.tiktokcdn.test/a.jpeg' },
    account: { access_token: 'act.example12345Example12345Example', refresh_token: 'rft.example12345Example12345Example', token_type: 'bearer', expires_at: NOW_S + 86400 },
  },
  // TikTok refuses a code with status 200 and an error body.
  'tiktok#refused': {
    factory: TikTok,
    authorize: { url: 'https://www.tiktok.com/v2/auth/authorize/', scopes: ['user.info.basic'] },
    token: { url: 'https://open.tiktokapis.com/v2/oauth/token/', reply: { json: { error: 'invalid_grant', error_description: 'Authorization code is expired.', log_id: '202208280256170102121980660A024C5E' } } },
    error: 'OAuthCallbackError',
  },
  todoist: {
    factory: Todoist,
    authorize: { url: 'https://todoist.com/oauth/authorize', scopes: ['data:read'] },
    token: { url: 'https://todoist.com/oauth/access_token', reply: { json: { access_token: '0123456789abcdef0123456789abcdef01234567', token_type: 'Bearer' } } },
    routes: {
      'GET https://api.todoist.com/api/v1/user': {
        json: {
          id: '2671355', email: 'Ann@Example.com', full_name: 'Ann Lee', avatar_big: 'https://dcff1xvirvpfp.cloudfront.net/ann_big.jpg',
          avatar_medium: 'https://dcff1xvirvpfp.cloudfront.net/ann_medium.jpg', is_premium: true, lang: 'en', tz_info: { timezone: 'Europe/Rome', gmt_string: '+01:00' },
        },
      },
    },
    user: { id: '2671355', name: 'Ann Lee', email: 'ann@example.com', image: 'https://dcff1xvirvpfp.cloudfront.net/ann_big.jpg' },
    account: { access_token: '0123456789abcdef0123456789abcdef01234567' },
  },
  trakt: {
    factory: Trakt,
    authorize: { url: 'https://trakt.tv/oauth/authorize' },
    token: { url: 'https://api.trakt.tv/oauth/token', reply: bearer('tk-at', { token_type: 'bearer', expires_in: 7776000, refresh_token: 'tk-rt', scope: 'public', created_at: NOW_S }) },
    routes: {
      'GET https://api.trakt.tv/users/me': checked(
        (req) => {
          want('trakt-api-key', req.headers['trakt-api-key'], 'client-123');
          want('trakt-api-version', req.headers['trakt-api-version'], '2');
          want('user-agent', Boolean(req.headers['user-agent']), true);
          want('extended', req.url.searchParams.get('extended'), 'full');
        },
        {
          json: {
            username: 'sean', private: false, name: 'Sean Rudford', vip: true, vip_ep: false, ids: { slug: 'sean', uuid: '5ae6b6e0-1b0e-4c4a-9b1d-2f3e4a5b6c7d' },
            joined_at: '2010-09-25T17:49:25.000Z', location: 'SF', about: 'I have all your cassette tapes.', gender: 'male', age: 35,
            images: { avatar: { full: 'https://walter-r2.trakt.tv/images/users/000/000/001/avatars/large/sean.jpg' } },
          },
        },
      ),
    },
    user: { id: 'sean', name: 'Sean Rudford', email: null, image: 'https://walter-r2.trakt.tv/images/users/000/000/001/avatars/large/sean.jpg' },
    account: { access_token: 'tk-at', refresh_token: 'tk-rt', expires_at: NOW_S + 7776000 },
  },
  'united-effects': {
    factory: UnitedEffects,
    options: { issuer: 'https://auth.unitedeffects.com/my-group' },
    authorize: { url: 'https://auth.unitedeffects.com/my-group/auth', scopes: ['openid', 'email', 'profile'] },
    token: { url: 'https://auth.unitedeffects.com/my-group/token', reply: bearer('ue-at', { scope: 'openid email profile' }) },
    idToken: { sub: '1c7b7a4e-7f3d-4e2b-9c1a-0b2c3d4e5f60', email: 'Ann@Example.com', email_verified: true, group: 'my-group' },
    user: { id: '1c7b7a4e-7f3d-4e2b-9c1a-0b2c3d4e5f60', name: null, email: 'ann@example.com', image: null },
  },
  vipps: {
    factory: Vipps,
    authorize: { url: 'https://api.vipps.no/access-management-1.0/access/oauth2/auth', scopes: ['openid', 'name', 'email', 'phoneNumber'] },
    token: { url: 'https://api.vipps.no/access-management-1.0/access/oauth2/token', reply: bearer('vp-at', { scope: 'openid name email phoneNumber api_version_2' }) },
    // The ID token names the subject only; the profile is the user-info endpoint's.
    idToken: { sub: 'c06c4afe-d9e1-4c5d-939a-177d752a0944' },
    discovery: { userinfo_endpoint: 'https://api.vipps.no/vipps-userinfo-api/userinfo' },
    routes: {
      'GET https://api.vipps.no/vipps-userinfo-api/userinfo': {
        json: {
          sub: 'c06c4afe-d9e1-4c5d-939a-177d752a0944', name: 'Ada Lovelace', given_name: 'Ada', family_name: 'Lovelace', email: 'User@Example.com',
          email_verified: true, phone_number: '4712345678', sid: '7d78a726-af92-499e-b857-de263ef9a969',
        },
      },
    },
    user: { id: 'c06c4afe-d9e1-4c5d-939a-177d752a0944', name: 'Ada Lovelace', email: 'user@example.com', image: null },
    account: { access_token: 'vp-at' },
  },
  webex: {
    factory: Webex,
    authorize: { url: 'https://webexapis.com/v1/authorize', scopes: ['spark:kms', 'spark:people_read'] },
    // No token_type in Webex's answer.
    token: { url: 'https://webexapis.com/v1/access_token', reply: { json: { access_token: 'wx-at', expires_in: 1209599, refresh_token: 'wx-rt', refresh_token_expires_in: 7775999 } } },
    routes: {
      'GET https://webexapis.com/v1/people/me': {
        json: {
          id: 'Y2lzY29zcGFyazovL3VzL1BFT1BMRS9mNWIzNjE4Ny1jOGRkLTQ3MjctOGIyZi1mOWM0NDdmMjkwNDY', emails: ['Ann@Example.com'], displayName: 'Ann Lee',
          nickName: 'Ann', firstName: 'Ann', lastName: 'Lee', avatar: 'https://avatar-prod-us-east-2.webexcontent.com/ann~1600', orgId: 'Y2lzY29zcGFyazovL3VzL09SR0FOSVpBVElPTi8x',
          type: 'person', created: '2015-10-18T14:26:16.000Z',
        },
      },
    },
    user: { id: 'Y2lzY29zcGFyazovL3VzL1BFT1BMRS9mNWIzNjE4Ny1jOGRkLTQ3MjctOGIyZi1mOWM0NDdmMjkwNDY', name: 'Ann Lee', email: 'ann@example.com', image: 'https://avatar-prod-us-east-2.webexcontent.com/ann~1600' },
    account: { access_token: 'wx-at', refresh_token: 'wx-rt', token_type: 'bearer', expires_at: NOW_S + 1209599 },
  },
  wechat: {
    factory: WeChat,
    authorize: { url: 'https://open.weixin.qq.com/connect/oauth2/authorize', scopes: ['snsapi_userinfo'], clientIdParam: 'appid' },
    // A GET with appid and secret in the query; JSON served as text/plain.
    token: {
      url: 'https://api.weixin.qq.com/sns/oauth2/access_token',
      method: 'GET',
      check: (req) => {
        const q = req.url.searchParams;
        expect([q.get('appid'), q.get('secret'), q.get('grant_type')]).toEqual(['client-123', 'secret-456', 'authorization_code']);
      },
      reply: {
        headers: { 'content-type': 'text/plain' },
        json: { access_token: 'WX_ACCESS_TOKEN', expires_in: 7200, refresh_token: 'WX_REFRESH_TOKEN', openid: 'oLVPpjqs9BhvzwPj5A-vTYAX3GLc', scope: 'snsapi_userinfo', unionid: 'o6_bmasdasdsad6_2sgVt7hMZOPfL' },
      },
    },
    routes: {
      'GET https://api.weixin.qq.com/sns/userinfo': checked((req) => want('openid', req.url.searchParams.get('openid'), 'oLVPpjqs9BhvzwPj5A-vTYAX3GLc'), {
        headers: { 'content-type': 'text/plain' },
        json: {
          openid: 'oLVPpjqs9BhvzwPj5A-vTYAX3GLc', nickname: '小明', sex: 1, province: '广东', city: '广州', country: '中国',
          headimgurl: 'https://thirdwx.qlogo.cn/mmopen/g3MonUZtNHkdmzicIlibx6iaFqAc56vxLSUfpb6n5WKSYVY0ChQKkiaJSgQ1dZuTOgvLLrhJbERQQ4eMsv84eavHiaiceqxibJxCfHe/0',
          privilege: [], unionid: 'o6_bmasdasdsad6_2sgVt7hMZOPfL',
        },
      }),
    },
    user: {
      id: 'o6_bmasdasdsad6_2sgVt7hMZOPfL', name: '小明', email: null,
      image: 'https://thirdwx.qlogo.cn/mmopen/g3MonUZtNHkdmzicIlibx6iaFqAc56vxLSUfpb6n5WKSYVY0ChQKkiaJSgQ1dZuTOgvLLrhJbERQQ4eMsv84eavHiaiceqxibJxCfHe/0',
    },
    account: { access_token: 'WX_ACCESS_TOKEN', refresh_token: 'WX_REFRESH_TOKEN', token_type: 'bearer', expires_at: NOW_S + 7200 },
  },
  'wechat#website': {
    factory: WeChat,
    options: { platformType: 'WebsiteApp' },
    authorize: { url: 'https://open.weixin.qq.com/connect/qrconnect', scopes: ['snsapi_login'], clientIdParam: 'appid' },
    token: { url: 'https://api.weixin.qq.com/sns/oauth2/access_token', method: 'GET', reply: { json: { access_token: 'WX_AT_2', expires_in: 7200, openid: 'oOPENID2', scope: 'snsapi_login' } } },
    routes: { 'GET https://api.weixin.qq.com/sns/userinfo': { json: { openid: 'oOPENID2', nickname: 'Wei', sex: 0, province: '', city: '', country: '', headimgurl: '', privilege: [] } } },
    // Without an Open Platform binding there is no unionid: the openid is the user.
    user: { id: 'oOPENID2', name: 'Wei', email: null, image: null },
  },
  // WeChat reports errors with status 200 and `{ errcode, errmsg }`.
  'wechat#errcode': {
    factory: WeChat,
    authorize: { url: 'https://open.weixin.qq.com/connect/oauth2/authorize', scopes: ['snsapi_userinfo'], clientIdParam: 'appid' },
    token: { url: 'https://api.weixin.qq.com/sns/oauth2/access_token', method: 'GET', reply: { json: { errcode: 40029, errmsg: 'invalid code' } } },
    error: 'OAuthCallbackError',
  },
  wikimedia: {
    factory: Wikimedia,
    authorize: { url: 'https://meta.wikimedia.org/w/rest.php/oauth2/authorize' },
    token: { url: 'https://meta.wikimedia.org/w/rest.php/oauth2/access_token', reply: bearer('wm-at', { expires_in: 14400, refresh_token: 'wm-rt' }) },
    routes: {
      'GET https://meta.wikimedia.org/w/rest.php/oauth2/resource/profile': checked((req) => want('user-agent', Boolean(req.headers['user-agent']), true), {
        json: {
          sub: 12345678, username: 'Ann Lee', editcount: 42, confirmed_email: true, blocked: false, registered: '20200101000000',
          groups: ['*', 'user', 'autoconfirmed'], rights: ['read', 'edit'], realname: '', email: 'Ann@Example.com',
        },
      }),
    },
    user: { id: '12345678', name: 'Ann Lee', email: 'ann@example.com', image: null },
    account: { access_token: 'wm-at', refresh_token: 'wm-rt', expires_at: NOW_S + 14400 },
  },
  'wikimedia#unconfirmed': {
    factory: Wikimedia,
    authorize: { url: 'https://meta.wikimedia.org/w/rest.php/oauth2/authorize' },
    token: { url: 'https://meta.wikimedia.org/w/rest.php/oauth2/access_token', reply: bearer('wm-at-2') },
    routes: {
      'GET https://meta.wikimedia.org/w/rest.php/oauth2/resource/profile': {
        json: { sub: 87654321, username: 'Bob', editcount: 0, confirmed_email: false, blocked: false, registered: '20260101000000', groups: ['*'], rights: ['read'], email: 'bob@example.com' },
      },
    },
    // An unconfirmed address is not passed on.
    user: { id: '87654321', name: 'Bob', email: null, image: null },
  },
  wordpress: {
    factory: WordPress,
    authorize: { url: 'https://public-api.wordpress.com/oauth2/authorize', scopes: ['auth'] },
    token: { url: 'https://public-api.wordpress.com/oauth2/token', reply: { json: { access_token: 'wp-at', blog_id: '0', blog_url: null, token_type: 'bearer', scope: 'auth' } } },
    routes: {
      'GET https://public-api.wordpress.com/rest/v1/me': {
        json: {
          ID: 18342963, display_name: 'Ann Lee', username: 'annlee', email: 'Ann@Example.com', email_verified: true, primary_blog: 1234, language: 'en',
          avatar_URL: 'https://0.gravatar.com/avatar/abc?s=96&d=identicon', profile_URL: 'https://gravatar.com/annlee', verified: true, site_count: 1,
        },
      },
    },
    user: { id: '18342963', name: 'Ann Lee', email: 'ann@example.com', image: 'https://0.gravatar.com/avatar/abc?s=96&d=identicon' },
    account: { access_token: 'wp-at', scope: 'auth' },
  },
  workos: {
    factory: WorkOS,
    options: { connection: 'conn_01E4ZCR3C56J083X43JQXF3JK5' },
    authorize: { url: 'https://api.workos.com/sso/authorize', params: { connection: 'conn_01E4ZCR3C56J083X43JQXF3JK5' } },
    token: {
      url: 'https://api.workos.com/sso/token',
      // `{ access_token, profile }`, no token_type.
      reply: { json: { access_token: '01DMEK0J53CVMC32CK5SE0KZ8Q', profile: { object: 'profile', id: 'prof_01DMC79VCBZ0NY2099737PSVF1', email: 'todd@example.com' } } },
    },
    routes: {
      'GET https://api.workos.com/sso/profile': {
        json: {
          object: 'profile', id: 'prof_01DMC79VCBZ0NY2099737PSVF1', idp_id: '00u1a0ufowBJlzPlk357', organization_id: 'org_01EHQMYV6MBK39QC5PZXHY59C3',
          connection_id: 'conn_01E4ZCR3C56J083X43JQXF3JK5', connection_type: 'OktaSAML', email: 'Todd@Example.com', first_name: 'Todd', last_name: 'Rundgren',
          role: { slug: 'admin' }, groups: ['Engineering'], raw_attributes: { picture: 'https://okta.example.com/todd.png' },
        },
      },
    },
    user: { id: 'prof_01DMC79VCBZ0NY2099737PSVF1', name: 'Todd Rundgren', email: 'todd@example.com', image: 'https://okta.example.com/todd.png' },
    account: { access_token: '01DMEK0J53CVMC32CK5SE0KZ8Q', token_type: 'bearer' },
  },
  zoho: {
    factory: Zoho,
    authorize: { url: 'https://accounts.zoho.com/oauth/v2/auth', scopes: ['AaaServer.profile.Read'] },
    token: { url: 'https://accounts.zoho.com/oauth/v2/token', reply: bearer('1000.zoho-at', { api_domain: 'https://www.zohoapis.com', refresh_token: '1000.zoho-rt' }) },
    routes: {
      'GET https://accounts.zoho.com/oauth/user/info': { json: { First_Name: 'Ann', Email: 'Ann@Zylker.com', Last_Name: 'Lee', Display_Name: 'ann.lee', ZUID: 654321987 } },
    },
    user: { id: '654321987', name: 'ann.lee', email: 'ann@zylker.com', image: null },
    account: { access_token: '1000.zoho-at', refresh_token: '1000.zoho-rt' },
  },
  // Another data centre: every endpoint moves with the issuer.
  'zoho#eu': {
    factory: Zoho,
    options: { issuer: 'https://accounts.zoho.eu' },
    authorize: { url: 'https://accounts.zoho.eu/oauth/v2/auth', scopes: ['AaaServer.profile.Read'] },
    token: { url: 'https://accounts.zoho.eu/oauth/v2/token', reply: bearer('1000.eu-at', { api_domain: 'https://www.zohoapis.eu' }) },
    routes: { 'GET https://accounts.zoho.eu/oauth/user/info': { json: { First_Name: 'Jan', Email: 'jan@zylker.eu', Last_Name: 'Jansen', Display_Name: '', ZUID: 20001 } } },
    user: { id: '20001', name: 'Jan Jansen', email: 'jan@zylker.eu', image: null },
  },
  // Zoho answers a bad code with status 200 and `{ error: 'invalid_code' }`.
  'zoho#invalid-code': {
    factory: Zoho,
    authorize: { url: 'https://accounts.zoho.com/oauth/v2/auth' },
    token: { url: 'https://accounts.zoho.com/oauth/v2/token', reply: { json: { error: 'invalid_code' } } },
    error: 'OAuthCallbackError',
  },
  // No issuer given: the multi-tenant `common` endpoint, whose discovery names `{tenantid}`; the token is held to its own tenant.
  'microsoft-entra-id#common': {
    factory: MicrosoftEntraID,
    authorize: { url: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize', scopes: OIDC },
    token: { url: 'https://login.microsoftonline.com/common/oauth2/v2.0/token', reply: bearer('eyJ0eXAi.entra-common', { ext_expires_in: 3600, scope: 'openid profile email' }) },
    discovery: { jwks_uri: 'https://login.microsoftonline.com/common/discovery/v2.0/keys' },
    routes: {
      'GET https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration': (_req, ctx) => ({
        json: {
          issuer: ctx.fake('https://login.microsoftonline.com/{tenantid}/v2.0'),
          authorization_endpoint: ctx.fake('https://login.microsoftonline.com/common/oauth2/v2.0/authorize'),
          token_endpoint: ctx.fake('https://login.microsoftonline.com/common/oauth2/v2.0/token'),
          jwks_uri: ctx.fake('https://login.microsoftonline.com/common/discovery/v2.0/keys'),
          response_types_supported: ['code', 'id_token', 'code id_token'], subject_types_supported: ['pairwise'], id_token_signing_alg_values_supported: ['RS256'],
        },
      }),
    },
    idToken: {
      iss: `https://login.microsoftonline.com/${TENANT}/v2.0`, tid: TENANT, ver: '2.0', sub: 'AAAAAAAAAAAAAAAAAAAAAGkzqFVrSaSaFHy782bbtaQ',
      oid: '00000000-0000-0000-66f3-3332eca7ea81', name: 'Megan Bowen', preferred_username: 'megan@outlook.com', email: 'Megan@Outlook.com',
    },
    user: { id: 'AAAAAAAAAAAAAAAAAAAAAGkzqFVrSaSaFHy782bbtaQ', name: 'Megan Bowen', email: 'megan@outlook.com', image: null },
  },
};

describeExchangeCases('catalogue exchange: logto..zoho', cases);

describe('catalogue logto..zoho: what the exchange harness does not see', () => {
  const callbackUrl = (id: string) => `https://app.test/auth/callback/${id}`;
  const urlOf = (config: ReturnType<typeof WeChat>, state?: string) => {
    const p = normalizeOAuthProvider(config, { env: {}, callbackUrl: callbackUrl(config.id) });
    return buildAuthorizationUrl(p, p.authorization.url!, { redirectUri: p.redirectUri, state });
  };

  it("WeChat: appid instead of client_id, WeChat's parameter order, and #wechat_redirect", () => {
    const url = urlOf(WeChat({ clientId: 'wx520c15f417810387' }), 'st-1');
    expect(url.href).toBe(
      `https://open.weixin.qq.com/connect/oauth2/authorize?appid=wx520c15f417810387&redirect_uri=${encodeURIComponent(callbackUrl('wechat'))}` +
        '&response_type=code&scope=snsapi_userinfo&state=st-1#wechat_redirect',
    );
  });

  it('Mailchimp: a token that never expires (expires_in 0) gets no expiry, and a null scope is dropped', async () => {
    const token = Mailchimp().token;
    const conform = typeof token === 'object' ? token.conform : undefined;
    const response = await conform!(Response.json({ access_token: 'mc-at', expires_in: 0, scope: null }));
    expect(await response.json()).toEqual({ access_token: 'mc-at', token_type: 'bearer' });
  });

  it('TikTok: the client id also goes as client_key', () => {
    const url = urlOf(TikTok({ clientId: 'awx123' }) as never, 'st-2');
    expect(url.searchParams.get('client_key')).toBe('awx123');
  });

  it('United Effects: an issuer given is also the resource the token is for', () => {
    const config = UnitedEffects({ issuer: 'https://auth.unitedeffects.com/grp', authorization: { params: { prompt: 'login' } } });
    expect(config.authorization).toMatchObject({ params: { scope: 'openid email profile', resource: 'https://auth.unitedeffects.com/grp', prompt: 'login' } });
  });

  it('per-instance presets name the variable that is missing; fixed ones with a default need none', () => {
    for (const [factory, variable] of [[Mastodon, 'AUTH_MASTODON_ISSUER'], [Nextcloud, 'AUTH_NEXTCLOUD_ISSUER'], [Mattermost, 'AUTH_MATTERMOST_ISSUER'], [Osso, 'AUTH_OSSO_ISSUER']] as const) {
      expect(() => normalizeOAuthProvider(factory({ clientId: 'x' }), { env: {}, callbackUrl: 'https://app.test/cb' })).toThrow(InvalidEndpoints);
      expect(() => normalizeOAuthProvider(factory({ clientId: 'x' }), { env: {}, callbackUrl: 'https://app.test/cb' })).toThrow(variable);
    }
    const env = { AUTH_MASTODON_ISSUER: 'https://fosstodon.org' };
    expect(normalizeOAuthProvider(Mastodon(), { env, callbackUrl: 'https://app.test/cb' }).token.url?.href).toBe('https://fosstodon.org/oauth/token');
    expect(normalizeOAuthProvider(Zoho(), { env: { AUTH_ZOHO_ISSUER: 'https://accounts.zoho.in' }, callbackUrl: 'https://app.test/cb' }).token.url?.href).toBe(
      'https://accounts.zoho.in/oauth/v2/token',
    );
    expect(normalizeOAuthProvider(WorkOS(), { env: {}, callbackUrl: 'https://app.test/cb' }).authorization.url?.href).toBe('https://api.workos.com/sso/authorize');
    expect(normalizeOAuthProvider(Vipps(), { env: {}, callbackUrl: 'https://app.test/cb' }).issuer).toBe('https://api.vipps.no/access-management-1.0/access/');
  });

  it('NetSuite: endpoints come from the account id (sandbox suffix lower-cased); without one they are missing', () => {
    const p = normalizeOAuthProvider(NetSuite({ accountID: '1234567_SB1', userinfo: 'https://x.test/me' }), { env: {}, callbackUrl: 'https://app.test/cb' });
    expect(p.token.url?.href).toBe('https://1234567-sb1.suitetalk.api.netsuite.com/services/rest/auth/oauth2/v1/token');
    expect(() => normalizeOAuthProvider(NetSuite(), { env: {}, callbackUrl: 'https://app.test/cb' })).toThrow(InvalidEndpoints);
  });
});
