// buildAuthorizationUrl (parameter precedence, protected parameters) and mapProfile (tokens, user, account).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidProvider, OAuthProfileParseError } from '../../src/core/errors.js';
import { OAuth, OIDC } from '../../src/providers/oauth.js';
import { buildAuthorizationUrl, mapProfile, normalizeTokens } from '../../src/providers/oauth-authorization-url.js';
import { normalizeOAuthProvider } from '../../src/providers/oauth-normalize.js';

const callbackUrl = 'https://app.test/auth/callback/acme';
function acme(extra: Partial<Parameters<typeof OAuth>[0]> = {}) {
  return normalizeOAuthProvider(
    OAuth({
      id: 'acme',
      name: 'Acme',
      clientId: 'acme-client',
      authorization: { url: 'https://acme.test/authorize', params: { scope: 'read', prompt: 'login', display: 'page' } },
      token: 'https://acme.test/token',
      userinfo: 'https://acme.test/me',
      ...extra,
    }),
    { env: {}, callbackUrl },
  );
}

describe('buildAuthorizationUrl', () => {
  it('starts with response_type, client_id and redirect_uri, then the provider params', () => {
    const p = acme();
    const url = buildAuthorizationUrl(p, p.authorization.url!, { redirectUri: p.redirectUri });
    expect(url.origin + url.pathname).toBe('https://acme.test/authorize');
    expect([...url.searchParams.keys()].slice(0, 3)).toEqual(['response_type', 'client_id', 'redirect_uri']);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'acme-client',
      redirect_uri: callbackUrl,
      scope: 'read',
      prompt: 'login',
      display: 'page',
    });
  });

  it("applies provider params < the endpoint's own query < extraParams", () => {
    const p = acme();
    const discovered = new URL('https://acme.test/authorize?p=b2c_signin&prompt=select_account&display=popup');
    const url = buildAuthorizationUrl(p, discovered, {
      redirectUri: p.redirectUri,
      extraParams: { display: 'touch', login_hint: 'ada@acme.test', scope: 'read write' },
    });
    expect(url.searchParams.get('p')).toBe('b2c_signin');
    expect(url.searchParams.get('prompt')).toBe('select_account');
    expect(url.searchParams.get('display')).toBe('touch');
    expect(url.searchParams.get('login_hint')).toBe('ada@acme.test');
    expect(url.searchParams.get('scope')).toBe('read write');
  });

  it('ignores extraParams that try to replace what binds the response to this flow', () => {
    const p = acme();
    const url = buildAuthorizationUrl(p, p.authorization.url!, {
      redirectUri: p.redirectUri,
      state: 'real-state',
      codeChallenge: 'real-challenge',
      nonce: 'real-nonce',
      extraParams: {
        client_id: 'attacker',
        redirect_uri: 'https://evil.test/cb',
        response_type: 'token',
        code_challenge: 'evil',
        code_challenge_method: 'plain',
        state: 'evil',
        nonce: 'evil',
        request: 'eyJhbGciOiJub25lIn0.e30.',
        request_uri: 'https://evil.test/req',
        ui_locales: 'fr',
      },
    });
    const q = Object.fromEntries(url.searchParams);
    expect(q).toMatchObject({
      client_id: 'acme-client',
      redirect_uri: callbackUrl,
      response_type: 'code',
      code_challenge: 'real-challenge',
      code_challenge_method: 'S256',
      state: 'real-state',
      nonce: 'real-nonce',
      ui_locales: 'fr',
    });
    expect(q.request).toBeUndefined();
    expect(q.request_uri).toBeUndefined();
    expect(url.searchParams.getAll('state')).toEqual(['real-state']);
  });

  it('sets code_challenge (S256), state and nonce only when given', () => {
    const p = acme();
    const bare = buildAuthorizationUrl(p, p.authorization.url!, { redirectUri: p.redirectUri });
    for (const key of ['code_challenge', 'code_challenge_method', 'state', 'nonce']) expect(bare.searchParams.has(key)).toBe(false);
    const pkceOnly = buildAuthorizationUrl(p, p.authorization.url!, { redirectUri: p.redirectUri, codeChallenge: 'ch' });
    expect(pkceOnly.searchParams.get('code_challenge')).toBe('ch');
    expect(pkceOnly.searchParams.get('code_challenge_method')).toBe('S256');
    expect(pkceOnly.searchParams.has('state')).toBe(false);
  });

  it("drops flow values from the provider's params or endpoint query when the flow has none", () => {
    const p = acme({ authorization: { url: 'https://acme.test/authorize?state=fixed', params: { nonce: 'fixed', code_challenge: 'fixed' } } });
    const url = buildAuthorizationUrl(p, new URL('https://acme.test/authorize?state=fixed'), { redirectUri: p.redirectUri });
    for (const key of ['code_challenge', 'state', 'nonce']) expect(url.searchParams.has(key)).toBe(false);
  });

  it('uses the redirect proxy as redirect_uri when the provider has one', () => {
    const p = normalizeOAuthProvider(OIDC({ id: 'corp', name: 'Corp', clientId: 'c', issuer: 'https://corp.test' }), {
      env: {},
      callbackUrl: 'https://preview-42.app.test/auth/callback/corp',
      redirectProxyUrl: 'https://app.test/auth',
    });
    const url = buildAuthorizationUrl(p, new URL('https://corp.test/authorize'), { redirectUri: p.redirectUri, state: 's' });
    expect(url.searchParams.get('redirect_uri')).toBe('https://app.test/auth/callback/corp');
    expect(url.searchParams.get('scope')).toBe('openid profile email');
  });

  it("lets a preset's authorization.conform rewrite the finished URL, after the flow's values are set", () => {
    const conform = (url: URL) => {
      url.searchParams.set('client_key', url.searchParams.get('client_id') ?? '');
      url.searchParams.delete('client_id');
      url.hash = 'vendor_redirect';
      return url;
    };
    const p = acme({ authorization: { url: 'https://acme.test/authorize', params: { scope: 'read' }, conform } });
    const url = buildAuthorizationUrl(p, p.authorization.url!, { redirectUri: p.redirectUri, state: 's-1', codeChallenge: 'c-1' });
    expect(url.searchParams.get('client_key')).toBe('acme-client');
    expect(url.searchParams.has('client_id')).toBe(false);
    expect(url.searchParams.get('state')).toBe('s-1');
    expect(url.searchParams.get('code_challenge')).toBe('c-1');
    expect(url.hash).toBe('#vendor_redirect');
  });

  it('refuses to build a URL without a client id', () => {
    const p = acme({ clientId: undefined });
    expect(() => buildAuthorizationUrl(p, p.authorization.url!, { redirectUri: p.redirectUri })).toThrow(InvalidProvider);
  });
});

