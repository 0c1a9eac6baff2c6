// Catalogue presets 42-school..kinde: authorization URL, token and user-info exchange against a fake of each
// provider's documented API (quirks included), and the user and account that come out.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  Asgardeo, AzureAD, AzureADB2C, AzureDevOps, BankIDNorway, BattleNet, BeyondIdentity, Box, BoxyHQSAML, Bungie, ClickUp, Coinbase, Concept2,
  Descope, Dribbble, DuendeIdentityServer6, EVEOnline, Eventbrite, FACEIT, Figma, FortyTwo, Foursquare, Freshbooks, Frontegg, HubSpot,
  Huggingface, IdentityServer4, Instagram, Kinde,
} from '../../src/providers/catalogue/index.js';
import { describeExchangeCases, EXCHANGE_NOW, type ExchangeCase, type FakeRequest } from './catalogue-exchange.js';

const NOW_S = EXCHANGE_NOW / 1000;
const OIDC = ['openid', 'profile', 'email'];
const bearer = (access_token: string, extra: Record<string, unknown> = {}) => ({ json: { access_token, token_type: 'Bearer', expires_in: 3600, ...extra } });
const header = (name: string, value: string) => (req: FakeRequest) => {
  if (req.headers[name] !== value) throw new Error(`${name}: ${String(req.headers[name])}`);
};

// The deprecated aliases warn once; keep the test output clean and check they do.
const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
beforeAll(() => warn.mockClear());
afterAll(() => warn.mockRestore());

