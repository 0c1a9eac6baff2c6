// The 32 original catalogue presets (apple..zoom): authorization URL, token and user-info exchange against a fake of
// each provider's documented API (quirks included), and the user and account that come out.
import { describeExchangeCases, EXCHANGE_NOW, type ExchangeCase, type FakeRequest } from './catalogue-exchange.js';
import {
  Apple, Atlassian, Auth0, Authentik, Bitbucket, Cognito, Discord, Dropbox, Facebook, FusionAuth, GitHub, GitLab, Google, Kakao, Keycloak, Line,
  LinkedIn, MicrosoftEntraID, Naver, Notion, Okta, Reddit, Salesforce, Slack, Spotify, Strava, Twitch, Twitter, VK, Yandex, Zitadel, Zoom,
} from '../../src/providers/catalogue/index.js';

const NOW_S = EXCHANGE_NOW / 1000;
const OIDC = ['openid', 'profile', 'email'];
const bearer = (access_token: string, extra: Record<string, unknown> = {}) => ({ json: { access_token, token_type: 'Bearer', expires_in: 3600, ...extra } });
const want = (what: string, actual: unknown, expected: unknown) => {
  if (actual !== expected) throw new Error(`${what}: ${String(actual)} (expected ${String(expected)})`);
};
/** A route that checks request headers before it answers. */
const withHeaders = (headers: Record<string, string>, json: unknown) => (req: FakeRequest) => {
  for (const [name, value] of Object.entries(headers)) want(name, req.headers[name], value);
  return { json };
};

const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const OTHER_TENANT = '9188040d-6c67-4c5b-b112-36a304b66dad';

const GITHUB_USER = {
  login: 'octocat', id: 583231, node_id: 'MDQ6VXNlcjU4MzIzMQ==', avatar_url: 'https://avatars.githubusercontent.com/u/583231?v=4', gravatar_id: '',
  url: 'https://api.github.com/users/octocat', html_url: 'https://github.com/octocat', type: 'User', site_admin: false, name: 'The Octocat',
  company: '@github', blog: 'https://github.blog', location: 'San Francisco', email: 'Octocat@GitHub.com', hireable: null, bio: null,
  twitter_username: null, public_repos: 8, public_gists: 8, followers: 9999, following: 9, created_at: '2011-01-25T18:44:36Z', updated_at: '2025-10-22T12:00:00Z',
};
const GITHUB_API = { authorization: 'Bearer gho_16C7e42F292c6912E7710c838347Ae178B4a', accept: 'application/vnd.github+json', 'user-agent': 'authchart', 'x-github-api-version': '2022-11-28' };
const githubToken = { json: { access_token: 'gho_16C7e42F292c6912E7710c838347Ae178B4a', token_type: 'bearer', scope: 'read:user,user:email' } };

const APPLE_SUB = '001234.5b6e8a3c9d7f4e21a0b1c2d3e4f56789.1234';
const appleIdToken = {
  sub: APPLE_SUB, c_hash: 'kSvLb3nNNyLq7sgN7eBf4g', email: 'x8q2kd9z4h@privaterelay.appleid.com', email_verified: 'true', is_private_email: 'true',
  auth_time: NOW_S - 10, nonce_supported: true, real_user_status: 2,
};
const appleToken = bearer('a1b2c3.0.abcd.apple-at', { refresh_token: 'r1b2c3.0.abcd.apple-rt' });

const DROPBOX_ACCOUNT = {
  account_id: 'dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc',
  name: { given_name: 'Franz', surname: 'Ferdinand', familiar_name: 'Franz', display_name: 'Franz Ferdinand (Personal)', abbreviated_name: 'FF' },
  email: 'Franz@Dropbox.com', email_verified: true, disabled: false, locale: 'en', referral_link: 'https://db.tt/ZITNuhtI', is_paired: true,
  account_type: { '.tag': 'basic' }, country: 'US', team: null,
  profile_photo_url: 'https://dl-web.dropbox.com/account_photo/get/dbaphid%3AAAHWGmIXV3sUuOmBfTz0wPsiqHUpBWvv3ZA?size=128x128',
  root_info: { '.tag': 'user', root_namespace_id: '3235641', home_namespace_id: '3235641' },
};

const NOTION_PERSON = {
  object: 'user', id: 'e79a0b74-3aba-4149-9f74-0bb5791a6ee6', type: 'person', name: 'Avocado Lovelace',
  avatar_url: 'https://secure.notion-static.com/e6a352a8-8381-44d0-a1dc-9ed80e62b53d.jpg', person: { email: 'Avo@Example.org' },
};
const notionToken = {
  json: {
    access_token: 'secret_notion-at', token_type: 'bearer', bot_id: 'b3414d65-1224-4ff8-8c5f-2c3b5e0e5f3a', workspace_name: 'Avocado HQ',
    workspace_icon: 'https://www.notion.so/images/favicon.ico', workspace_id: 'ad3b5c1e-0f2a-4b1c-9d8e-7f6a5b4c3d2e', owner: { type: 'user', user: NOTION_PERSON },
    duplicated_template_id: null, request_id: 'f0b6d7b0-3a3c-4ffc-9e2f-0d6f7a8b9c0d',
  },
};
const notionBot = (owner: unknown) =>
  withHeaders({ 'notion-version': '2022-06-28' }, { object: 'user', id: 'b3414d65-1224-4ff8-8c5f-2c3b5e0e5f3a', type: 'bot', name: 'Avocado app', avatar_url: null, bot: { owner, workspace_name: 'Avocado HQ' } });

const KAKAO_ME = {
  id: 123456789, connected_at: '2022-04-11T01:45:28Z',
  properties: { nickname: '홍길동', profile_image: 'http://k.kakaocdn.net/dn/abc/img_640x640.jpg', thumbnail_image: 'http://k.kakaocdn.net/dn/abc/img_110x110.jpg' },
  kakao_account: {
    profile_nickname_needs_agreement: false, profile_image_needs_agreement: false,
    profile: { nickname: '홍길동', thumbnail_image_url: 'http://k.kakaocdn.net/dn/abc/img_110x110.jpg', profile_image_url: 'http://k.kakaocdn.net/dn/abc/img_640x640.jpg', is_default_image: false },
    email_needs_agreement: false, has_email: true, is_email_valid: true, is_email_verified: true, email: 'Sample@Sample.com',
  },
};
const kakaoToken = bearer('kakao-at', { token_type: 'bearer', expires_in: 21599, refresh_token: 'kakao-rt', refresh_token_expires_in: 5183999, scope: 'account_email profile_image profile_nickname' });