describe('mapProfile', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('computes expires_at from expires_in on a frozen clock and lowercases token_type', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-15T12:00:00.000Z'));
    const p = acme();
    const { account } = await mapProfile(p, { id: 'u1' }, { access_token: 'at', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt' });
    expect(account).toEqual({
      access_token: 'at',
      token_type: 'bearer',
      refresh_token: 'rt',
      expires_at: Date.UTC(2026, 0, 15, 13) / 1000,
      provider: 'acme',
      type: 'oauth',
      providerAccountId: 'u1',
    });
  });

  it('keeps an expires_at the provider sent, and accepts a string expires_in', () => {
    const now = Date.UTC(2026, 0, 15);
    expect(normalizeTokens({ expires_in: 60, expires_at: 123 }, now).expires_at).toBe(123);
    expect(normalizeTokens({ expires_in: '60' as unknown as number }, now).expires_at).toBe(now / 1000 + 60);
    expect(normalizeTokens({ expires_in: 'soon' as unknown as number }, now).expires_at).toBeUndefined();
  });

  it('makes the user id a string and lowercases the e-mail', async () => {
    const p = acme({
      profile: (raw) => {
        const { uid, mail } = raw as { uid: number; mail: string };
        return { id: uid as unknown as string, email: mail, name: 'Ada' };
      },
    });
    const { user, account } = await mapProfile(p, { uid: 1815, mail: 'Ada@Example.COM' }, { access_token: 'at', token_type: 'bearer' });
    expect(user).toEqual({ id: '1815', email: 'ada@example.com', name: 'Ada' });
    expect(account.providerAccountId).toBe('1815');
  });

  it('passes normalised tokens to profile() and account()', async () => {
    const seen: unknown[] = [];
    const p = acme({
      profile: (_raw, tokens) => {
        seen.push(tokens.token_type);
        return { id: 'x' };
      },
      account: (tokens) => ({ access_token: tokens.access_token, expires_at: tokens.expires_at }),
    });
    const { account } = await mapProfile(p, {}, { access_token: 'at', token_type: 'DPoP', expires_in: 10, id_token: 'secret' }, { now: 1_000_000 });
    expect(seen).toEqual(['dpop']);
    expect(account).toEqual({ access_token: 'at', expires_at: 1010, provider: 'acme', type: 'oauth', providerAccountId: 'x' });
  });

  it('stores no token fields when account() returns nothing', async () => {
    const p = acme({ account: () => undefined });
    const { account } = await mapProfile(p, { id: 'u' }, { access_token: 'at', token_type: 'bearer' });
    expect(account).toEqual({ provider: 'acme', type: 'oauth', providerAccountId: 'u' });
  });

  it('wraps a throwing profile() in OAuthProfileParseError', async () => {
    const boom = new TypeError('cannot read properties of undefined');
    const p = acme({
      profile: () => {
        throw boom;
      },
    });
    const error = await mapProfile(p, {}, { access_token: 'at' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthProfileParseError);
    expect((error as OAuthProfileParseError).cause).toMatchObject({ err: boom, provider: 'acme' });
    const rejected = acme({ profile: async () => Promise.reject(new Error('async boom')) });
    await expect(mapProfile(rejected, {}, {})).rejects.toThrow(OAuthProfileParseError);
  });

  it('rejects a profile without an id', async () => {
    for (const profile of [() => ({ name: 'no id' }), () => ({ id: '' }), () => ({ id: null as unknown as string }), () => undefined as never]) {
      await expect(mapProfile(acme({ profile }), {}, {})).rejects.toThrow(OAuthProfileParseError);
    }
    await expect(mapProfile(acme(), { name: 'default mapping, no sub or id' }, {})).rejects.toThrow(/no id/);
  });
});
