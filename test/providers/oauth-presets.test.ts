// The generic factories, definePreset's merge rules, and the catalogue as a whole.
import { describe, expect, it } from 'vitest';
import { InvalidEndpoints } from '../../src/core/errors.js';
import type { AnyProvider } from '../../src/core/provider.js';
import { definePreset, OAuth, OIDC, type OAuthConfig } from '../../src/providers/oauth.js';
import { normalizeOAuthProvider } from '../../src/providers/oauth-normalize.js';
import { catalogue, GitHub, Google, MicrosoftEntraID, VK } from '../../src/providers/catalogue/index.js';

// Compile-time: catalogue results fit wherever the configuration accepts providers.
const accepted: AnyProvider[] = [GitHub(), Google, MicrosoftEntraID({ issuer: 'https://login.microsoftonline.com/t/v2.0' }), VK];
void accepted;

describe('OAuth / OIDC factories', () => {
  it('return the config with its type', () => {
    const o = OAuth({ id: 'a', name: 'A', authorization: 'https://a.test/auth' });
    const i = OIDC({ id: 'b', name: 'B', issuer: 'https://b.test', idToken: false });
    expect(o).toEqual({ id: 'a', name: 'A', authorization: 'https://a.test/auth', type: 'oauth' });
    expect(i.type).toBe('oidc');
    expect(i.idToken).toBe(false);
  });
});

describe('definePreset', () => {
  const preset = definePreset<{ id: string }>({
    id: 'acme',
    name: 'Acme',
    type: 'oauth',
    authorization: { url: 'https://acme.test/authorize', params: { scope: 'a b', prompt: 'consent' } },
    token: 'https://acme.test/token',
    userinfo: { url: 'https://acme.test/me', request: () => ({ id: '1' }) },
    checks: ['pkce', 'state'],
    client: { token_endpoint_auth_method: 'client_secret_post' },
    style: { brandColor: '#111111', logo: 'data:image/svg+xml,<svg/>' },
  });

  it('returns the defaults when called without options, and records the overrides given', () => {
    expect(preset().authorization).toEqual({ url: 'https://acme.test/authorize', params: { scope: 'a b', prompt: 'consent' } });
    expect(preset().options).toBeUndefined();
    expect(preset({ clientId: 'x' }).options).toEqual({ clientId: 'x' });
  });

  it('deep-merges endpoint objects, style and client; replaces arrays and scalars', () => {
    const p = preset({
      clientId: 'cid',
      authorization: { params: { scope: 'c' } },
      checks: ['pkce'],
      client: { id_token_signed_response_alg: 'ES256' },
      style: { brandColor: '#000000' },
    });
    expect(p.clientId).toBe('cid');
    expect(p.authorization).toEqual({ url: 'https://acme.test/authorize', params: { scope: 'c', prompt: 'consent' } });
    expect(p.checks).toEqual(['pkce']);
    expect(p.client).toEqual({ token_endpoint_auth_method: 'client_secret_post', id_token_signed_response_alg: 'ES256' });
    expect(p.style).toEqual({ brandColor: '#000000', logo: 'data:image/svg+xml,<svg/>' });
  });

  it('treats a string endpoint as its URL, keeping the preset params and hooks', () => {
    const base = preset();
    const p = preset({ token: 'https://ghe.test/token', userinfo: 'https://ghe.test/api/me' });
    expect(p.token).toEqual({ url: 'https://ghe.test/token' });
    expect(p.userinfo).toMatchObject({ url: 'https://ghe.test/api/me' });
    expect(typeof p.userinfo === 'object' && p.userinfo.request).toBe(typeof base.userinfo === 'object' && base.userinfo.request);
  });

  it('never changes the type, and skips undefined overrides', () => {
    const p = preset({ clientSecret: undefined, type: 'oidc' } as never);
    expect(p.type).toBe('oauth');
    expect('clientSecret' in p).toBe(false);
  });

  it('does not share state between calls', () => {
    const a = preset({ authorization: { params: { scope: 'x' } } }) as OAuthConfig<{ id: string }>;
    const b = preset();
    expect(typeof a.authorization === 'object' && a.authorization.params?.scope).toBe('x');
    expect(typeof b.authorization === 'object' && b.authorization.params?.scope).toBe('a b');
  });
});

describe('catalogue', () => {
  const ids = Object.keys(catalogue);

  it('has at least 30 unique kebab-case ids, each matching its factory', () => {
    expect(ids.length).toBeGreaterThanOrEqual(30);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      const config = catalogue[id]!();
      // Auth.js's ory-hydra module makes a provider with the id hydra; the catalogue finds it by both.
      expect(config.id).toBe(id === 'ory-hydra' ? 'hydra' : id);
      expect(['oauth', 'oidc']).toContain(config.type);
      expect(config.name.length).toBeGreaterThan(0);
    }
  });

  it('lets every factory take overrides that merge over its defaults', () => {
    for (const id of ids) {
      const defaults = catalogue[id]!();
      const p = catalogue[id]!({ clientId: 'x', style: { brandColor: '#000' }, authorization: { params: { login_hint: 'h' } } });
      expect(p.clientId, id).toBe('x');
      expect(p.style, id).toEqual({ ...defaults.style, brandColor: '#000' });
      const params = typeof p.authorization === 'object' ? p.authorization.params : undefined;
      const defaultParams = typeof defaults.authorization === 'object' ? defaults.authorization.params : undefined;
      expect(params, id).toEqual({ ...defaultParams, login_hint: 'h' });
    }
  });

  it('normalises every provider once it has an issuer where one is needed', () => {
    // Presets that cannot work without options of their own (NetSuite: its account, and a RESTlet for the user).
    const required: Record<string, Record<string, unknown>> = { netsuite: { accountID: '1234567', userinfo: 'https://1234567.restlets.api.netsuite.com/me' } };
    for (const id of ids) {
      const config = catalogue[id]!({ clientId: 'x', ...required[id] });
      const opts = { env: {}, callbackUrl: `https://app.test/auth/callback/${id}` };
      // Endpoints given as paths hang under the issuer: the preset runs per instance (Mastodon, Nextcloud, ...).
      const perInstance = [config.authorization, config.token, config.userinfo].some((e) => (typeof e === 'string' ? e : e?.url)?.startsWith('/'));
      if (config.issuer === undefined && config.defaultIssuer === undefined && (config.type === 'oidc' || perInstance)) {
        expect(() => normalizeOAuthProvider(config, opts), id).toThrow(InvalidEndpoints);
        const withIssuer = normalizeOAuthProvider(config, { ...opts, env: { [`AUTH_${config.id.toUpperCase().replace(/-/g, '_')}_ISSUER`]: 'https://idp.test' } });
        expect(withIssuer.issuer, id).toBe('https://idp.test');
        expect(withIssuer.needsDiscovery, id).toBe(!perInstance);
      } else {
        const p = normalizeOAuthProvider(config, opts);
        expect(p.checks.length, id).toBeGreaterThan(0);
      }
    }
  });

  it('exports GitHub with the e-mail fallback as a custom user-info request', () => {
    const gh = GitHub({ clientId: 'x', style: { brandColor: '#000' } });
    expect(gh.style).toEqual({ brandColor: '#000' });
    expect(typeof gh.userinfo === 'object' && typeof gh.userinfo.request).toBe('function');
  });
});