const cases: Record<string, ExchangeCase> = {
  // Sign in with Apple: form_post, the name only in the first callback's `user` field, the e-mail only in the ID token.
  apple: {
    factory: Apple,
    options: { clientId: 'com.example.web' },
    authorize: { url: 'https://appleid.apple.com/auth/authorize', scopes: ['name', 'email'], params: { response_mode: 'form_post' } },
    token: { url: 'https://appleid.apple.com/auth/token', reply: appleToken },
    discovery: { jwks_uri: 'https://appleid.apple.com/auth/keys', id_token_signing_alg_values_supported: ['RS256'], response_modes_supported: ['query', 'fragment', 'form_post'] },
    idToken: appleIdToken,
    formUser: '{"name":{"firstName":"Jane","lastName":"Appleseed"},"email":"x8q2kd9z4h@privaterelay.appleid.com"}',
    user: { id: APPLE_SUB, name: 'Jane Appleseed', email: 'x8q2kd9z4h@privaterelay.appleid.com', image: null },
    account: { access_token: 'a1b2c3.0.abcd.apple-at', refresh_token: 'r1b2c3.0.abcd.apple-rt', expires_at: NOW_S + 3600 },
  },
  // Every later sign-in: no `user` field, so no name.
  'apple#returning': {
    factory: Apple,
    options: { clientId: 'com.example.web' },
    authorize: { url: 'https://appleid.apple.com/auth/authorize', scopes: ['name', 'email'], params: { response_mode: 'form_post' } },
    token: { url: 'https://appleid.apple.com/auth/token', reply: appleToken },
    idToken: { ...appleIdToken, email: 'jane@icloud.com', is_private_email: 'false' },
    user: { id: APPLE_SUB, name: null, email: 'jane@icloud.com', image: null },
  },
  // The form field is whatever the browser posted: its e-mail never wins over the signed one.
  'apple#posted-email-ignored': {
    factory: Apple,
    options: { clientId: 'com.example.web' },
    authorize: { url: 'https://appleid.apple.com/auth/authorize', scopes: ['name', 'email'], params: { response_mode: 'form_post' } },
    token: { url: 'https://appleid.apple.com/auth/token', reply: appleToken },
    idToken: appleIdToken,
    formUser: '{"name":{"firstName":"Jane"},"email":"victim@example.com"}',
    user: { id: APPLE_SUB, name: 'Jane', email: 'x8q2kd9z4h@privaterelay.appleid.com', image: null },
  },
  atlassian: {
    factory: Atlassian,
    authorize: { url: 'https://auth.atlassian.com/authorize', scopes: ['read:me'], params: { audience: 'api.atlassian.com', prompt: 'consent' } },
    token: { url: 'https://auth.atlassian.com/oauth/token', reply: bearer('eyJraWQi.atl-at', { scope: 'read:me' }) },
    routes: {
      'GET https://api.atlassian.com/me': {
        json: {
          account_type: 'atlassian', account_id: '557058:f58131cb-b67d-43c7-b30d-6b58d40bd077', email: 'Mia@Example.com', name: 'Mia Krystof',
          picture: 'https://avatar-management--avatars.us-west-2.prod.public.atl-paas.net/557058:f58131cb/128', account_status: 'active',
          nickname: 'mkrystof', zoneinfo: 'Australia/Sydney', locale: 'en-US', email_verified: true,
          extended_profile: { job_title: 'Designer', organization: 'Acme', department: 'Design team', location: 'Sydney' },
        },
      },
    },
    user: { id: '557058:f58131cb-b67d-43c7-b30d-6b58d40bd077', name: 'Mia Krystof', email: 'mia@example.com', image: 'https://avatar-management--avatars.us-west-2.prod.public.atl-paas.net/557058:f58131cb/128' },
    account: { access_token: 'eyJraWQi.atl-at', expires_at: NOW_S + 3600 },
  },
  auth0: {
    factory: Auth0,
    // The tenant domain with its trailing slash, which is also the ID token's `iss`.
    options: { issuer: 'https://dev-abc123.us.auth0.com/' },
    authorize: { url: 'https://dev-abc123.us.auth0.com/authorize', scopes: OIDC },
    token: { url: 'https://dev-abc123.us.auth0.com/oauth/token', reply: bearer('eyJhbGci.auth0-at', { expires_in: 86400, scope: 'openid profile email' }) },
    discovery: { userinfo_endpoint: 'https://dev-abc123.us.auth0.com/userinfo', jwks_uri: 'https://dev-abc123.us.auth0.com/.well-known/jwks.json' },
    idToken: {
      sub: 'auth0|5f7c8ec7c33c6c004bbafe82', given_name: 'Jane', family_name: 'Doe', nickname: 'janedoe', name: 'Jane Doe', picture: 'https://s.gravatar.com/avatar/9f8e.png',
      locale: 'en', updated_at: '2026-01-10T09:00:00.000Z', email: 'JaneDoe@Example.com', email_verified: true, sid: 'Ck0a',
    },
    user: { id: 'auth0|5f7c8ec7c33c6c004bbafe82', name: 'Jane Doe', email: 'janedoe@example.com', image: 'https://s.gravatar.com/avatar/9f8e.png' },
    account: { access_token: 'eyJhbGci.auth0-at', expires_at: NOW_S + 86400 },
  },
  authentik: {
    factory: Authentik,
    // One issuer per application, while the endpoints are shared by all of them.
    options: { issuer: 'https://auth.example.com/application/o/intranet/' },
    authorize: { url: 'https://auth.example.com/application/o/authorize/', scopes: OIDC },
    token: { url: 'https://auth.example.com/application/o/token/', reply: bearer('ak-at', { expires_in: 300, refresh_token: 'ak-rt', scope: 'openid profile email' }) },
    discovery: { userinfo_endpoint: 'https://auth.example.com/application/o/userinfo/', jwks_uri: 'https://auth.example.com/application/o/intranet/jwks/' },
    idToken: {
      sub: '5c2a0a5bd6f7c6d3b1d5e1c8e5a9f3b2c7d4e6f8a0b1c2d3e4f5a6b7c8d9e0f1', auth_time: NOW_S - 10, acr: 'goauthentik.io/providers/oauth2/default',
      email: 'akadmin@example.com', email_verified: true, name: 'authentik Default Admin', given_name: 'authentik Default Admin',
      preferred_username: 'akadmin', nickname: 'akadmin', groups: ['authentik Admins'],
    },
    user: { id: '5c2a0a5bd6f7c6d3b1d5e1c8e5a9f3b2c7d4e6f8a0b1c2d3e4f5a6b7c8d9e0f1', name: 'authentik Default Admin', email: 'akadmin@example.com', image: null },
    account: { refresh_token: 'ak-rt', expires_at: NOW_S + 300 },
  },
  bitbucket: {
    factory: Bitbucket,
    authorize: { url: 'https://bitbucket.org/site/oauth2/authorize' },
    token: { url: 'https://bitbucket.org/site/oauth2/access_token', reply: bearer('bb-at', { token_type: 'bearer', expires_in: 7200, scopes: 'account email', refresh_token: 'bb-rt', state: 'authorization_code' }) },
    routes: {
      'GET https://api.bitbucket.org/2.0/user': {
        json: {
          display_name: 'Evan Example', type: 'user', uuid: '{4a2b7d0e-2f6c-4b1a-9d8e-1a2b3c4d5e6f}', username: 'evanexample', nickname: 'evan',
          links: { avatar: { href: 'https://secure.gravatar.com/avatar/0f3c.png' }, html: { href: 'https://bitbucket.org/%7B4a2b7d0e%7D/' } },
          created_on: '2018-07-11T10:09:05.011612+00:00', has_2fa_enabled: null, is_staff: false, account_id: '5b45d5f5e9c7a42c0e1d2f3a', account_status: 'active', location: null,
        },
      },
      // The user object has no address at all: it comes from the e-mail list, primary and confirmed.
      'GET https://api.bitbucket.org/2.0/user/emails': {
        json: {
          pagelen: 10, page: 1, size: 2,
          values: [
            { email: 'old@example.com', is_primary: false, is_confirmed: true, type: 'email', links: { self: { href: 'https://api.bitbucket.org/2.0/user/emails/old@example.com' } } },
            { email: 'Evan@Example.com', is_primary: true, is_confirmed: true, type: 'email', links: { self: { href: 'https://api.bitbucket.org/2.0/user/emails/Evan@Example.com' } } },
          ],
        },
      },
    },
    user: { id: '{4a2b7d0e-2f6c-4b1a-9d8e-1a2b3c4d5e6f}', name: 'Evan Example', email: 'evan@example.com', image: 'https://secure.gravatar.com/avatar/0f3c.png' },
    account: { access_token: 'bb-at', refresh_token: 'bb-rt', expires_at: NOW_S + 7200 },
  },
  cognito: {
    factory: Cognito,
    // The pool's issuer is on cognito-idp; its endpoints are on the pool's own domain.
    options: { issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEfGhI' },
    authorize: { url: 'https://acme.auth.eu-west-1.amazoncognito.com/oauth2/authorize', scopes: OIDC },
    token: { url: 'https://acme.auth.eu-west-1.amazoncognito.com/oauth2/token', reply: bearer('eyJraWQi.cog-at', { refresh_token: 'eyJjdHki.cog-rt' }) },
    discovery: {
      userinfo_endpoint: 'https://acme.auth.eu-west-1.amazoncognito.com/oauth2/userInfo',
      jwks_uri: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEfGhI/.well-known/jwks.json',
    },
    idToken: {
      at_hash: 'UWe8', sub: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee', 'cognito:groups': ['admins'], email_verified: true, 'cognito:username': 'janedoe',
      origin_jti: 'f2b4', event_id: '8a2c', token_use: 'id', auth_time: NOW_S - 10, jti: '3c1d', email: 'janedoe@example.com',
    },
    user: { id: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee', name: 'janedoe', email: 'janedoe@example.com', image: null },
    account: { refresh_token: 'eyJjdHki.cog-rt' },
  },
  discord: {
    factory: Discord,
    authorize: { url: 'https://discord.com/oauth2/authorize', scopes: ['identify', 'email'] },
    token: { url: 'https://discord.com/api/oauth2/token', reply: bearer('6qrZcUqja7812RVdnEKjpzOL4CvHBFG', { expires_in: 604800, refresh_token: 'D43f5y0ahjqew82jZ4NViEr2YafMKhue', scope: 'identify email' }) },
    routes: {
      'GET https://discord.com/api/users/@me': {
        json: {
          id: '80351110224678912', username: 'nelly', discriminator: '0', global_name: 'Nelly', avatar: '8342729096ea3675442027381ff50dfe', verified: true,
          email: 'Nelly@Discord.com', flags: 64, banner: '06c16474723fe537c283b8efa61a30c8', accent_color: 16711680, premium_type: 1, public_flags: 64, mfa_enabled: true, locale: 'en-US',
        },
      },
    },
    user: { id: '80351110224678912', name: 'Nelly', email: 'nelly@discord.com', image: 'https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png' },
    account: { access_token: '6qrZcUqja7812RVdnEKjpzOL4CvHBFG', refresh_token: 'D43f5y0ahjqew82jZ4NViEr2YafMKhue', expires_at: NOW_S + 604800 },
  },
  // No custom avatar, a legacy discriminator, no global name, and no `email` scope.
  'discord#default-avatar': {
    factory: Discord,
    options: { authorization: { params: { scope: 'identify' } } },
    authorize: { url: 'https://discord.com/oauth2/authorize', scopes: ['identify'] },
    token: { url: 'https://discord.com/api/oauth2/token', reply: bearer('dc-at', { expires_in: 604800, scope: 'identify' }) },
    routes: { 'GET https://discord.com/api/users/@me': { json: { id: '80351110224678912', username: 'Nelly', discriminator: '1337', global_name: null, avatar: null, public_flags: 0 } } },
    user: { id: '80351110224678912', name: 'Nelly', email: null, image: 'https://cdn.discordapp.com/embed/avatars/2.png' },
  },
  dropbox: {
    factory: Dropbox,
    authorize: { url: 'https://www.dropbox.com/oauth2/authorize', scopes: ['account_info.read'], params: { token_access_type: 'offline' } },
    token: {
      url: 'https://api.dropboxapi.com/oauth2/token',
      reply: bearer('sl.u.AbX9y6Fe3AuH5o66-gmJpR032jwAwQPIVVzWXZNkdzcYT02akC2de219dZi6gxYPVnYPrpvISRSf9lxKWJzYLjtMPH-d9fo', {
        token_type: 'bearer', expires_in: 14400, scope: 'account_info.read', refresh_token: 'nBiM85CZALsAAAAAAAAAAQXHBoNpNutK4ngsXHsqW4iGz9tisb3JyjGqikMJIYbd',
        account_id: 'dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc', uid: '12345',
      }),
    },
    routes: {
      // An RPC endpoint: POST with no body and no content type (Dropbox refuses `null` or `{}` for a call without arguments).
      'POST https://api.dropboxapi.com/2/users/get_current_account': (req) => {
        want('body', req.body, '');
        want('content-type', req.headers['content-type'], undefined);
        return { json: DROPBOX_ACCOUNT };
      },
    },
    user: { id: 'dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc', name: 'Franz Ferdinand (Personal)', email: 'franz@dropbox.com', image: DROPBOX_ACCOUNT.profile_photo_url },
    account: { refresh_token: 'nBiM85CZALsAAAAAAAAAAQXHBoNpNutK4ngsXHsqW4iGz9tisb3JyjGqikMJIYbd', expires_at: NOW_S + 14400 },
  },
  facebook: {
    factory: Facebook,
    authorize: { url: 'https://www.facebook.com/v22.0/dialog/oauth', scopes: ['email', 'public_profile'] },
    token: { url: 'https://graph.facebook.com/v22.0/oauth/access_token', reply: bearer('EAAGm0PX4ZCps', { token_type: 'bearer', expires_in: 5183944 }) },
    routes: {
      // Without `fields` the Graph API answers only id and name; the picture is an object under `data`.
      'GET https://graph.facebook.com/v22.0/me': (req) => {
        want('fields', req.url.searchParams.get('fields'), 'id,name,email,picture');
        return {
          json: {
            id: '10158123456789012', name: 'Jane Doe', email: 'Jane.Doe@Example.com',
            picture: { data: { height: 50, is_silhouette: false, url: 'https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10158123456789012&height=50&width=50', width: 50 } },
          },
        };
      },
    },
    user: { id: '10158123456789012', name: 'Jane Doe', email: 'jane.doe@example.com', image: 'https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10158123456789012&height=50&width=50' },
    account: { access_token: 'EAAGm0PX4ZCps', expires_at: NOW_S + 5183944 },
  },
  // The user declined the e-mail permission (or has no confirmed address): the field is simply absent.
  'facebook#no-email': {
    factory: Facebook,
    authorize: { url: 'https://www.facebook.com/v22.0/dialog/oauth', scopes: ['email', 'public_profile'] },
    token: { url: 'https://graph.facebook.com/v22.0/oauth/access_token', reply: bearer('EAAGm0PX4ZCps2', { token_type: 'bearer', expires_in: 5183944 }) },
    routes: {
      'GET https://graph.facebook.com/v22.0/me': {
        json: { id: '10158000000000001', name: 'Sam Private', picture: { data: { height: 50, is_silhouette: true, url: 'https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10158000000000001', width: 50 } } },
      },
    },
    user: { id: '10158000000000001', name: 'Sam Private', email: null, image: 'https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10158000000000001' },
  },
  fusionauth: {
    factory: FusionAuth,
    options: { issuer: 'https://auth.example.com' },
    authorize: { url: 'https://auth.example.com/oauth2/authorize', scopes: OIDC },
    token: { url: 'https://auth.example.com/oauth2/token', reply: bearer('fa-at', { refresh_token: 'fa-rt', userId: '2ffc1fb7-d7a5-4b2c-9c4e-6f1c8a6f2b1e', scope: 'openid profile email' }) },
    discovery: { userinfo_endpoint: 'https://auth.example.com/oauth2/userinfo', jwks_uri: 'https://auth.example.com/.well-known/jwks.json' },
    idToken: {
      sub: '2ffc1fb7-d7a5-4b2c-9c4e-6f1c8a6f2b1e', jti: 'a8b5', authenticationType: 'PASSWORD', email: 'Richard@Example.com', email_verified: true,
      preferred_username: 'richard', applicationId: 'client-123', roles: ['admin'], auth_time: NOW_S - 10, tid: '30663132-6464-6665-3032-326466613934',
    },
    user: { id: '2ffc1fb7-d7a5-4b2c-9c4e-6f1c8a6f2b1e', name: 'richard', email: 'richard@example.com', image: null },
    account: { refresh_token: 'fa-rt' },
  },
  github: {
    factory: GitHub,
    authorize: { url: 'https://github.com/login/oauth/authorize', scopes: ['read:user', 'user:email'] },
    // No expiry: OAuth app tokens live until revoked; the scope comes back comma-separated.
    token: { url: 'https://github.com/login/oauth/access_token', reply: githubToken },
    routes: { 'GET https://api.github.com/user': withHeaders(GITHUB_API, GITHUB_USER) },
    user: { id: '583231', name: 'The Octocat', email: 'octocat@github.com', image: 'https://avatars.githubusercontent.com/u/583231?v=4' },
    account: { access_token: 'gho_16C7e42F292c6912E7710c838347Ae178B4a', token_type: 'bearer', scope: 'read:user,user:email' },
  },
  // A private address is null on /user; /user/emails still lists it (primary and verified wins).
  'github#private-email': {
    factory: GitHub,
    authorize: { url: 'https://github.com/login/oauth/authorize', scopes: ['read:user', 'user:email'] },
    token: { url: 'https://github.com/login/oauth/access_token', reply: githubToken },
    routes: {
      'GET https://api.github.com/user': withHeaders(GITHUB_API, { ...GITHUB_USER, login: 'mona', id: 1, name: null, email: null, avatar_url: 'https://avatars.githubusercontent.com/u/1?v=4' }),
      'GET https://api.github.com/user/emails': withHeaders(GITHUB_API, [
        { email: 'unverified@example.com', primary: false, verified: false, visibility: null },
        { email: 'old@example.com', primary: false, verified: true, visibility: null },
        { email: 'Mona@Example.com', primary: true, verified: true, visibility: 'private' },
      ]),
    },
    user: { id: '1', name: 'mona', email: 'mona@example.com', image: 'https://avatars.githubusercontent.com/u/1?v=4' },
  },
  // No verified address at all: no e-mail rather than an unverified one.
  'github#unverified-only': {
    factory: GitHub,
    authorize: { url: 'https://github.com/login/oauth/authorize', scopes: ['read:user', 'user:email'] },
    token: { url: 'https://github.com/login/oauth/access_token', reply: githubToken },
    routes: {
      'GET https://api.github.com/user': { json: { ...GITHUB_USER, login: 'newbie', id: 2, name: 'New Bie', email: null, avatar_url: 'https://avatars.githubusercontent.com/u/2?v=4' } },
      'GET https://api.github.com/user/emails': { json: [{ email: 'newbie@example.com', primary: true, verified: false, visibility: 'private' }] },
    },
    user: { id: '2', name: 'New Bie', email: null, image: 'https://avatars.githubusercontent.com/u/2?v=4' },
  },
  // GitHub answers a bad, expired or used code with status 200 and an error body.
  'github#bad-code-200': {
    factory: GitHub,
    authorize: { url: 'https://github.com/login/oauth/authorize', scopes: ['read:user', 'user:email'] },
    token: {
      url: 'https://github.com/login/oauth/access_token',
      reply: {
        json: {
          error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.',
          error_uri: 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#bad-verification-code',
        },
      },
    },
    error: 'OAuthCallbackError',
    errorMessage: /bad_verification_code/,
  },
  gitlab: {
    factory: GitLab,
    authorize: { url: 'https://gitlab.com/oauth/authorize', scopes: ['read_user'] },
    token: { url: 'https://gitlab.com/oauth/token', reply: bearer('gl-at', { expires_in: 7200, refresh_token: 'gl-rt', scope: 'read_user', created_at: NOW_S }) },
    routes: {
      'GET https://gitlab.com/api/v4/user': {
        json: {
          id: 1, username: 'john_smith', name: 'John Smith', state: 'active', locked: false, avatar_url: 'https://gitlab.com/uploads/-/system/user/avatar/1/avatar.png',
          web_url: 'https://gitlab.com/john_smith', created_at: '2012-05-23T08:00:58Z', bio: '', location: null, public_email: 'john@example.com',
          email: 'John@Example.com', confirmed_at: '2012-05-23T09:05:22Z', two_factor_enabled: true,
        },
      },
    },
    user: { id: '1', name: 'John Smith', email: 'john@example.com', image: 'https://gitlab.com/uploads/-/system/user/avatar/1/avatar.png' },
    account: { access_token: 'gl-at', refresh_token: 'gl-rt', expires_at: NOW_S + 7200 },
  },
  google: {
    factory: Google,
    authorize: { url: 'https://accounts.google.com/o/oauth2/v2/auth', scopes: OIDC },
    token: { url: 'https://oauth2.googleapis.com/token', reply: bearer('ya29.a0AfH6SM', { expires_in: 3599, scope: 'openid https://www.googleapis.com/auth/userinfo.profile https://www.googleapis.com/auth/userinfo.email' }) },
    discovery: { userinfo_endpoint: 'https://openidconnect.googleapis.com/v1/userinfo', jwks_uri: 'https://www.googleapis.com/oauth2/v3/certs' },
    idToken: {
      azp: 'client-123', sub: '110169484474386276334', hd: 'example.com', email: 'JSmith@example.com', email_verified: true, at_hash: 'HK6E_P6Dh8Y93mRNtsDB1Q',
      name: 'John Smith', picture: 'https://lh3.googleusercontent.com/a/ACg8ocKx3=s96-c', given_name: 'John', family_name: 'Smith',
    },
    user: { id: '110169484474386276334', name: 'John Smith', email: 'jsmith@example.com', image: 'https://lh3.googleusercontent.com/a/ACg8ocKx3=s96-c' },
    account: { access_token: 'ya29.a0AfH6SM', expires_at: NOW_S + 3599 },
  },
  kakao: {
    factory: Kakao,
    authorize: { url: 'https://kauth.kakao.com/oauth/authorize' },
    token: { url: 'https://kauth.kakao.com/oauth/token', reply: kakaoToken },
    routes: { 'GET https://kapi.kakao.com/v2/user/me': { json: KAKAO_ME } },
    user: { id: '123456789', name: '홍길동', email: 'sample@sample.com', image: 'http://k.kakaocdn.net/dn/abc/img_640x640.jpg' },
    account: { access_token: 'kakao-at', refresh_token: 'kakao-rt', expires_at: NOW_S + 21599 },
  },
  // The account wrapper: an address Kakao has not verified is dropped; with no profile consent, the legacy properties fill in.
  'kakao#unverified-email': {
    factory: Kakao,
    authorize: { url: 'https://kauth.kakao.com/oauth/authorize' },
    token: { url: 'https://kauth.kakao.com/oauth/token', reply: kakaoToken },
    routes: {
      'GET https://kapi.kakao.com/v2/user/me': {
        json: {
          id: 987654321, connected_at: '2023-01-01T00:00:00Z', properties: { nickname: '김철수', profile_image: 'http://k.kakaocdn.net/dn/xyz/img_640x640.jpg' },
          kakao_account: { profile_needs_agreement: true, email_needs_agreement: false, has_email: true, is_email_valid: true, is_email_verified: false, email: 'chulsoo@example.com' },
        },
      },
    },
    user: { id: '987654321', name: '김철수', email: null, image: 'http://k.kakaocdn.net/dn/xyz/img_640x640.jpg' },
  },
  keycloak: {
    factory: Keycloak,
    options: { issuer: 'https://sso.example.com/realms/acme' },
    authorize: { url: 'https://sso.example.com/realms/acme/protocol/openid-connect/auth', scopes: OIDC },
    token: {
      url: 'https://sso.example.com/realms/acme/protocol/openid-connect/token',
      reply: bearer('eyJhbGci.kc-at', { expires_in: 300, refresh_expires_in: 1800, refresh_token: 'eyJhbGci.kc-rt', 'not-before-policy': 0, session_state: '6f1c', scope: 'openid profile email' }),
    },
    discovery: { userinfo_endpoint: 'https://sso.example.com/realms/acme/protocol/openid-connect/userinfo', jwks_uri: 'https://sso.example.com/realms/acme/protocol/openid-connect/certs' },
    idToken: {
      auth_time: NOW_S - 10, jti: '1d8b4c9e', sub: 'f8a4e7b2-3c1d-4e5f-9a8b-7c6d5e4f3a2b', typ: 'ID', azp: 'client-123', sid: '6f1c', acr: '1',
      email_verified: true, preferred_username: 'alice', given_name: 'Alice', family_name: 'Liddell', email: 'alice@example.com',
    },
    user: { id: 'f8a4e7b2-3c1d-4e5f-9a8b-7c6d5e4f3a2b', name: 'alice', email: 'alice@example.com', image: null },
    account: { access_token: 'eyJhbGci.kc-at', refresh_token: 'eyJhbGci.kc-rt', expires_at: NOW_S + 300 },
  },
  // Web login: the ID token is HS256-signed with the channel secret, whatever the discovery document lists (ES256);
  // forged ones are refused in test/security/hmac-id-token.test.ts.
  line: {
    factory: Line,
    options: { clientId: '1234567890', clientSecret: 'line-channel-secret' },
    authorize: { url: 'https://access.line.me/oauth2/v2.1/authorize', scopes: OIDC },
    token: { url: 'https://api.line.me/oauth2/v2.1/token', reply: bearer('bNl4YEFPI', { expires_in: 2592000, refresh_token: 'Aa1FdeggRhTnPNNpxr8p', scope: 'profile openid email' }) },
    discovery: { userinfo_endpoint: 'https://api.line.me/oauth2/v2.1/userinfo', jwks_uri: 'https://api.line.me/oauth2/v2.1/certs', id_token_signing_alg_values_supported: ['ES256'] },
    idToken: { sub: 'U1234567890abcdef1234567890abcdef', amr: ['pwd'], name: 'Taro Line', picture: 'https://profile.line-scdn.net/0hbZ3Y', email: 'Taro.Line@Example.com' },
    user: { id: 'U1234567890abcdef1234567890abcdef', name: 'Taro Line', email: 'taro.line@example.com', image: 'https://profile.line-scdn.net/0hbZ3Y' },
    account: { access_token: 'bNl4YEFPI', refresh_token: 'Aa1FdeggRhTnPNNpxr8p', expires_at: NOW_S + 2592000 },
  },
  // LinkedIn's "Sign In with LinkedIn using OpenID Connect": the profile is in the ID token, client credentials in the body.
  linkedin: {
    factory: LinkedIn,
    authorize: { url: 'https://www.linkedin.com/oauth/v2/authorization', scopes: OIDC },
    token: { url: 'https://www.linkedin.com/oauth/v2/accessToken', reply: bearer('AQUvlL_DYEzvT2wz1QJiEPeLioeA', { expires_in: 5183999, scope: 'email,openid,profile' }) },
    discovery: { userinfo_endpoint: 'https://api.linkedin.com/v2/userinfo', jwks_uri: 'https://www.linkedin.com/oauth/openid/jwks', token_endpoint_auth_methods_supported: ['client_secret_post'] },
    idToken: {
      sub: '782bbtaQ', name: 'John Doe', given_name: 'John', family_name: 'Doe', picture: 'https://media.licdn.com/dms/image/C5F03AQHqK8v7tB1HCQ/profile-displayphoto-shrink_100_100/0/',
      locale: 'en-US', email: 'Doe@Email.com', email_verified: true,
    },
    user: { id: '782bbtaQ', name: 'John Doe', email: 'doe@email.com', image: 'https://media.licdn.com/dms/image/C5F03AQHqK8v7tB1HCQ/profile-displayphoto-shrink_100_100/0/' },
    account: { access_token: 'AQUvlL_DYEzvT2wz1QJiEPeLioeA', expires_at: NOW_S + 5183999 },
  },
  // One tenant's issuer (the `common` default is proven in catalogue-exchange-b).
  'microsoft-entra-id': {
    factory: MicrosoftEntraID,
    options: { issuer: `https://login.microsoftonline.com/${TENANT}/v2.0` },
    authorize: { url: `https://login.microsoftonline.com/${TENANT}/oauth2/v2.0/authorize`, scopes: OIDC },
    token: { url: `https://login.microsoftonline.com/${TENANT}/oauth2/v2.0/token`, reply: bearer('eyJ0eXAi.entra-tenant', { ext_expires_in: 3600, scope: 'openid profile email' }) },
    discovery: { userinfo_endpoint: 'https://graph.microsoft.com/oidc/userinfo', jwks_uri: `https://login.microsoftonline.com/${TENANT}/discovery/v2.0/keys` },
    idToken: {
      ver: '2.0', sub: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ', oid: '00000000-0000-0000-66f3-3332eca7ea81', tid: TENANT,
      name: 'Megan Bowen', preferred_username: 'MeganB@contoso.onmicrosoft.com', email: 'MeganB@contoso.com',
    },
    user: { id: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ', name: 'Megan Bowen', email: 'meganb@contoso.com', image: null },
  },
  // The `common` endpoint: a token whose `iss` names another tenant than its own `tid` is refused.
  'microsoft-entra-id#common-tenant-mismatch': {
    factory: MicrosoftEntraID,
    authorize: { url: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize', scopes: OIDC },
    token: { url: 'https://login.microsoftonline.com/common/oauth2/v2.0/token', reply: bearer('eyJ0eXAi.entra-common') },
    routes: {
      'GET https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration': (_req, ctx) => ({
        json: {
          issuer: ctx.fake('https://login.microsoftonline.com/{tenantid}/v2.0'),
          authorization_endpoint: ctx.fake('https://login.microsoftonline.com/common/oauth2/v2.0/authorize'),
          token_endpoint: ctx.fake('https://login.microsoftonline.com/common/oauth2/v2.0/token'),
          jwks_uri: ctx.fake('https://login.microsoftonline.com/common/discovery/v2.0/keys'),
          response_types_supported: ['code'], subject_types_supported: ['pairwise'], id_token_signing_alg_values_supported: ['RS256'],
        },
      }),
    },
    discovery: { jwks_uri: 'https://login.microsoftonline.com/common/discovery/v2.0/keys' },
    idToken: { iss: `https://login.microsoftonline.com/${OTHER_TENANT}/v2.0`, tid: TENANT, ver: '2.0', sub: 'AAAAAAAAAAAAAAAAAAAAAGkzqFVrSaSaFHy782bbtaQ', name: 'Mallory' },
    error: 'InvalidCheck',
    errorMessage: /"iss"/,
  },
  naver: {
    factory: Naver,
    authorize: { url: 'https://nid.naver.com/oauth2.0/authorize' },
    // `expires_in` is a string in Naver's answer.
    token: {
      url: 'https://nid.naver.com/oauth2.0/token',
      reply: { json: { access_token: 'AAAAQosjWDJieBiQZc3to9YQp6HDLvrmyKC', refresh_token: 'c8ceMEJisO4Se7uGisHoX0f5JEii7JnipglQipkOn5Zp3tyP7dHQoP0zNKHUq2gY', token_type: 'bearer', expires_in: '3600' } },
    },
    routes: {
      // The profile sits in a `response` wrapper with a result code.
      'GET https://openapi.naver.com/v1/nid/me': {
        json: {
          resultcode: '00', message: 'success',
          response: {
            email: 'OpenAPI@Naver.com', nickname: 'OpenAPI', profile_image: 'https://ssl.pstatic.net/static/pwe/address/nodata_33x33.gif', age: '40-49', gender: 'F',
            id: '32742776', name: '오픈 API', birthday: '10-01', birthyear: '1900', mobile: '010-0000-0000',
          },
        },
      },
    },
    user: { id: '32742776', name: 'OpenAPI', email: 'openapi@naver.com', image: 'https://ssl.pstatic.net/static/pwe/address/nodata_33x33.gif' },
    account: { access_token: 'AAAAQosjWDJieBiQZc3to9YQp6HDLvrmyKC', expires_at: NOW_S + 3600 },
  },
  // The token answer names the owner; the user comes from the bot user's owner, asked for with a Notion-Version.
  notion: {
    factory: Notion,
    authorize: { url: 'https://api.notion.com/v1/oauth/authorize', params: { owner: 'user' } },
    token: { url: 'https://api.notion.com/v1/oauth/token', reply: notionToken },
    routes: { 'GET https://api.notion.com/v1/users/me': notionBot({ type: 'user', user: NOTION_PERSON }) },
    user: { id: 'e79a0b74-3aba-4149-9f74-0bb5791a6ee6', name: 'Avocado Lovelace', email: 'avo@example.org', image: 'https://secure.notion-static.com/e6a352a8-8381-44d0-a1dc-9ed80e62b53d.jpg' },
    account: { access_token: 'secret_notion-at' },
  },
  // An integration owned by the workspace has no person behind it.
  'notion#workspace-owner': {
    factory: Notion,
    authorize: { url: 'https://api.notion.com/v1/oauth/authorize', params: { owner: 'user' } },
    token: { url: 'https://api.notion.com/v1/oauth/token', reply: { json: { ...notionToken.json, owner: { type: 'workspace', workspace: true } } } },
    routes: { 'GET https://api.notion.com/v1/users/me': notionBot({ type: 'workspace', workspace: true }) },
    error: 'OAuthCallbackError',
    errorMessage: /not owned by a user/,
  },
  okta: {
    factory: Okta,
    options: { issuer: 'https://dev-123456.okta.com/oauth2/default' },
    authorize: { url: 'https://dev-123456.okta.com/oauth2/default/v1/authorize', scopes: OIDC },
    token: { url: 'https://dev-123456.okta.com/oauth2/default/v1/token', reply: bearer('eyJraWQi.okta-at', { scope: 'openid profile email' }) },
    discovery: { userinfo_endpoint: 'https://dev-123456.okta.com/oauth2/default/v1/userinfo', jwks_uri: 'https://dev-123456.okta.com/oauth2/default/v1/keys' },
    idToken: {
      sub: '00uid4BxXw6I6TV4m0g3', name: 'John Doe', email: 'john.doe@example.com', ver: 1, jti: 'ID.4eAWJOCMB3SX8XewDfVR', amr: ['pwd'], idp: '00ouwlx8fBKbXHJgU0g3',
      preferred_username: 'john.doe@example.com', auth_time: NOW_S - 10,
    },
    user: { id: '00uid4BxXw6I6TV4m0g3', name: 'John Doe', email: 'john.doe@example.com', image: null },
  },
  reddit: {
    factory: Reddit,
    authorize: { url: 'https://www.reddit.com/api/v1/authorize', scopes: ['identity'] },
    token: { url: 'https://www.reddit.com/api/v1/access_token', reply: bearer('eyJhbGci.reddit-at', { token_type: 'bearer', expires_in: 86400, scope: 'identity' }) },
    routes: {
      // Reddit wants a descriptive User-Agent, and HTML-escapes the query of image URLs.
      'GET https://oauth.reddit.com/api/v1/me': withHeaders(
        { 'user-agent': 'web:authchart:v1' },
        {
          id: '1w72', name: 'spez', snoovatar_img: '', created_utc: 1118030400, verified: true, has_verified_email: true, total_karma: 912345, over_18: true,
          icon_img: 'https://styles.redditmedia.com/t5_3k30p/styles/profileIcon_snoo.png?width=256&amp;height=256&amp;crop=256:256,smart&amp;s=abc',
        },
      ),
    },
    user: { id: '1w72', name: 'spez', email: null, image: 'https://styles.redditmedia.com/t5_3k30p/styles/profileIcon_snoo.png?width=256&height=256&crop=256:256,smart&s=abc' },
    account: { access_token: 'eyJhbGci.reddit-at', expires_at: NOW_S + 86400 },
  },
  // Salesforce: an ID token with the identity URL as `sub`, the user from the user-info endpoint (idToken: false).
  salesforce: {
    factory: Salesforce,
    authorize: { url: 'https://login.salesforce.com/services/oauth2/authorize', scopes: OIDC },
    token: {
      url: 'https://login.salesforce.com/services/oauth2/token',
      // No expires_in; issued_at is in milliseconds; instance_url and id name the org.
      reply: {
        json: {
          access_token: '00Dx0000000BV7z!AR8AQBM8J_xr9kLqmZIRyQxZgLcM4HVi41aGtW0qW3JCzf5xdTGGGSoVim8FfJkZEqxbjaFbberKGk8v8AnYrvChG4qJbQo8',
          signature: 'E8ZcuZ2DkJfaA5cVSPDBFkwW2ixQYJ4g+TmmkcOX2IU=', scope: 'openid profile email', instance_url: 'https://acme.my.salesforce.com',
          id: 'https://login.salesforce.com/id/00Dx0000000BV7z/005x00000012Q9P', token_type: 'Bearer', issued_at: String(EXCHANGE_NOW),
        },
      },
    },
    discovery: { userinfo_endpoint: 'https://login.salesforce.com/services/oauth2/userinfo', jwks_uri: 'https://login.salesforce.com/id/keys' },
    idToken: { sub: 'https://login.salesforce.com/id/00Dx0000000BV7z/005x00000012Q9P', at_hash: 'X1l3', name: 'Jane Admin', email: 'admin@example.com' },
    routes: {
      'GET https://login.salesforce.com/services/oauth2/userinfo': {
        json: {
          sub: 'https://login.salesforce.com/id/00Dx0000000BV7z/005x00000012Q9P', user_id: '005x00000012Q9P', organization_id: '00Dx0000000BV7z',
          preferred_username: 'admin@example.com', nickname: 'admin', name: 'Jane Admin', email: 'Admin@Example.com', email_verified: true,
          given_name: 'Jane', family_name: 'Admin', zoneinfo: 'America/Los_Angeles',
          photos: { picture: 'https://acme.file.force.com/profilephoto/005/F', thumbnail: 'https://acme.file.force.com/profilephoto/005/T' },
          active: true, user_type: 'STANDARD', language: 'en_US', locale: 'en_US', utcOffset: -28800000, updated_at: '2025-11-02T10:00:00Z',
        },
      },
    },
    user: { id: '005x00000012Q9P', name: 'Jane Admin', email: 'admin@example.com', image: 'https://acme.file.force.com/profilephoto/005/F' },
    account: { access_token: '00Dx0000000BV7z!AR8AQBM8J_xr9kLqmZIRyQxZgLcM4HVi41aGtW0qW3JCzf5xdTGGGSoVim8FfJkZEqxbjaFbberKGk8v8AnYrvChG4qJbQo8' },
  },
  // Sign in with Slack: a Web API method as token endpoint (`ok: true` beside the tokens), team claims in the ID token.
  slack: {
    factory: Slack,
    authorize: { url: 'https://slack.com/openid/connect/authorize', scopes: OIDC },
    token: { url: 'https://slack.com/api/openid.connect.token', reply: { json: { ok: true, access_token: 'xoxp-1234', token_type: 'Bearer' } } },
    discovery: { userinfo_endpoint: 'https://slack.com/api/openid.connect.userInfo', jwks_uri: 'https://slack.com/openid/connect/keys' },
    idToken: {
      sub: 'U0R7JM', auth_time: NOW_S - 10, at_hash: 'abc', 'https://slack.com/team_id': 'T0R7GR', 'https://slack.com/user_id': 'U0R7JM', email: 'Krane@Slack-Corp.com',
      email_verified: true, locale: 'en-US', name: 'krane', picture: 'https://secure.gravatar.com/avatar/bc.png?s=192', given_name: '', family_name: '',
      'https://slack.com/team_name': 'kraneflannel', 'https://slack.com/team_domain': 'kraneflannel', 'https://slack.com/user_image_512': 'https://secure.gravatar.com/avatar/bc.png?s=512',
    },
    user: { id: 'U0R7JM', name: 'krane', email: 'krane@slack-corp.com', image: 'https://secure.gravatar.com/avatar/bc.png?s=512' },
    account: { access_token: 'xoxp-1234' },
  },
  // Slack's Web API reports a bad code with status 200 and `ok: false`.
  'slack#error-200': {
    factory: Slack,
    authorize: { url: 'https://slack.com/openid/connect/authorize', scopes: OIDC },
    token: { url: 'https://slack.com/api/openid.connect.token', reply: { json: { ok: false, error: 'invalid_code' } } },
    error: 'OAuthCallbackError',
    errorMessage: /invalid_code/,
  },
  spotify: {
    factory: Spotify,
    authorize: { url: 'https://accounts.spotify.com/authorize', scopes: ['user-read-email'] },
    token: { url: 'https://accounts.spotify.com/api/token', reply: bearer('BQBLuPRYBQ', { scope: 'user-read-email', refresh_token: 'AQCnN5fo' }) },
    routes: {
      'GET https://api.spotify.com/v1/me': {
        json: {
          country: 'SE', display_name: 'Smedjan', email: 'Smedjan@Example.com', explicit_content: { filter_enabled: false, filter_locked: false },
          external_urls: { spotify: 'https://open.spotify.com/user/smedjan' }, followers: { href: null, total: 12 }, href: 'https://api.spotify.com/v1/users/smedjan', id: 'smedjan',
          images: [{ url: 'https://i.scdn.co/image/ab67757000003b8255c25988a6ac314394d3fbf5', height: 300, width: 300 }], product: 'premium', type: 'user', uri: 'spotify:user:smedjan',
        },
      },
    },
    user: { id: 'smedjan', name: 'Smedjan', email: 'smedjan@example.com', image: 'https://i.scdn.co/image/ab67757000003b8255c25988a6ac314394d3fbf5' },
    account: { access_token: 'BQBLuPRYBQ', refresh_token: 'AQCnN5fo', expires_at: NOW_S + 3600 },
  },
  strava: {
    factory: Strava,
    authorize: { url: 'https://www.strava.com/oauth/authorize', scopes: ['read'], params: { approval_prompt: 'auto' } },
    token: {
      url: 'https://www.strava.com/api/v3/oauth/token',
      // An absolute expires_at beside expires_in, and the athlete summary.
      reply: bearer('a4b945687g', { expires_at: NOW_S + 21600, expires_in: 21600, refresh_token: 'e5n567567', athlete: { id: 134815, username: 'marianne_t', resource_state: 2 } }),
    },
    // Strava appends the scopes the athlete accepted to the callback.
    callback: { scope: 'read' },
    routes: {
      'GET https://www.strava.com/api/v3/athlete': {
        json: {
          id: 134815, username: 'marianne_t', resource_state: 2, firstname: 'Marianne', lastname: 'Teutenberg', city: 'San Francisco', state: 'CA', country: 'US', sex: 'F',
          premium: true, summit: true, created_at: '2017-11-14T02:30:05Z', updated_at: '2018-02-06T19:32:20Z', badge_type_id: 4,
          profile_medium: 'https://dgalywyr863hv.cloudfront.net/pictures/athletes/134815/134815/2/medium.jpg', profile: 'https://dgalywyr863hv.cloudfront.net/pictures/athletes/134815/134815/2/large.jpg',
        },
      },
    },
    user: { id: '134815', name: 'Marianne Teutenberg', email: null, image: 'https://dgalywyr863hv.cloudfront.net/pictures/athletes/134815/134815/2/large.jpg' },
    account: { access_token: 'a4b945687g', refresh_token: 'e5n567567', expires_at: NOW_S + 21600 },
  },
  // Twitch: `scope` comes back as an array, and the profile claims must be asked for with `claims`.
  twitch: {
    factory: Twitch,
    authorize: {
      url: 'https://id.twitch.tv/oauth2/authorize',
      scopes: ['openid', 'user:read:email'],
      params: { claims: '{"id_token":{"email":null,"email_verified":null,"picture":null,"preferred_username":null}}' },
    },
    token: { url: 'https://id.twitch.tv/oauth2/token', reply: bearer('0123456789abcdefghijABCDEFGHIJ', { expires_in: 14124, refresh_token: 'eyJfMzUtNDU0OC04MWYwLTQ5MDY5ODY4NGNlMSJ9', scope: ['openid', 'user:read:email'], token_type: 'bearer' }) },
    discovery: { userinfo_endpoint: 'https://id.twitch.tv/oauth2/userinfo', jwks_uri: 'https://id.twitch.tv/oauth2/keys', claims_parameter_supported: true },
    idToken: {
      sub: '713936733', azp: 'client-123', preferred_username: 'twitchdev', email: 'Dev@Example.com', email_verified: true,
      picture: 'https://static-cdn.jtvnw.net/jtv_user_pictures/8a6381c7-profile_image-300x300.png', updated_at: '2025-11-02T10:00:00Z',
    },
    user: { id: '713936733', name: 'twitchdev', email: 'dev@example.com', image: 'https://static-cdn.jtvnw.net/jtv_user_pictures/8a6381c7-profile_image-300x300.png' },
    account: { access_token: '0123456789abcdefghijABCDEFGHIJ', scope: 'openid user:read:email', expires_at: NOW_S + 14124 },
  },
  // X: PKCE and state are required; the v2 user sits under `data`, its picture in the 48px "_normal" size.
  twitter: {
    factory: Twitter,
    authorize: { url: 'https://x.com/i/oauth2/authorize', scopes: ['users.read', 'tweet.read', 'offline.access'] },
    token: {
      url: 'https://api.x.com/2/oauth2/token',
      reply: bearer('VGNibzFWSWJ', { token_type: 'bearer', expires_in: 7200, scope: 'users.read tweet.read offline.access', refresh_token: 'bWRWa3FBNG' }),
    },
    routes: {
      'GET https://api.x.com/2/users/me': (req) => {
        want('user.fields', req.url.searchParams.get('user.fields'), 'profile_image_url');
        return { json: { data: { id: '2244994945', name: 'X Developers', username: 'XDevelopers', profile_image_url: 'https://pbs.twimg.com/profile_images/1683325380441128960/yRsRRjGO_normal.jpg' } } };
      },
    },
    user: { id: '2244994945', name: 'X Developers', email: null, image: 'https://pbs.twimg.com/profile_images/1683325380441128960/yRsRRjGO.jpg' },
    account: { access_token: 'VGNibzFWSWJ', refresh_token: 'bWRWa3FBNG', expires_at: NOW_S + 7200 },
  },
  // With the users.email scope and the confirmed_email field, the address comes back too.
  'twitter#confirmed-email': {
    factory: Twitter,
    options: {
      authorization: { params: { scope: 'users.read tweet.read users.email' } },
      userinfo: { params: { 'user.fields': 'profile_image_url,confirmed_email' } },
    },
    authorize: { url: 'https://x.com/i/oauth2/authorize', scopes: ['users.read', 'tweet.read', 'users.email'] },
    token: { url: 'https://api.x.com/2/oauth2/token', reply: bearer('VGNibzFWSWJ2', { token_type: 'bearer', expires_in: 7200, scope: 'users.read tweet.read users.email' }) },
    routes: {
      'GET https://api.x.com/2/users/me': (req) => {
        want('user.fields', req.url.searchParams.get('user.fields'), 'profile_image_url,confirmed_email');
        return { json: { data: { id: '2244994945', name: 'X Developers', username: 'XDevelopers', confirmed_email: 'Dev@X.com' } } };
      },
    },
    user: { id: '2244994945', name: 'X Developers', email: 'dev@x.com', image: null },
  },
  // VK ID: the code exchange needs the device_id VK appends to the callback, and user info is a POST of the token.
  vk: {
    factory: VK,
    options: { clientId: '51234567' },
    authorize: { url: 'https://id.vk.ru/authorize', scopes: ['vkid.personal_info', 'email'] },
    callback: { device_id: 'dev-9f8e7d', type: 'code_v2', expires_in: '600', ext_id: 'ext-1' },
    token: {
      url: 'https://id.vk.ru/oauth2/auth',
      reply: (req) => ({
        json: {
          refresh_token: 'vk2.a.rt', access_token: 'vk2.a.at', id_token: 'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.vk', token_type: 'Bearer', expires_in: 3600,
          user_id: 1234567890, state: req.form.get('state'), scope: 'vkid.personal_info email',
        },
      }),
      check: (req) => {
        want('grant_type', req.form.get('grant_type'), 'authorization_code');
        want('client_id', req.form.get('client_id'), '51234567');
        want('device_id', req.form.get('device_id'), 'dev-9f8e7d');
        want('redirect_uri', req.form.get('redirect_uri'), 'https://app.test/auth/callback/vk');
        want('code_verifier length', (req.form.get('code_verifier') ?? '').length >= 43, true);
        want('state', Boolean(req.form.get('state')), true);
        want('client_secret', req.form.get('client_secret'), null);
      },
    },
    routes: {
      'POST https://id.vk.ru/oauth2/user_info': (req) => {
        want('client_id', req.form.get('client_id'), '51234567');
        want('access_token', req.form.get('access_token'), 'vk2.a.at');
        return {
          json: {
            user: {
              user_id: '1234567890', first_name: 'Ivan', last_name: 'Ivanov', phone: '79991234567', email: 'Ivan_I123@vk.com', sex: 2, verified: false,
              avatar: 'https://pp.userapi.com/60tZWMo4SmwcploUVl9XEt8ufnTTvDUmQ6Bj1g/mmv1pcj63C4.png', birthday: '01.01.2000',
            },
          },
        };
      },
    },
    user: { id: '1234567890', name: 'Ivan Ivanov', email: 'ivan_i123@vk.com', image: 'https://pp.userapi.com/60tZWMo4SmwcploUVl9XEt8ufnTTvDUmQ6Bj1g/mmv1pcj63C4.png' },
    account: { access_token: 'vk2.a.at', refresh_token: 'vk2.a.rt' },
  },
  yandex: {
    factory: Yandex,
    authorize: { url: 'https://oauth.yandex.ru/authorize', scopes: ['login:info', 'login:email', 'login:avatar'] },
    token: { url: 'https://oauth.yandex.ru/token', reply: bearer('y0_AgAAAAA', { token_type: 'bearer', expires_in: 31536000, refresh_token: '1:GN686QVt0mmakDd9' }) },
    routes: {
      // The token goes with the `OAuth` scheme, and `format=json` asks for JSON.
      'GET https://login.yandex.ru/info': (req) => {
        want('authorization', req.headers.authorization, 'OAuth y0_AgAAAAA');
        want('format', req.url.searchParams.get('format'), 'json');
        return {
          json: {
            id: '1000034426', login: 'ivan', client_id: '4760187d81bc4b7799476b42b5103713', display_name: 'Ivan', real_name: 'Ivan Ivanov', first_name: 'Ivan', last_name: 'Ivanov',
            sex: 'male', default_email: 'Test@Yandex.ru', emails: ['Test@Yandex.ru', 'other-test@yandex.ru'], default_avatar_id: '131652443', is_avatar_empty: false,
            psuid: '1.AAceCw.tbHgw5DtJ9_zeqPrk-Ba2w.qPWSRC5v2t2IaksPJgnge',
          },
        };
      },
    },
    user: { id: '1000034426', name: 'Ivan', email: 'test@yandex.ru', image: 'https://avatars.yandex.net/get-yapic/131652443/islands-200' },
    account: { access_token: 'y0_AgAAAAA', refresh_token: '1:GN686QVt0mmakDd9', expires_at: NOW_S + 31536000 },
  },
  // The placeholder avatar is no picture; without a default address the first listed one is taken.
  'yandex#no-avatar': {
    factory: Yandex,
    authorize: { url: 'https://oauth.yandex.ru/authorize', scopes: ['login:info', 'login:email', 'login:avatar'] },
    token: { url: 'https://oauth.yandex.ru/token', reply: bearer('y0_AgAAAAB', { token_type: 'bearer', expires_in: 31536000 }) },
    routes: {
      'GET https://login.yandex.ru/info': {
        json: { id: '1000034427', login: 'petr', client_id: '4760187d81bc4b7799476b42b5103713', psuid: '1.AAceCw.x', emails: ['petr@yandex.ru'], default_avatar_id: '0/0-0', is_avatar_empty: true },
      },
    },
    user: { id: '1000034427', name: 'petr', email: 'petr@yandex.ru', image: null },
  },
  zitadel: {
    factory: Zitadel,
    options: { issuer: 'https://acme-abc123.zitadel.cloud' },
    authorize: { url: 'https://acme-abc123.zitadel.cloud/oauth/v2/authorize', scopes: OIDC },
    token: { url: 'https://acme-abc123.zitadel.cloud/oauth/v2/token', reply: bearer('zt-at', { expires_in: 43199 }) },
    discovery: { userinfo_endpoint: 'https://acme-abc123.zitadel.cloud/oidc/v1/userinfo', jwks_uri: 'https://acme-abc123.zitadel.cloud/oauth/v2/keys' },
    // `aud` lists the project id beside the client id.
    idToken: (ctx) => ({
      aud: [ctx.clientId, '170086363054473473'], azp: ctx.clientId, sub: '170086824411201793', name: 'Road Runner', given_name: 'Road', family_name: 'Runner', nickname: 'Beep',
      preferred_username: 'road.runner@acme.zitadel.cloud', email: 'Road.Runner@Acme.test', email_verified: true, locale: 'en', updated_at: 1616417938,
    }),
    user: { id: '170086824411201793', name: 'Road Runner', email: 'road.runner@acme.test', image: null },
    account: { access_token: 'zt-at', expires_at: NOW_S + 43199 },
  },
  zoom: {
    factory: Zoom,
    authorize: { url: 'https://zoom.us/oauth/authorize' },
    token: { url: 'https://zoom.us/oauth/token', reply: bearer('eyJzdiI6IjAwMDAwMSIs.zoom-at', { token_type: 'bearer', expires_in: 3599, refresh_token: 'eyJzdiI6.zoom-rt', scope: 'user:read:user', api_url: 'https://api.zoom.us' }) },
    routes: {
      'GET https://api.zoom.us/v2/users/me': {
        json: {
          id: 'KDcuGIm1QgePTO8WbOqwIQ', first_name: 'Jill', last_name: 'Chill', display_name: 'Jill Chill', email: 'JChill@Example.com', type: 1, role_name: 'Owner',
          pmi: 3542471135, use_pmi: false, personal_meeting_url: 'https://zoom.us/j/3542471135', timezone: 'Asia/Shanghai', verified: 1, dept: '', created_at: '2019-06-01T07:58:03Z',
          last_login_time: '2025-06-01T07:58:03Z', pic_url: 'https://zoom.us/p/KDcuGIm1QgePTO8WbOqwIQ/photo.jpg', language: 'en-US', status: 'active', account_id: 'q6gBJVO5TzexKYTb_I2rpg',
        },
      },
    },
    user: { id: 'KDcuGIm1QgePTO8WbOqwIQ', name: 'Jill Chill', email: 'jchill@example.com', image: 'https://zoom.us/p/KDcuGIm1QgePTO8WbOqwIQ/photo.jpg' },
    account: { access_token: 'eyJzdiI6IjAwMDAwMSIs.zoom-at', refresh_token: 'eyJzdiI6.zoom-rt', expires_at: NOW_S + 3599 },
  },
};

describeExchangeCases('catalogue exchange: the original presets, apple..zoom', cases);
