// normalizeOAuthProvider: env inference, defaults, endpoint folding and validation; isLoopbackHttp.
import { describe, expect, it } from 'vitest';
import { InvalidEndpoints } from '../../src/core/errors.js';
import { OAuth, OIDC } from '../../src/providers/oauth.js';
import { defaultAccount, defaultProfile, endpointUrl, isLoopbackHttp, normalizeOAuthProvider } from '../../src/providers/oauth-normalize.js';
import GitHub from '../../src/providers/catalogue/github.js';
import Keycloak from '../../src/providers/catalogue/keycloak.js';
import MicrosoftEntraID from '../../src/providers/catalogue/microsoft-entra-id.js';

const callbackUrl = 'https://app.test/auth/callback/acme';
const acme = (extra: Partial<Parameters<typeof OAuth>[0]> = {}) =>
  OAuth({
    id: 'acme',
    name: 'Acme',
    authorization: 'https://acme.test/authorize',
    token: 'https://acme.test/token',
    userinfo: 'https://acme.test/me',
    ...extra,
  });

describe('normalizeOAuthProvider: environment', () => {
  it('reads AUTH_{ID}_ID and AUTH_{ID}_SECRET', () => {
    const p = normalizeOAuthProvider(GitHub(), { env: { AUTH_GITHUB_ID: 'gh-id', AUTH_GITHUB_SECRET: 'gh-secret' }, callbackUrl });
    expect(p.clientId).toBe('gh-id');
    expect(p.clientSecret).toBe('gh-secret');
  });

  it('spells a kebab-case id in UPPER_SNAKE_CASE, including the issuer', () => {
    const env = {
      AUTH_MICROSOFT_ENTRA_ID_ID: 'entra-id',
      AUTH_MICROSOFT_ENTRA_ID_SECRET: 'entra-secret',
      AUTH_MICROSOFT_ENTRA_ID_ISSUER: 'https://login.microsoftonline.com/tenant-1/v2.0',
    };
    const p = normalizeOAuthProvider(MicrosoftEntraID(), { env, callbackUrl });
    expect([p.clientId, p.clientSecret, p.issuer]).toEqual(['entra-id', 'entra-secret', 'https://login.microsoftonline.com/tenant-1/v2.0']);
  });

  it('lets explicit options win over the environment, and ignores empty variables', () => {
    const env = { AUTH_GITHUB_ID: 'from-env', AUTH_GITHUB_SECRET: '' };
    const p = normalizeOAuthProvider(GitHub({ clientId: 'explicit' }), { env, callbackUrl });
    expect(p.clientId).toBe('explicit');
    expect(p.clientSecret).toBeUndefined();
    const q = normalizeOAuthProvider(MicrosoftEntraID({ issuer: 'https://login.microsoftonline.com/mine/v2.0' }), {
      env: { AUTH_MICROSOFT_ENTRA_ID_ISSUER: 'https://login.microsoftonline.com/env/v2.0' },
      callbackUrl,
    });
    expect(q.issuer).toBe('https://login.microsoftonline.com/mine/v2.0');
  });
});