const cases: Record<string, ExchangeCase> = {
  '42-school': {
    factory: FortyTwo,
    authorize: { url: 'https://api.intra.42.fr/oauth/authorize', scopes: ['public'] },
    token: { url: 'https://api.intra.42.fr/oauth/token', reply: bearer('42-at', { expires_in: 7200, scope: 'public', created_at: NOW_S, refresh_token: '42-rt' }) },
    routes: {
      'GET https://api.intra.42.fr/v2/me': {
        json: {
          id: 2, email: 'Andre@42.fr', login: 'andre', first_name: 'André', last_name: 'Aubert', usual_full_name: 'Juliette Aubert', usual_first_name: 'Juliette',
          url: 'https://api.intra.42.fr/v2/users/andre', phone: 'hidden', displayname: 'André Aubert', kind: 'admin',
          image: { link: 'https://cdn.intra.42.fr/users/1234567890/andre.jpg', versions: { large: 'https://cdn.intra.42.fr/users/large_andre.jpg', micro: 'https://cdn.intra.42.fr/users/micro_andre.jpg' } },
          'staff?': false, correction_point: 4, pool_month: 'july', pool_year: '2016', location: null, wallet: 0, cursus_users: [], projects_users: [],
        },
      },
    },
    user: { id: '2', name: 'Juliette Aubert', email: 'andre@42.fr', image: 'https://cdn.intra.42.fr/users/1234567890/andre.jpg' },
    account: { access_token: '42-at', refresh_token: '42-rt', expires_at: NOW_S + 7200 },
  },
  asgardeo: {
    factory: Asgardeo,
    // Given as Auth.js takes it; the preset adds /oauth2/token.
    options: { issuer: 'https://api.asgardeo.io/t/acme' },
    authorize: { url: 'https://api.asgardeo.io/t/acme/oauth2/authorize', scopes: OIDC },
    token: { url: 'https://api.asgardeo.io/t/acme/oauth2/token', reply: bearer('asg-at', { scope: 'openid profile email' }) },
    idToken: { sub: '5a9b6c1e-4d2f-4a8b-9c3d-1e2f3a4b5c6d', given_name: 'Ann', family_name: 'Lee', email: 'Ann@acme.test', picture: 'https://acme.test/ann.png', org_name: 'acme' },
    user: { id: '5a9b6c1e-4d2f-4a8b-9c3d-1e2f3a4b5c6d', name: 'Ann Lee', email: 'ann@acme.test', image: 'https://acme.test/ann.png' },
    account: { access_token: 'asg-at', expires_at: NOW_S + 3600 },
  },
  'azure-ad': {
    factory: AzureAD,
    options: { issuer: 'https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0' },
    authorize: { url: 'https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/oauth2/v2.0/authorize', scopes: OIDC },
    token: { url: 'https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/oauth2/v2.0/token', reply: bearer('eyJ0eXAi.entra', { ext_expires_in: 3600, scope: 'openid profile email' }) },
    idToken: {
      ver: '2.0', sub: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ', oid: '00000000-0000-0000-66f3-3332eca7ea81', tid: '9188040d-6c67-4c5b-b112-36a304b66dad',
      name: 'Megan Bowen', preferred_username: 'MeganB@contoso.onmicrosoft.com', email: 'MeganB@contoso.com',
    },
    user: { id: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ', name: 'Megan Bowen', email: 'meganb@contoso.com', image: null },
  },
  'azure-ad-b2c': {
    factory: AzureADB2C,
    options: {
      wellKnown: 'https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_signin/v2.0/.well-known/openid-configuration',
      issuer: 'https://contoso.b2clogin.com/775527ff-9a37-4307-8b3d-cc311f58d925/v2.0/',
    },
    authorize: { url: 'https://contoso.b2clogin.com/contoso.onmicrosoft.com/b2c_1_signin/oauth2/v2.0/authorize', scopes: ['openid', 'offline_access'] },
    token: { url: 'https://contoso.b2clogin.com/contoso.onmicrosoft.com/b2c_1_signin/oauth2/v2.0/token', reply: bearer('b2c-at', { refresh_token: 'b2c-rt', id_token_expires_in: 3600, profile_info: 'eyJ2ZXIiOiIxLjAifQ' }) },
    routes: {
      // The policy's document names the tenant by id, unlike the URL it is served from.
      'GET https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_signin/v2.0/.well-known/openid-configuration': (_req, ctx) => ({
        json: {
          issuer: ctx.issuer,
          authorization_endpoint: ctx.fake('https://contoso.b2clogin.com/contoso.onmicrosoft.com/b2c_1_signin/oauth2/v2.0/authorize'),
          token_endpoint: ctx.fake('https://contoso.b2clogin.com/contoso.onmicrosoft.com/b2c_1_signin/oauth2/v2.0/token'),
          jwks_uri: ctx.fake('https://contoso.b2clogin.com/contoso.onmicrosoft.com/b2c_1_signin/discovery/v2.0/keys'),
          response_types_supported: ['code', 'code id_token'], subject_types_supported: ['pairwise'], id_token_signing_alg_values_supported: ['RS256'],
        },
      }),
      'GET https://contoso.b2clogin.com/contoso.onmicrosoft.com/b2c_1_signin/discovery/v2.0/keys': (_req, ctx) => ctx.jwks(),
    },
    anonymous: ['https://contoso.b2clogin.com/contoso.onmicrosoft.com/b2c_1_signin/discovery/v2.0/keys'],
    idToken: {
      ver: '1.0', sub: '9f2b1c4e-2a1e-4c7b-8d9e-0a1b2c3d4e5f', oid: '9f2b1c4e-2a1e-4c7b-8d9e-0a1b2c3d4e5f', tfp: 'B2C_1_signin', auth_time: NOW_S,
      given_name: 'Bea', family_name: 'Bauer', emails: ['Bea@contoso.test'], idp: 'LocalAccount',
    },
    user: { id: '9f2b1c4e-2a1e-4c7b-8d9e-0a1b2c3d4e5f', name: 'Bea Bauer', email: 'bea@contoso.test', image: null },
    account: { refresh_token: 'b2c-rt' },
  },
  'azure-devops': {
    factory: AzureDevOps,
    authorize: { url: 'https://app.vssps.visualstudio.com/oauth2/authorize', scopes: ['vso.profile'], params: { response_type: 'Assertion' } },
    token: {
      url: 'https://app.vssps.visualstudio.com/oauth2/token',
      // expires_in comes as a string, and the token type is not "bearer".
      reply: { json: { access_token: 'ado-at', token_type: 'jwt-bearer', expires_in: '3599', refresh_token: 'ado-rt', scope: 'vso.profile' } },
      check: (req) => {
        if (req.form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') throw new Error('grant_type');
        if (req.form.get('client_assertion') !== 'secret-456') throw new Error('client_assertion');
        if (req.form.get('client_assertion_type') !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer') throw new Error('client_assertion_type');
        if (req.form.get('redirect_uri') !== 'https://app.test/auth/callback/azure-devops') throw new Error('redirect_uri');
      },
    },
    routes: {
      'GET https://app.vssps.visualstudio.com/_apis/profile/profiles/me': (req) => {
        if (req.url.searchParams.get('coreAttributes') !== 'Avatar') throw new Error('coreAttributes');
        return { json: { displayName: 'Dana Ops', publicAlias: 'd1', emailAddress: 'Dana@fabrikam.test', coreRevision: 5, timeStamp: '2025-01-01T00:00:00+00:00', id: 'd1', revision: 5, coreAttributes: { Avatar: { value: { isAutoGenerated: false, size: 'medium', value: 'iVBORw0KGgo=' } } } } };
      },
    },
    user: { id: 'd1', name: 'Dana Ops', email: 'dana@fabrikam.test', image: 'data:image/png;base64,iVBORw0KGgo=' },
    account: { access_token: 'ado-at', refresh_token: 'ado-rt', expires_at: NOW_S + 3599 },
  },
  'bankid-no': {
    factory: BankIDNorway,
    authorize: { url: 'https://auth.bankid.no/auth/realms/prod/protocol/openid-connect/auth', scopes: OIDC, params: { ui_locales: 'no', login_hint: 'BIS' } },
    token: { url: 'https://auth.bankid.no/auth/realms/prod/protocol/openid-connect/token', reply: bearer('bid-at', { refresh_expires_in: 1800, session_state: 's1', scope: 'openid profile email' }) },
    discovery: { userinfo_endpoint: 'https://auth.bankid.no/auth/realms/prod/protocol/openid-connect/userinfo', userinfo_signing_alg_values_supported: ['RS256'] },
    idToken: { sub: '9578-6000-4-365161', name: 'Kari Nordmann', amr: 'BIS', acr: 'urn:bankid:bis;LOA=4' },
    routes: {
      // Signed user info: the only place the e-mail address is found.
      'GET https://auth.bankid.no/auth/realms/prod/protocol/openid-connect/userinfo': async (_req, ctx) => ({
        text: await ctx.sign({ sub: '9578-6000-4-365161', name: 'Kari Nordmann', given_name: 'Kari', family_name: 'Nordmann', birthdate: '1986-12-18', email: 'Kari@example.no' }),
        headers: { 'content-type': 'application/jwt' },
      }),
    },
    user: { id: '9578-6000-4-365161', name: 'Kari Nordmann', email: 'kari@example.no', image: null },
  },
  battlenet: {
    factory: BattleNet,
    authorize: { url: 'https://oauth.battle.net/authorize', scopes: ['openid'] },
    token: { url: 'https://oauth.battle.net/token', reply: bearer('EUx1', { expires_in: 86399, scope: 'openid', sub: '100000001' }) },
    idToken: { sub: '100000001', battle_tag: 'Thrall#1234' },
    user: { id: '100000001', name: 'Thrall#1234', email: null, image: null },
  },
  beyondidentity: {
    factory: BeyondIdentity,
    options: { issuer: 'https://auth-us.beyondidentity.com/v1/tenants/t1/realms/r1/applications/a1' },
    authorize: { url: 'https://auth-us.beyondidentity.com/v1/tenants/t1/realms/r1/applications/a1/authorize', scopes: OIDC },
    token: { url: 'https://auth-us.beyondidentity.com/v1/tenants/t1/realms/r1/applications/a1/token' },
    idToken: { sub: 'i7x9w2', preferred_username: 'casey', email: 'Casey@example.com' },
    user: { id: 'i7x9w2', name: 'casey', email: 'casey@example.com', image: null },
  },
  box: {
    factory: Box,
    authorize: { url: 'https://account.box.com/api/oauth2/authorize' },
    token: { url: 'https://api.box.com/oauth2/token', reply: bearer('box-at', { expires_in: 3600, restricted_to: [], refresh_token: 'box-rt' }) },
    routes: {
      'GET https://api.box.com/2.0/users/me': { json: { type: 'user', id: '11446498', name: 'Aaron Levie', login: 'ceo@example.com', language: 'en', status: 'active', avatar_url: 'https://www.box.com/api/avatar/large/181216415' } },
    },
    user: { id: '11446498', name: 'Aaron Levie', email: 'ceo@example.com', image: 'https://www.box.com/api/avatar/large/181216415' },
    account: { refresh_token: 'box-rt' },
  },
  'boxyhq-saml': {
    factory: BoxyHQSAML,
    options: { issuer: 'https://jackson.acme.test', clientId: 'tenant=acme.com&product=app', clientSecret: 'dummy' },
    authorize: { url: 'https://jackson.acme.test/api/oauth/authorize', params: { provider: 'saml', client_id: 'tenant=acme.com&product=app' } },
    token: {
      url: 'https://jackson.acme.test/api/oauth/token',
      reply: bearer('jk-at'),
      check: (req) => {
        if (req.form.get('client_id') !== 'tenant=acme.com&product=app' || req.form.get('client_secret') !== 'dummy') throw new Error('client credentials in the body');
      },
    },
    routes: { 'GET https://jackson.acme.test/api/oauth/userinfo': { json: { id: 'saml-7', email: 'Sam@acme.com', firstName: 'Sam', lastName: 'Saml', requested: { tenant: 'acme.com' } } } },
    user: { id: 'saml-7', name: 'Sam Saml', email: 'sam@acme.com', image: null },
  },
  bungie: {
    factory: Bungie,
    options: { apiKey: 'bungie-key' },
    authorize: { url: 'https://www.bungie.net/en/OAuth/Authorize' },
    token: { url: 'https://www.bungie.net/Platform/App/OAuth/Token/', reply: bearer('bng-at', { refresh_token: 'bng-rt', refresh_expires_in: 7776000, membership_id: '4611686018' }) },
    routes: {
      'GET https://www.bungie.net/Platform/User/GetMembershipsForCurrentUser/': (req) => {
        header('x-api-key', 'bungie-key')(req);
        return {
          json: {
            Response: { destinyMemberships: [{ membershipType: 3, membershipId: '4611686018467284386', displayName: 'Guardian' }], bungieNetUser: { membershipId: '4611686018', uniqueName: 'Guardian#0042', displayName: 'Guardian', profilePicturePath: '/img/profile/avatars/default_avatar.gif' } },
            ErrorCode: 1, ThrottleSeconds: 0, ErrorStatus: 'Success', Message: 'Ok', MessageData: {},
          },
        };
      },
    },
    user: { id: '4611686018', name: 'Guardian#0042', email: null, image: 'https://www.bungie.net/img/profile/avatars/default_avatar.gif' },
  },
  'bungie#api-error': {
    factory: Bungie,
    authorize: { url: 'https://www.bungie.net/en/OAuth/Authorize' },
    token: { url: 'https://www.bungie.net/Platform/App/OAuth/Token/', reply: bearer('bng-at') },
    // Without the API key Bungie still answers 200, with its own error code.
    routes: { 'GET https://www.bungie.net/Platform/User/GetMembershipsForCurrentUser/': { json: { ErrorCode: 2101, ErrorStatus: 'ApiInvalidOrExpiredKey', Message: 'Invalid API key', Response: {} } } },
    error: 'OAuthCallbackError',
  },
  'click-up': {
    factory: ClickUp,
    authorize: { url: 'https://app.clickup.com/api' },
    // Only the access token: no token_type, no expiry.
    token: { url: 'https://api.clickup.com/api/v2/oauth/token', reply: { json: { access_token: '4219_cu' } } },
    routes: { 'GET https://api.clickup.com/api/v2/user': { json: { user: { id: 123, username: 'John Doe', email: 'John@example.com', color: '#000000', profilePicture: 'https://attachments.clickup.com/profilePictures/123.jpg', initials: 'JD', week_start_day: 0, timezone: 'Europe/Oslo' } } } },
    user: { id: '123', name: 'John Doe', email: 'john@example.com', image: 'https://attachments.clickup.com/profilePictures/123.jpg' },
    account: { access_token: '4219_cu', token_type: 'bearer' },
  },
  coinbase: {
    factory: Coinbase,
    authorize: { url: 'https://login.coinbase.com/oauth2/auth', scopes: ['wallet:user:read', 'wallet:user:email'] },
    token: { url: 'https://login.coinbase.com/oauth2/token', reply: bearer('cb-at', { refresh_token: 'cb-rt', scope: 'wallet:user:read wallet:user:email' }) },
    routes: {
      'GET https://api.coinbase.com/v2/user': {
        json: { data: { id: '9da7a204-544e-5fd1-9a12-61176c5d4cd8', name: 'User One', username: 'user1', profile_location: null, profile_bio: null, profile_url: 'https://coinbase.com/user1', avatar_url: 'https://images.coinbase.com/avatar?h=vR%2FY8igBoPwuwGren5JMwvDNGpURAY%2F0nRIOgH%2FY2Qh%2BQ6nomR3qusA%2Bh6o2%0Af9rH&s=128', resource: 'user', resource_path: '/v2/user', email: 'User1@example.com' } },
      },
    },
    user: { id: '9da7a204-544e-5fd1-9a12-61176c5d4cd8', name: 'User One', email: 'user1@example.com', image: 'https://images.coinbase.com/avatar?h=vR%2FY8igBoPwuwGren5JMwvDNGpURAY%2F0nRIOgH%2FY2Qh%2BQ6nomR3qusA%2Bh6o2%0Af9rH&s=128' },
  },
  concept2: {
    factory: Concept2,
    authorize: { url: 'https://log.concept2.com/oauth/authorize', scopes: ['user:read'] },
    token: { url: 'https://log.concept2.com/oauth/access_token', reply: bearer('c2-at', { expires_in: 604800, refresh_token: 'c2-rt', scope: 'user:read' }) },
    routes: {
      'GET https://log.concept2.com/api/users/me': { json: { data: { id: 1, username: 'david', first_name: 'David', last_name: 'Hart', gender: 'M', dob: '1966-01-01', email: 'David@concept2.com', country: 'USA', profile_image: 'https://log.concept2.com/img/david.jpg', age_restricted: false, email_permission: true, max_heart_rate: null, weight: 8000, logbook_privacy: 'partners' } } },
    },
    user: { id: '1', name: 'David Hart', email: 'david@concept2.com', image: 'https://log.concept2.com/img/david.jpg' },
  },
  descope: {
    factory: Descope,
    options: { clientId: 'P2abc123' },
    authorize: { url: 'https://api.descope.com/oauth2/v1/authorize', scopes: OIDC },
    token: { url: 'https://api.descope.com/oauth2/v1/token', reply: bearer('ds-at') },
    idToken: { sub: 'U2xyz', name: 'Dee Scope', email: 'Dee@example.com', email_verified: true, picture: 'https://example.com/dee.png' },
    user: { id: 'U2xyz', name: 'Dee Scope', email: 'dee@example.com', image: 'https://example.com/dee.png' },
  },
  dribbble: {
    factory: Dribbble,
    authorize: { url: 'https://dribbble.com/oauth/authorize', scopes: ['public'] },
    token: { url: 'https://dribbble.com/oauth/token', reply: { json: { access_token: 'dr-at', token_type: 'bearer', scope: 'public', created_at: NOW_S } } },
    routes: { 'GET https://api.dribbble.com/v2/user': { json: { id: 1, name: 'Dan Cederholm', login: 'simplebits', html_url: 'https://dribbble.com/simplebits', avatar_url: 'https://cdn.dribbble.com/users/1/avatars/normal/dc.jpg', bio: '', location: 'Salem, MA', can_upload_shot: true, pro: true, followers_count: 2, created_at: '2009-07-08T02:51:22Z', type: 'Player', teams: [] } } },
    user: { id: '1', name: 'Dan Cederholm', email: null, image: 'https://cdn.dribbble.com/users/1/avatars/normal/dc.jpg' },
  },
  'duende-identity-server6': {
    factory: DuendeIdentityServer6,
    options: { issuer: 'https://demo.duendesoftware.com' },
    authorize: { url: 'https://demo.duendesoftware.com/connect/authorize', scopes: OIDC },
    token: { url: 'https://demo.duendesoftware.com/connect/token', reply: bearer('dis-at', { scope: 'openid profile email' }) },
    idToken: { sub: '1', name: 'Alice Smith', given_name: 'Alice', family_name: 'Smith', email: 'AliceSmith@email.com', email_verified: true, idp: 'local', amr: ['pwd'] },
    user: { id: '1', name: 'Alice Smith', email: 'alicesmith@email.com', image: null },
  },
  eventbrite: {
    factory: Eventbrite,
    authorize: { url: 'https://www.eventbrite.com/oauth/authorize' },
    token: { url: 'https://www.eventbrite.com/oauth/token', reply: { json: { access_token: 'eb-at', token_type: 'bearer' } } },
    routes: {
      'GET https://www.eventbriteapi.com/v3/users/me/': { json: { emails: [{ email: 'old@example.com', verified: true, primary: false }, { email: 'Eve@example.com', verified: true, primary: true }], id: '1234567890', name: 'Eve Brite', first_name: 'Eve', last_name: 'Brite', is_public: false, image_id: '98765' } },
    },
    user: { id: '1234567890', name: 'Eve Brite', email: 'eve@example.com', image: 'https://img.evbuc.com/https%3A%2F%2Fcdn.evbuc.com%2Fimages%2F98765%2F1%2Foriginal.jpg' },
  },
  eveonline: {
    factory: EVEOnline,
    authorize: { url: 'https://login.eveonline.com/v2/oauth/authorize', scopes: ['publicData'] },
    token: { url: 'https://login.eveonline.com/v2/oauth/token', reply: { json: { access_token: 'eyJhbGciOiJSUzI1NiJ9.eve', expires_in: 1199, token_type: 'Bearer', refresh_token: 'eve-rt' } } },
    routes: { 'GET https://login.eveonline.com/oauth/verify': { json: { CharacterID: 95465499, CharacterName: 'CCP Bartender', ExpiresOn: '2026-01-15T12:19:59', Scopes: 'publicData', TokenType: 'Character', CharacterOwnerHash: 'lots_of_chars', IntellectualProperty: 'EVE' } } },
    user: { id: '95465499', name: 'CCP Bartender', email: null, image: 'https://images.evetech.net/characters/95465499/portrait?size=128' },
  },
  faceit: {
    factory: FACEIT,
    authorize: { url: 'https://accounts.faceit.com/accounts', params: { redirect_popup: 'true' } },
    token: { url: 'https://api.faceit.com/auth/v1/oauth/token', reply: bearer('fc-at', { id_token: undefined, refresh_token: 'fc-rt', scope: 'openid profile email' }) },
    routes: { 'GET https://api.faceit.com/auth/v1/resources/userinfo': { json: { guid: 'a1b2c3d4-0000-4000-8000-000000000001', nickname: 'S1mple', email: 'S1@faceit.test', picture: 'https://assets.faceit-cdn.net/avatars/s1.jpg', locale: 'en', membership: 'free' } } },
    user: { id: 'a1b2c3d4-0000-4000-8000-000000000001', name: 'S1mple', email: 's1@faceit.test', image: 'https://assets.faceit-cdn.net/avatars/s1.jpg' },
  },
  figma: {
    factory: Figma,
    authorize: { url: 'https://www.figma.com/oauth', scopes: ['current_user:read'] },
    // Figma's answer: no token_type.
    token: { url: 'https://api.figma.com/v1/oauth/token', reply: { json: { user_id: 1234567890123456, user_id_string: '1234567890123456', access_token: 'figu_at', refresh_token: 'figr_rt', expires_in: 7776000 } } },
    routes: { 'GET https://api.figma.com/v1/me': { json: { id: '1234567890123456', email: 'Fig@example.com', handle: 'Fig Ma', img_url: 'https://s3-alpha.figma.com/profile/fig.png' } } },
    user: { id: '1234567890123456', name: 'Fig Ma', email: 'fig@example.com', image: 'https://s3-alpha.figma.com/profile/fig.png' },
    account: { access_token: 'figu_at', token_type: 'bearer', refresh_token: 'figr_rt', expires_at: NOW_S + 7776000 },
  },
  foursquare: {
    factory: Foursquare,
    options: { apiVersion: '20240601' },
    authorize: { url: 'https://foursquare.com/oauth2/authenticate' },
    token: { url: 'https://foursquare.com/oauth2/access_token', reply: { json: { access_token: 'fsq-at' } } },
    routes: {
      // The token travels in the query, as oauth_token, beside the version date.
      'GET https://api.foursquare.com/v2/users/self': (req) => {
        if (req.url.searchParams.get('oauth_token') !== 'fsq-at' || req.url.searchParams.get('v') !== '20240601') throw new Error(req.url.search);
        return { json: { meta: { code: 200, requestId: '5ac51d7e' }, response: { user: { id: '1234', firstName: 'Jimmy', lastName: 'Foursquare', photo: { prefix: 'https://fastly.4sqi.net/img/user/', suffix: '/jimmy.jpg' }, contact: { email: 'Jimmy@example.com' } } } } };
      },
    },
    user: { id: '1234', name: 'Jimmy Foursquare', email: 'jimmy@example.com', image: 'https://fastly.4sqi.net/img/user/original/jimmy.jpg' },
  },
  freshbooks: {
    factory: Freshbooks,
    authorize: { url: 'https://auth.freshbooks.com/oauth/authorize' },
    token: { url: 'https://api.freshbooks.com/auth/oauth/token', reply: bearer('fb-at', { expires_in: 43200, refresh_token: 'fb-rt', scope: 'user:profile:read', created_at: NOW_S }) },
    routes: { 'GET https://api.freshbooks.com/auth/api/v1/users/me': { json: { response: { id: 2192788, identity_id: 2192788, first_name: 'Bill', last_name: 'Dupont', email: 'Bill@example.com', confirmed_at: '2020-01-01T00:00:00Z', business_memberships: [] } } } },
    user: { id: '2192788', name: 'Bill Dupont', email: 'bill@example.com', image: null },
  },
  frontegg: {
    factory: Frontegg,
    options: { issuer: 'https://acme.frontegg.com' },
    authorize: { url: 'https://acme.frontegg.com/oauth/authorize', scopes: OIDC },
    token: { url: 'https://acme.frontegg.com/oauth/token', reply: bearer('fe-at', { refresh_token: 'fe-rt' }) },
    // The metadata sits below /oauth, not at the issuer's own well-known path.
    routes: {
      'GET https://acme.frontegg.com/oauth/.well-known/openid-configuration': (_req, ctx) => ({
        json: { issuer: ctx.issuer, authorization_endpoint: ctx.fake('https://acme.frontegg.com/oauth/authorize'), token_endpoint: ctx.fake('https://acme.frontegg.com/oauth/token'), jwks_uri: ctx.fake('https://acme.frontegg.com/.well-known/jwks.json'), response_types_supported: ['code'], id_token_signing_alg_values_supported: ['RS256'] },
      }),
      'GET https://acme.frontegg.com/.well-known/jwks.json': (_req, ctx) => ctx.jwks(),
    },
    anonymous: ['https://acme.frontegg.com/.well-known/jwks.json'],
    idToken: { sub: 'c4f0e1a2-user', name: 'Fern Egg', email: 'Fern@acme.test', email_verified: true, profilePictureUrl: 'https://www.gravatar.com/avatar/fe', tenantId: 't-1', roles: ['Admin'] },
    user: { id: 'c4f0e1a2-user', name: 'Fern Egg', email: 'fern@acme.test', image: 'https://www.gravatar.com/avatar/fe' },
  },
  hubspot: {
    factory: HubSpot,
    authorize: { url: 'https://app.hubspot.com/oauth/authorize', scopes: ['oauth'] },
    token: { url: 'https://api.hubapi.com/oauth/v1/token', reply: bearer('CJSP5qf1KhI', { expires_in: 1800, refresh_token: 'hs-rt' }) },
    routes: {
      // No user-info endpoint: the token's metadata, the token in the path.
      'GET https://api.hubapi.com/oauth/v1/access-tokens/CJSP5qf1KhI': { json: { token: 'CJSP5qf1KhI', user: 'Test@hubspot.com', hub_domain: 'demo.hubapi.com', scopes: ['oauth'], hub_id: 62515, app_id: 456, expires_in: 1754, user_id: 123, token_type: 'access' } },
    },
    user: { id: '123', name: 'Test@hubspot.com', email: 'test@hubspot.com', image: null },
    account: { refresh_token: 'hs-rt', expires_at: NOW_S + 1800 },
  },
  huggingface: {
    factory: Huggingface,
    authorize: { url: 'https://huggingface.co/oauth/authorize', scopes: OIDC },
    token: { url: 'https://huggingface.co/oauth/token', reply: bearer('hf_oauth_at', { expires_in: 28800, scope: 'openid profile email' }) },
    idToken: { sub: '62c5a1b2d3e4f5a6b7c8d9e0', name: 'Hug Face', preferred_username: 'hugface', profile: 'https://huggingface.co/hugface', picture: 'https://cdn-avatars.huggingface.co/hugface.png', email: 'Hug@example.com', email_verified: true, isPro: false, orgs: [] },
    user: { id: '62c5a1b2d3e4f5a6b7c8d9e0', name: 'Hug Face', email: 'hug@example.com', image: 'https://cdn-avatars.huggingface.co/hugface.png' },
  },
  'identity-server4': {
    factory: IdentityServer4,
    options: { issuer: 'https://id.acme.test' },
    authorize: { url: 'https://id.acme.test/connect/authorize', scopes: OIDC },
    token: { url: 'https://id.acme.test/connect/token' },
    idToken: { sub: '88421113', name: 'Bob Smith', email: 'BobSmith@email.com', email_verified: true },
    user: { id: '88421113', name: 'Bob Smith', email: 'bobsmith@email.com', image: null },
  },
  instagram: {
    factory: Instagram,
    authorize: { url: 'https://www.instagram.com/oauth/authorize', scopes: ['instagram_business_basic'] },
    // Wrapped in data[], without token_type.
    token: { url: 'https://api.instagram.com/oauth/access_token', reply: { json: { data: [{ access_token: 'IGQVJ-at', user_id: '17841400000000000', permissions: 'instagram_business_basic' }] } } },
    routes: { 'GET https://graph.instagram.com/me': { json: { id: '7220000000000000', user_id: '17841400000000000', username: 'insta.shop', name: 'Insta Shop', profile_picture_url: 'https://scontent.cdninstagram.com/v/shop.jpg', account_type: 'BUSINESS' } } },
    user: { id: '7220000000000000', name: 'Insta Shop', email: null, image: 'https://scontent.cdninstagram.com/v/shop.jpg' },
    account: { access_token: 'IGQVJ-at', token_type: 'bearer' },
  },
  kinde: {
    factory: Kinde,
    options: { issuer: 'https://acme.kinde.com' },
    authorize: { url: 'https://acme.kinde.com/oauth2/auth', scopes: OIDC },
    token: { url: 'https://acme.kinde.com/oauth2/token', reply: bearer('kd-at', { expires_in: 86399, refresh_token: 'kd-rt', scope: 'openid profile email' }) },
    idToken: { sub: 'kp_0123456789abcdef', given_name: 'Kim', family_name: 'Inde', email: 'Kim@acme.test', email_verified: true, picture: null, org_codes: ['org_1'] },
    user: { id: 'kp_0123456789abcdef', name: 'Kim Inde', email: 'kim@acme.test', image: null },
    account: { refresh_token: 'kd-rt' },
  },
};

describeExchangeCases('catalogue exchange: 42-school..kinde', cases);

describe('deprecated ids', () => {
  it('azure-ad and identity-server4 warn once each, naming the successor', () => {
    AzureAD();
    IdentityServer4({ issuer: 'https://id.acme.test' });
    const lines = warn.mock.calls.map((c) => String(c[0]));
    expect(lines.filter((l) => l.includes('"azure-ad"'))).toEqual([expect.stringContaining('MicrosoftEntraID')]);
    expect(lines.filter((l) => l.includes('"identity-server4"'))).toEqual([expect.stringContaining('DuendeIdentityServer6')]);
  });
});
