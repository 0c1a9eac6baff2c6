// Each built-in OpenID Connect provider: its authorization URL and its mapping of real claim sets.
import { describe, it } from 'vitest';
import Apple from '../../src/providers/catalogue/apple.js';
import Auth0 from '../../src/providers/catalogue/auth0.js';
import Authentik from '../../src/providers/catalogue/authentik.js';
import Cognito from '../../src/providers/catalogue/cognito.js';
import FusionAuth from '../../src/providers/catalogue/fusionauth.js';
import Google from '../../src/providers/catalogue/google.js';
import Keycloak from '../../src/providers/catalogue/keycloak.js';
import Line from '../../src/providers/catalogue/line.js';
import LinkedIn from '../../src/providers/catalogue/linkedin.js';
import MicrosoftEntraID from '../../src/providers/catalogue/microsoft-entra-id.js';
import Okta from '../../src/providers/catalogue/okta.js';
import Salesforce from '../../src/providers/catalogue/salesforce.js';
import Slack from '../../src/providers/catalogue/slack.js';
import Twitch from '../../src/providers/catalogue/twitch.js';
import Zitadel from '../../src/providers/catalogue/zitadel.js';
import { checkCatalogueCase, type CatalogueCase } from './catalogue-harness.js';

const OIDC = ['openid', 'profile', 'email'];
const times = { iat: 1768478400, exp: 1768482000 };