describe('normalizeOAuthProvider: default issuers and instance endpoints', () => {
  it('falls back to a preset default issuer below the option and AUTH_{ID}_ISSUER (Entra ID: common)', () => {
    const common = 'https://login.microsoftonline.com/common/v2.0';
    expect(normalizeOAuthProvider(MicrosoftEntraID(), { env: {}, callbackUrl }).issuer).toBe(common);
    const env = { AUTH_MICROSOFT_ENTRA_ID_ISSUER: 'https://login.microsoftonline.com/env/v2.0' };
    expect(normalizeOAuthProvider(MicrosoftEntraID(), { env, callbackUrl }).issuer).toBe(env.AUTH_MICROSOFT_ENTRA_ID_ISSUER);
    const mine = 'https://login.microsoftonline.com/mine/v2.0';
    expect(normalizeOAuthProvider(MicrosoftEntraID({ issuer: mine }), { env, callbackUrl }).issuer).toBe(mine);
    // A multi-tenant issuer: each ID token is held to its own tenant.
    expect(normalizeOAuthProvider(MicrosoftEntraID(), { env: {}, callbackUrl }).issuerPerTenant).toBe(true);
  });

  const instance = (extra: Partial<Parameters<typeof OAuth>[0]> = {}) =>
    OAuth({ id: 'my-chat', name: 'Chat', authorization: { url: '/oauth/authorize', params: { scope: 'read' } }, token: '/oauth/token', userinfo: '/api/me?fields=all', ...extra });

  it('resolves endpoint paths under the issuer, keeping its path (option, env or default)', () => {
    const p = normalizeOAuthProvider(instance({ issuer: 'https://chat.acme.test/tools/' }), { env: {}, callbackUrl });
    expect(p.authorization.url?.href).toBe('https://chat.acme.test/tools/oauth/authorize');
    expect(p.authorization.params).toEqual({ scope: 'read' });
    expect(p.token.url?.href).toBe('https://chat.acme.test/tools/oauth/token');
    expect(p.userinfo.url?.href).toBe('https://chat.acme.test/tools/api/me');
    expect(p.userinfo.params).toEqual({ fields: 'all' });
    expect(p.needsDiscovery).toBe(false);
    const fromEnv = normalizeOAuthProvider(instance(), { env: { AUTH_MY_CHAT_ISSUER: 'https://env.acme.test' }, callbackUrl });
    expect(fromEnv.token.url?.href).toBe('https://env.acme.test/oauth/token');
    const fallback = normalizeOAuthProvider(instance({ defaultIssuer: 'https://eu.acme.test' }), { env: {}, callbackUrl });
    expect(fallback.token.url?.href).toBe('https://eu.acme.test/oauth/token');
  });

  it('names the missing instance URL when an endpoint path has no issuer', () => {
    expect(() => normalizeOAuthProvider(instance(), { env: {}, callbackUrl })).toThrow(InvalidEndpoints);
    expect(() => normalizeOAuthProvider(instance(), { env: {}, callbackUrl })).toThrow(/AUTH_MY_CHAT_ISSUER/);
    // An absolute URL is left alone whatever the issuer.
    const p = normalizeOAuthProvider(acme({ issuer: 'https://other.test' }), { env: {}, callbackUrl });
    expect(p.token.url?.href).toBe('https://acme.test/token');
  });
});

describe('normalizeOAuthProvider: checks and redirect proxy', () => {
  it("defaults checks to ['pkce'] and redirect_uri to the callback URL", () => {
    const p = normalizeOAuthProvider(acme(), { env: {}, callbackUrl });
    expect(p.checks).toEqual(['pkce']);
    expect(p.redirectUri).toBe(callbackUrl);
    expect(p.redirectProxyUrl).toBeUndefined();
  });

  it('adds state and redirects through a global proxy', () => {
    const p = normalizeOAuthProvider(acme(), { env: {}, callbackUrl, redirectProxyUrl: 'https://auth.acme.test/auth/' });
    expect(p.checks).toEqual(['pkce', 'state']);
    expect(p.redirectUri).toBe('https://auth.acme.test/auth/callback/acme');
    expect(p.callbackUrl).toBe(callbackUrl);
  });

  it("prefers the provider's own proxy, and also reads AUTH_REDIRECT_PROXY_URL", () => {
    const own = normalizeOAuthProvider(acme({ redirectProxyUrl: 'https://own.test/auth' }), {
      env: {},
      callbackUrl,
      redirectProxyUrl: 'https://global.test/auth',
    });
    expect(own.redirectUri).toBe('https://own.test/auth/callback/acme');
    const fromEnv = normalizeOAuthProvider(acme(), { env: { AUTH_REDIRECT_PROXY_URL: 'https://env.test/api/auth' }, callbackUrl });
    expect(fromEnv.redirectUri).toBe('https://env.test/api/auth/callback/acme');
    expect(fromEnv.checks).toContain('state');
  });

  it("treats 'none' as no checks, but a proxy still gets state", () => {
    expect(normalizeOAuthProvider(acme({ checks: ['none'] }), { env: {}, callbackUrl }).checks).toEqual([]);
    expect(normalizeOAuthProvider(acme({ checks: ['none'] }), { env: {}, callbackUrl, redirectProxyUrl: 'https://p.test' }).checks).toEqual(['state']);
  });

  it('keeps configured checks without duplicates', () => {
    const p = normalizeOAuthProvider(OIDC({ id: 'o', name: 'O', issuer: 'https://o.test', checks: ['pkce', 'nonce', 'state'] }), {
      env: {},
      callbackUrl,
      redirectProxyUrl: 'https://p.test',
    });
    expect(p.checks).toEqual(['pkce', 'nonce', 'state']);
  });
});

