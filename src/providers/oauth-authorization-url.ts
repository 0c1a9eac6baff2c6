// Pure pieces of the OAuth flow around the network calls: the authorization URL the browser is sent to,
// and the mapping of a provider's profile and tokens to authchart's User and Account.
import { InvalidProvider, OAuthProfileParseError } from '../core/errors.js';
import type { Account, Profile, TokenSet, User } from '../core/types.js';
import type { InternalOAuthProvider } from './oauth.js';

export interface AuthorizationUrlOptions {
  redirectUri: string;
  state?: string;
  /** S256 challenge of the PKCE verifier kept in the flow. */
  codeChallenge?: string;
  nonce?: string;
  /** `authorizationParams` of `signIn()` and the sign-in request's query, in that order (later wins). */
  extraParams?: Record<string, string>;
}

// Parameters that bind the authorization response to this client and this flow. They come only from the
// flow itself: a crafted sign-in link must not swap the redirect URI, the PKCE challenge or the state.
// `request`/`request_uri` (JAR) are refused too, since a request object could carry any of them.
const PROTECTED_PARAMS = new Set([
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'state',
  'nonce',
  'request',
  'request_uri',
]);

/**
 * Builds the URL the browser is redirected to. Parameters are applied in order, later winning:
 * `response_type=code`, `client_id`, `redirect_uri`; the provider's `authorization.params` (with `scope`);
 * the endpoint URL's own query; `extraParams`. The protected parameters (`client_id`, `redirect_uri`,
 * `response_type`, `code_challenge*`, `state`, `nonce`, `request`, `request_uri`) are ignored in
 * `extraParams`, and `code_challenge` (S256), `state` and `nonce` are set last from the flow's values. A preset's
 * `authorization.conform` then rewrites the finished URL (TikTok, WeChat).
 *
 * @example
 * buildAuthorizationUrl(provider, provider.authorization.url!, { redirectUri: provider.redirectUri, state, codeChallenge })
 */
export function buildAuthorizationUrl(provider: InternalOAuthProvider, endpoint: URL, options: AuthorizationUrlOptions): URL {
  if (!provider.clientId) {
    throw new InvalidProvider(`Provider "${provider.id}" has no clientId (set it or AUTH_{ID}_ID).`, { provider: provider.id });
  }
  const url = new URL(endpoint);
  const own = [...url.searchParams];
  const query = new URLSearchParams();
  query.set('response_type', 'code');
  query.set('client_id', provider.clientId);
  query.set('redirect_uri', options.redirectUri);
  for (const [key, value] of Object.entries(provider.authorization.params)) query.set(key, value);
  for (const [key, value] of own) query.set(key, value);
  for (const [key, value] of Object.entries(options.extraParams ?? {})) {
    if (typeof value !== 'string' || PROTECTED_PARAMS.has(key)) continue;
    query.set(key, value);
  }
  // Re-assert what the flow decided, whatever the provider's params or the endpoint's query said.
  query.set('response_type', 'code');
  query.set('client_id', provider.clientId);
  query.set('redirect_uri', options.redirectUri);
  for (const key of ['code_challenge', 'code_challenge_method', 'state', 'nonce']) query.delete(key);
  if (options.codeChallenge !== undefined) {
    query.set('code_challenge', options.codeChallenge);
    query.set('code_challenge_method', 'S256');
  }
  if (options.state !== undefined) query.set('state', options.state);
  if (options.nonce !== undefined) query.set('nonce', options.nonce);
  url.search = query.toString();
  return provider.authorization.conform ? provider.authorization.conform(url) : url;
}

export interface MapProfileOptions {
  /** Milliseconds since the epoch; defaults to `Date.now()`. */
  now?: number;
}

/**
 * Token response fields as the spec exposes them: `expires_at` absolute seconds, `token_type` lowercase.
 *
 * @example
 * normalizeTokens({ token_type: 'Bearer', expires_in: 60 }, Date.UTC(2026, 0, 1)) // { token_type: 'bearer', expires_in: 60, expires_at: 1767225660 }
 */
export function normalizeTokens(tokens: TokenSet, now: number = Date.now()): TokenSet {
  const out: TokenSet = { ...tokens };
  if (out.expires_at === undefined && out.expires_in !== undefined) {
    const expiresIn = Number(out.expires_in);
    if (Number.isFinite(expiresIn)) out.expires_at = Math.floor(now / 1000) + Math.floor(expiresIn);
  }
  if (typeof out.token_type === 'string') out.token_type = out.token_type.toLowerCase();
  return out;
}

/**
 * Runs the provider's `profile` and `account` mappings on a profile and token response.
 * `user.id` becomes a string and `user.email` is lowercased; `account.providerAccountId` is the user's id.
 * Throws `OAuthProfileParseError` when `profile()` throws or returns no id.
 *
 * @example
 * const { user, account } = await mapProfile(provider, claims, tokens)
 * account.providerAccountId === user.id // true
 */
export async function mapProfile(
  provider: InternalOAuthProvider,
  profile: Profile,
  tokens: TokenSet,
  options: MapProfileOptions = {},
): Promise<{ user: User; account: Account }> {
  const normalized = normalizeTokens(tokens, options.now);
  let mapped: User;
  try {
    mapped = await provider.profile(profile, normalized);
  } catch (err) {
    throw new OAuthProfileParseError(err instanceof Error ? err : new Error(String(err)), { provider: provider.id });
  }
  const rawId: unknown = mapped?.id;
  if (rawId === undefined || rawId === null || rawId === '') {
    throw new OAuthProfileParseError(`Provider "${provider.id}": profile() returned no id.`, {
      provider: provider.id,
      expected: 'a user with an id',
      actual: mapped,
    });
  }
  const user: User = { ...mapped, id: String(rawId) };
  if (typeof user.email === 'string') user.email = user.email.toLowerCase();
  const account: Account = {
    ...(provider.account(normalized) ?? {}),
    provider: provider.id,
    type: provider.type,
    providerAccountId: user.id as string,
  };
  return { user, account };
}