const cases: Record<string, CatalogueCase> = {
  google: {
    factory: Google,
    authorize: { origin: 'https://accounts.google.com', pathname: '/o/oauth2/v2/auth', scopes: OIDC },
    profile: {
      iss: 'https://accounts.google.com', azp: '1234987819200.apps.googleusercontent.com', aud: '1234987819200.apps.googleusercontent.com',
      sub: '110169484474386276334', hd: 'example.com', email: 'JSmith@example.com', email_verified: true, at_hash: 'HK6E_P6Dh8Y93mRNtsDB1Q',
      name: 'John Smith', picture: 'https://lh3.googleusercontent.com/a/ACg8ocKx3=s96-c', given_name: 'John', family_name: 'Smith', nonce: 'n-0S6_WzA2Mj', ...times,
    },
    user: { id: '110169484474386276334', name: 'John Smith', email: 'jsmith@example.com', image: 'https://lh3.googleusercontent.com/a/ACg8ocKx3=s96-c' },
  },
  'microsoft-entra-id': {
    factory: MicrosoftEntraID,
    options: { issuer: 'https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0' },
    discovered: 'https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/oauth2/v2.0/authorize',
    authorize: { origin: 'https://login.microsoftonline.com', pathname: '/9188040d-6c67-4c5b-b112-36a304b66dad/oauth2/v2.0/authorize', scopes: OIDC },
    profile: {
      ver: '2.0', iss: 'https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0', sub: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ',
      aud: '6cb04018-a3f5-46a7-b995-940c78f5aef3', nbf: 1768478400, name: 'Megan Bowen', preferred_username: 'MeganB@contoso.onmicrosoft.com',
      oid: '00000000-0000-0000-66f3-3332eca7ea81', email: 'MeganB@contoso.com', tid: '9188040d-6c67-4c5b-b112-36a304b66dad', nonce: 'n-0S6_WzA2Mj', ...times,
    },
    user: { id: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ', name: 'Megan Bowen', email: 'meganb@contoso.com', image: null },
  },
  apple: {
    factory: Apple,
    authorize: { origin: 'https://appleid.apple.com', pathname: '/auth/authorize', scopes: ['name', 'email'], params: { response_mode: 'form_post' } },
    profile: {
      iss: 'https://appleid.apple.com', aud: 'com.example.web', sub: '001234.5b6e8a3c9d7f4e21a0b1c2d3e4f56789.1234', c_hash: 'kSvLb3nNNyLq7sgN7eBf4g',
      email: 'x8q2kd9z4h@privaterelay.appleid.com', email_verified: true, is_private_email: true, auth_time: 1768478390, nonce_supported: true,
      user: { name: { firstName: 'Jane', lastName: 'Appleseed' }, email: 'x8q2kd9z4h@privaterelay.appleid.com' }, ...times,
    },
    user: { id: '001234.5b6e8a3c9d7f4e21a0b1c2d3e4f56789.1234', name: 'Jane Appleseed', email: 'x8q2kd9z4h@privaterelay.appleid.com', image: null },
  },
  linkedin: {
    factory: LinkedIn,
    authorize: { origin: 'https://www.linkedin.com', pathname: '/oauth/v2/authorization', scopes: OIDC },
    profile: {
      iss: 'https://www.linkedin.com/oauth', aud: '86yxs6a1b2c3d4', sub: '782bbtaQ', name: 'John Doe', given_name: 'John', family_name: 'Doe',
      picture: 'https://media.licdn.com/dms/image/C5F03AQHqK8v7tB1HCQ/profile-displayphoto-shrink_100_100/0/', locale: { country: 'US', language: 'en' },
      email: 'doe@email.com', email_verified: true, ...times,
    },
    user: { id: '782bbtaQ', name: 'John Doe', email: 'doe@email.com', image: 'https://media.licdn.com/dms/image/C5F03AQHqK8v7tB1HCQ/profile-displayphoto-shrink_100_100/0/' },
  },
  slack: {
    factory: Slack,
    authorize: { origin: 'https://slack.com', pathname: '/openid/connect/authorize', scopes: OIDC },
    profile: {
      iss: 'https://slack.com', sub: 'U0R7JM', aud: '25259531569.1115258246291', auth_time: 1768478390, nonce: 'n-0S6_WzA2Mj', at_hash: 'abc',
      'https://slack.com/team_id': 'T0R7GR', 'https://slack.com/user_id': 'U0R7JM', email: 'krane@slack-corp.com', email_verified: true,
      locale: 'en-US', name: 'krane', picture: 'https://secure.gravatar.com/avatar/bc.png?s=192', given_name: '', family_name: '',
      'https://slack.com/team_name': 'kraneflannel', 'https://slack.com/team_domain': 'kraneflannel',
      'https://slack.com/user_image_512': 'https://secure.gravatar.com/avatar/bc.png?s=512', ...times,
    },
    user: { id: 'U0R7JM', name: 'krane', email: 'krane@slack-corp.com', image: 'https://secure.gravatar.com/avatar/bc.png?s=512' },
  },
  auth0: {
    factory: Auth0,
    options: { issuer: 'https://dev-abc123.us.auth0.com/' },
    discovered: 'https://dev-abc123.us.auth0.com/authorize',
    authorize: { origin: 'https://dev-abc123.us.auth0.com', pathname: '/authorize', scopes: OIDC },
    profile: {
      given_name: 'Jane', family_name: 'Doe', nickname: 'janedoe', name: 'Jane Doe', picture: 'https://s.gravatar.com/avatar/9f8e.png',
      locale: 'en', updated_at: '2026-01-10T09:00:00.000Z', email: 'janedoe@example.com', email_verified: true,
      iss: 'https://dev-abc123.us.auth0.com/', aud: 'client-123', sub: 'auth0|5f7c8ec7c33c6c004bbafe82', sid: 'Ck0a', nonce: 'n-0S6_WzA2Mj', ...times,
    },
    user: { id: 'auth0|5f7c8ec7c33c6c004bbafe82', name: 'Jane Doe', email: 'janedoe@example.com', image: 'https://s.gravatar.com/avatar/9f8e.png' },
  },
  okta: {
    factory: Okta,
    options: { issuer: 'https://dev-123456.okta.com/oauth2/default' },
    discovered: 'https://dev-123456.okta.com/oauth2/default/v1/authorize',
    authorize: { origin: 'https://dev-123456.okta.com', pathname: '/oauth2/default/v1/authorize', scopes: OIDC },
    profile: {
      sub: '00uid4BxXw6I6TV4m0g3', name: 'John Doe', email: 'john.doe@example.com', ver: 1, iss: 'https://dev-123456.okta.com/oauth2/default',
      aud: 'client-123', jti: 'ID.4eAWJOCMB3SX8XewDfVR', amr: ['pwd'], idp: '00ouwlx8fBKbXHJgU0g3', nonce: 'n-0S6_WzA2Mj',
      preferred_username: 'john.doe@example.com', auth_time: 1768478390, ...times,
    },
    user: { id: '00uid4BxXw6I6TV4m0g3', name: 'John Doe', email: 'john.doe@example.com', image: null },
  },
  keycloak: {
    factory: Keycloak,
    options: { issuer: 'https://sso.example.com/realms/acme' },
    discovered: 'https://sso.example.com/realms/acme/protocol/openid-connect/auth',
    authorize: { origin: 'https://sso.example.com', pathname: '/realms/acme/protocol/openid-connect/auth', scopes: OIDC },
    profile: {
      auth_time: 1768478390, jti: '1d8b4c9e', iss: 'https://sso.example.com/realms/acme', aud: 'client-123', sub: 'f8a4e7b2-3c1d-4e5f-9a8b-7c6d5e4f3a2b',
      typ: 'ID', azp: 'client-123', nonce: 'n-0S6_WzA2Mj', sid: '6f1c', acr: '1', email_verified: true, preferred_username: 'alice',
      given_name: 'Alice', family_name: 'Liddell', email: 'alice@example.com', ...times,
    },
    user: { id: 'f8a4e7b2-3c1d-4e5f-9a8b-7c6d5e4f3a2b', name: 'alice', email: 'alice@example.com', image: null },
  },
  cognito: {
    factory: Cognito,
    options: { issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEfGhI' },
    discovered: 'https://acme.auth.eu-west-1.amazoncognito.com/oauth2/authorize',
    authorize: { origin: 'https://acme.auth.eu-west-1.amazoncognito.com', pathname: '/oauth2/authorize', scopes: OIDC },
    profile: {
      at_hash: 'UWe8', sub: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee', 'cognito:groups': ['admins'], email_verified: true,
      iss: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEfGhI', 'cognito:username': 'janedoe', origin_jti: 'f2b4',
      aud: '7d8kqfe4k2abcdefghij', event_id: '8a2c', token_use: 'id', auth_time: 1768478390, jti: '3c1d', email: 'janedoe@example.com', ...times,
    },
    user: { id: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee', name: 'janedoe', email: 'janedoe@example.com', image: null },
  },
  twitch: {
    factory: Twitch,
    authorize: { origin: 'https://id.twitch.tv', pathname: '/oauth2/authorize', scopes: ['openid', 'user:read:email'] },
    profile: {
      aud: 'hof5gwx0su6owfnys0yan9c87zr6t', iss: 'https://id.twitch.tv/oauth2', sub: '713936733', azp: 'hof5gwx0su6owfnys0yan9c87zr6t',
      nonce: 'n-0S6_WzA2Mj', preferred_username: 'twitchdev', email: 'dev@example.com', email_verified: true,
      picture: 'https://static-cdn.jtvnw.net/jtv_user_pictures/8a6381c7-profile_image-300x300.png', updated_at: '2025-11-02T10:00:00Z', ...times,
    },
    user: { id: '713936733', name: 'twitchdev', email: 'dev@example.com', image: 'https://static-cdn.jtvnw.net/jtv_user_pictures/8a6381c7-profile_image-300x300.png' },
  },
  salesforce: {
    factory: Salesforce,
    discovered: 'https://login.salesforce.com/services/oauth2/authorize',
    authorize: { origin: 'https://login.salesforce.com', pathname: '/services/oauth2/authorize', scopes: OIDC },
    profile: {
      sub: 'https://login.salesforce.com/id/00Dx0000000BV7z/005x00000012Q9P', user_id: '005x00000012Q9P', organization_id: '00Dx0000000BV7z',
      preferred_username: 'admin@example.com', nickname: 'admin', name: 'Jane Admin', email: 'admin@example.com', email_verified: true,
      given_name: 'Jane', family_name: 'Admin', zoneinfo: 'America/Los_Angeles',
      photos: { picture: 'https://acme.file.force.com/profilephoto/005/F', thumbnail: 'https://acme.file.force.com/profilephoto/005/T' },
      picture: 'https://acme.file.force.com/profilephoto/005/F', active: true, user_type: 'STANDARD', language: 'en_US', utcOffset: -28800000,
    },
    user: { id: '005x00000012Q9P', name: 'Jane Admin', email: 'admin@example.com', image: 'https://acme.file.force.com/profilephoto/005/F' },
  },
  zitadel: {
    factory: Zitadel,
    options: { issuer: 'https://acme-abc123.zitadel.cloud' },
    discovered: 'https://acme-abc123.zitadel.cloud/oauth/v2/authorize',
    authorize: { origin: 'https://acme-abc123.zitadel.cloud', pathname: '/oauth/v2/authorize', scopes: OIDC },
    profile: {
      iss: 'https://acme-abc123.zitadel.cloud', sub: '170086824411201793', aud: ['client-123'], name: 'Road Runner', given_name: 'Road',
      family_name: 'Runner', nickname: 'Beep', preferred_username: 'road.runner@acme.zitadel.cloud', email: 'road.runner@acme.test',
      email_verified: true, locale: 'en', updated_at: 1616417938, nonce: 'n-0S6_WzA2Mj', ...times,
    },
    user: { id: '170086824411201793', name: 'Road Runner', email: 'road.runner@acme.test', image: null },
  },
  authentik: {
    factory: Authentik,
    options: { issuer: 'https://auth.example.com/application/o/intranet/' },
    discovered: 'https://auth.example.com/application/o/authorize/',
    authorize: { origin: 'https://auth.example.com', pathname: '/application/o/authorize/', scopes: OIDC },
    profile: {
      iss: 'https://auth.example.com/application/o/intranet/', sub: '5c2a0a5bd6f7c6d3b1d5e1c8e5a9f3b2c7d4e6f8a0b1c2d3e4f5a6b7c8d9e0f1',
      aud: 'client-123', auth_time: 1768478390, acr: 'goauthentik.io/providers/oauth2/default', nonce: 'n-0S6_WzA2Mj',
      email: 'akadmin@example.com', email_verified: true, name: 'authentik Default Admin', given_name: 'authentik Default Admin',
      preferred_username: 'akadmin', nickname: 'akadmin', groups: ['authentik Admins'], ...times,
    },
    user: {
      id: '5c2a0a5bd6f7c6d3b1d5e1c8e5a9f3b2c7d4e6f8a0b1c2d3e4f5a6b7c8d9e0f1', name: 'authentik Default Admin', email: 'akadmin@example.com', image: null,
    },
  },
  fusionauth: {
    factory: FusionAuth,
    options: { issuer: 'https://auth.example.com' },
    discovered: 'https://auth.example.com/oauth2/authorize',
    authorize: { origin: 'https://auth.example.com', pathname: '/oauth2/authorize', scopes: OIDC },
    profile: {
      aud: '85a03867-dccf-4882-adde-1a79aeec50df', iss: 'https://auth.example.com', sub: '2ffc1fb7-d7a5-4b2c-9c4e-6f1c8a6f2b1e',
      jti: 'a8b5', authenticationType: 'PASSWORD', email: 'Richard@Example.com', email_verified: true, preferred_username: 'richard',
      applicationId: '85a03867-dccf-4882-adde-1a79aeec50df', roles: ['admin'], auth_time: 1768478390,
      tid: '30663132-6464-6665-3032-326466613934', nonce: 'n-0S6_WzA2Mj', ...times,
    },
    user: { id: '2ffc1fb7-d7a5-4b2c-9c4e-6f1c8a6f2b1e', name: 'richard', email: 'richard@example.com', image: null },
  },
  line: {
    factory: Line,
    authorize: { origin: 'https://access.line.me', pathname: '/oauth2/v2.1/authorize', scopes: OIDC },
    profile: {
      iss: 'https://access.line.me', sub: 'U1234567890abcdef1234567890abcdef', aud: '1234567890', nonce: 'n-0S6_WzA2Mj', amr: ['pwd'],
      name: 'Taro Line', picture: 'https://profile.line-scdn.net/0hbZ3Y', email: 'taro.line@example.com', ...times,
    },
    user: { id: 'U1234567890abcdef1234567890abcdef', name: 'Taro Line', email: 'taro.line@example.com', image: 'https://profile.line-scdn.net/0hbZ3Y' },
  },
};

describe('catalogue: OpenID Connect providers', () => {
  for (const [id, c] of Object.entries(cases)) {
    it(`${id}: authorization URL and profile mapping`, () => checkCatalogueCase(id, c));
  }
});