describe('normalizeOAuthProvider: endpoints and defaults', () => {
  it("folds a URL's own query into params, the URL's value winning, and strips it from the URL", () => {
    const p = normalizeOAuthProvider(
      acme({ authorization: { url: 'https://acme.test/authorize?scope=read&prompt=login', params: { scope: 'write', audience: 'api' } } }),
      { env: {}, callbackUrl },
    );
    expect(p.authorization.url?.href).toBe('https://acme.test/authorize');
    expect(p.authorization.params).toEqual({ scope: 'read', prompt: 'login', audience: 'api' });
  });

  it('keeps token and userinfo hooks, and builds a GET URL from userinfo params', () => {
    const conform = (r: Response) => r;
    const request = () => ({ id: '1' });
    const p = normalizeOAuthProvider(
      acme({ token: { url: 'https://acme.test/token', conform }, userinfo: { url: 'https://acme.test/me?fields=id', params: { v: '2' }, request } }),
      { env: {}, callbackUrl },
    );
    expect(p.token.conform).toBe(conform);
    expect(p.userinfo.request).toBe(request);
    expect(endpointUrl(p.userinfo)?.href).toBe('https://acme.test/me?v=2&fields=id');
    expect(endpointUrl(p.token)?.href).toBe('https://acme.test/token');
  });

  it('defaults the OIDC scope to "openid profile email", unless a scope is given anywhere', () => {
    const bare = normalizeOAuthProvider(OIDC({ id: 'o', name: 'O', issuer: 'https://o.test' }), { env: {}, callbackUrl });
    expect(bare.authorization.params.scope).toBe('openid profile email');
    const inUrl = normalizeOAuthProvider(OIDC({ id: 'o', name: 'O', issuer: 'https://o.test', authorization: 'https://o.test/a?scope=openid' }), {
      env: {},
      callbackUrl,
    });
    expect(inUrl.authorization.params.scope).toBe('openid');
    expect(normalizeOAuthProvider(acme(), { env: {}, callbackUrl }).authorization.params.scope).toBeUndefined();
  });

  it('sets idToken (true for OIDC unless disabled, false for OAuth 2) and client authentication', () => {
    const oidc = normalizeOAuthProvider(OIDC({ id: 'o', name: 'O', issuer: 'https://o.test' }), { env: {}, callbackUrl });
    const noId = normalizeOAuthProvider(OIDC({ id: 'o', name: 'O', issuer: 'https://o.test', idToken: false }), { env: {}, callbackUrl });
    const oauth = normalizeOAuthProvider(acme({ client: { token_endpoint_auth_method: 'client_secret_post', foo: 1 } }), { env: {}, callbackUrl });
    expect([oidc.idToken, noId.idToken, oauth.idToken]).toEqual([true, false, false]);
    expect(oidc.client.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(oauth.client).toEqual({ token_endpoint_auth_method: 'client_secret_post', foo: 1 });
    expect(oidc.allowDangerousEmailAccountLinking).toBe(false);
  });

  it('marks providers whose endpoints must be discovered', () => {
    expect(normalizeOAuthProvider(acme(), { env: {}, callbackUrl }).needsDiscovery).toBe(false);
    expect(normalizeOAuthProvider(OIDC({ id: 'o', name: 'O', issuer: 'https://o.test' }), { env: {}, callbackUrl }).needsDiscovery).toBe(true);
    const wk = normalizeOAuthProvider(OIDC({ id: 'o', name: 'O', wellKnown: 'https://o.test/.well-known/openid-configuration' }), { env: {}, callbackUrl });
    expect(wk.needsDiscovery).toBe(true);
    expect(wk.wellKnown?.href).toBe('https://o.test/.well-known/openid-configuration');
  });

  it('provides the default profile and account mappings', () => {
    const p = normalizeOAuthProvider(acme(), { env: {}, callbackUrl });
    expect(p.profile).toBe(defaultProfile);
    expect(p.account).toBe(defaultAccount);
    expect(defaultProfile({ id: 42 as unknown as string, nickname: 'nick', email: 'a@b.test', picture: 'https://img.test/a.png' })).toEqual({
      id: '42',
      name: 'nick',
      email: 'a@b.test',
      image: 'https://img.test/a.png',
    });
    expect(defaultProfile({ sub: 's-1', id: 'ignored', preferred_username: 'pref', picture: { url: 'x' } })).toEqual({
      id: 's-1',
      name: 'pref',
      email: null,
      image: null,
    });
    expect(defaultAccount({ access_token: 'a', expires_in: 10, expires_at: 99, token_type: 'bearer', foo: 'bar', id_token: undefined })).toEqual({
      access_token: 'a',
      expires_at: 99,
      token_type: 'bearer',
    });
  });
});

describe('normalizeOAuthProvider: validation', () => {
  it('throws InvalidEndpoints without issuer, wellKnown or authorization+token endpoints', () => {
    const call = () => normalizeOAuthProvider(OAuth({ id: 'x', name: 'X', authorization: 'https://x.test/a', userinfo: 'https://x.test/u' }), { env: {}, callbackUrl });
    expect(call).toThrow(InvalidEndpoints);
    expect(call).toThrow(/token/);
    expect(() => normalizeOAuthProvider(OAuth({ id: 'x', name: 'X' }), { env: {}, callbackUrl })).toThrow(InvalidEndpoints);
  });

  it('needs a user-info endpoint (or request) for OAuth 2', () => {
    const noUserinfo = OAuth({ id: 'x', name: 'X', authorization: 'https://x.test/a', token: 'https://x.test/t' });
    expect(() => normalizeOAuthProvider(noUserinfo, { env: {}, callbackUrl })).toThrow(/userinfo/);
    expect(() => normalizeOAuthProvider({ ...noUserinfo, userinfo: { request: () => ({ id: '1' }) } }, { env: {}, callbackUrl })).not.toThrow();
  });

  it('needs an issuer (or wellKnown) for OIDC, even with explicit endpoints', () => {
    const p = OIDC({ id: 'o', name: 'O', authorization: 'https://o.test/a', token: 'https://o.test/t' });
    expect(() => normalizeOAuthProvider(p, { env: {}, callbackUrl })).toThrow(InvalidEndpoints);
    expect(() => normalizeOAuthProvider(p, { env: { AUTH_O_ISSUER: 'https://o.test' }, callbackUrl })).not.toThrow();
    // Tenant-specific presets fail the same way until their issuer is set.
    expect(() => normalizeOAuthProvider(Keycloak(), { env: {}, callbackUrl })).toThrow(InvalidEndpoints);
  });

  it('rejects malformed URLs with InvalidEndpoints naming the option', () => {
    expect(() => normalizeOAuthProvider(acme({ token: 'not a url' }), { env: {}, callbackUrl })).toThrow(/`token`/);
    expect(() => normalizeOAuthProvider(acme({ issuer: '/relative' }), { env: {}, callbackUrl })).toThrow(InvalidEndpoints);
    expect(() => normalizeOAuthProvider(acme(), { env: {}, callbackUrl, redirectProxyUrl: 'proxy' })).toThrow(/redirectProxyUrl/);
  });
});

describe('isLoopbackHttp', () => {
  it.each([
    ['http://127.0.0.1:4000/issuer', true],
    ['http://127.45.6.7', true],
    ['http://127.1/', true],
    ['http://[::1]:8080', true],
    ['http://localhost:3000', true],
    ['http://LOCALHOST', true],
    [new URL('http://127.0.0.1'), true],
    ['https://127.0.0.1', false],
    ['https://localhost', false],
    ['http://localhost.evil.test', false],
    ['http://127.0.0.1.nip.io', false],
    ['http://sub.localhost', false],
    ['http://128.0.0.1', false],
    ['http://0.0.0.0', false],
    ['http://[::ffff:127.0.0.1]', false],
    ['http://10.0.0.1', false],
    ['http://example.com', false],
    ['not a url', false],
  ] as const)('%s → %s', (url, expected) => {
    expect(isLoopbackHttp(url)).toBe(expected);
  });
});
