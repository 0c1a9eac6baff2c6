// Shared check for one catalogue provider: normalise it, build its authorization URL as the OAuth machine
// would (state/challenge/nonce only when its checks ask), and map a realistic profile.
import { expect } from 'vitest';
import type { TokenSet, User } from '../../src/core/types.js';
import type { OAuthProviderConfig } from '../../src/providers/oauth.js';
import { buildAuthorizationUrl, mapProfile } from '../../src/providers/oauth-authorization-url.js';
import { normalizeOAuthProvider } from '../../src/providers/oauth-normalize.js';

export interface CatalogueCase {
  factory: (options?: any) => OAuthProviderConfig<any>;
  /** Overrides such as a tenant issuer. */
  options?: Record<string, unknown>;
  /** The authorization endpoint discovery would return, for presets that only name an issuer. */
  discovered?: string;
  authorize: { origin: string; pathname: string; scopes?: string[]; params?: Record<string, string> };
  profile: Record<string, unknown>;
  user: User;
  tokens?: TokenSet;
}

export const STATE = 'st-6d1f0c';
export const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
export const NONCE = 'n-0S6_WzA2Mj';
export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

export async function checkCatalogueCase(id: string, c: CatalogueCase): Promise<void> {
  const config = c.factory({ clientId: 'client-123', clientSecret: 'secret-456', ...c.options });
  expect(config.id).toBe(id);
  expect(config.style?.brandColor).toMatch(/^#[0-9a-f]{6}$/i);
  const provider = normalizeOAuthProvider(config, { env: {}, callbackUrl: `https://app.test/auth/callback/${config.id}` });

  const endpoint = provider.authorization.url ?? new URL(c.discovered!);
  expect(provider.authorization.url === undefined).toBe(c.discovered !== undefined);
  const url = buildAuthorizationUrl(provider, endpoint, {
    redirectUri: provider.redirectUri,
    codeChallenge: provider.checks.includes('pkce') ? CHALLENGE : undefined,
    state: provider.checks.includes('state') ? STATE : undefined,
    nonce: provider.checks.includes('nonce') ? NONCE : undefined,
  });
  const q = url.searchParams;
  expect(url.origin).toBe(c.authorize.origin);
  expect(url.pathname).toBe(c.authorize.pathname);
  expect(q.get('response_type')).toBe('code');
  expect(q.get('client_id')).toBe('client-123');
  expect(q.get('redirect_uri')).toBe(`https://app.test/auth/callback/${config.id}`);
  expect(q.get('code_challenge')).toBe(provider.checks.includes('pkce') ? CHALLENGE : null);
  expect(q.get('code_challenge_method')).toBe(provider.checks.includes('pkce') ? 'S256' : null);
  expect(q.get('state')).toBe(provider.checks.includes('state') ? STATE : null);
  expect(q.get('nonce')).toBe(provider.checks.includes('nonce') ? NONCE : null);
  const scopes = (q.get('scope') ?? '').split(/[ ,]/).filter(Boolean);
  expect(scopes).toEqual(expect.arrayContaining(c.authorize.scopes ?? []));
  for (const [key, value] of Object.entries(c.authorize.params ?? {})) expect(q.get(key), key).toBe(value);

  const tokens = c.tokens ?? { access_token: 'at-1', token_type: 'Bearer', expires_in: 3600 };
  const { user, account } = await mapProfile(provider, c.profile, tokens, { now: NOW });
  expect(user).toEqual(c.user);
  expect(account).toMatchObject({ provider: config.id, type: config.type, providerAccountId: c.user.id, token_type: 'bearer' });
}
