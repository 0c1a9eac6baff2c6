// Resolves an OAuth/OIDC provider's options into the complete, validated shape the OAuth machine runs on:
// environment fallbacks, default checks, scope, client authentication, profile and account mappings.
import { providerEnv, type Env } from '../core/env.js';
import { InvalidEndpoints } from '../core/errors.js';
import type { Profile, TokenSet, User } from '../core/types.js';
import type {
  AuthorizationEndpointConfig,
  InternalEndpoint,
  InternalOAuthProvider,
  OAuthCheck,
  OAuthProviderConfig,
  TokenEndpointConfig,
  UserinfoEndpointConfig,
} from './oauth.js';

export type { InternalOAuthProvider, InternalEndpoint } from './oauth.js';

export interface NormalizeOAuthOptions {
  env: Env;
  /** The global `redirectProxyUrl`; a provider's own value wins over it. */
  redirectProxyUrl?: string;
  /** `{origin}{basePath}/callback/{id}` on this deployment. */
  callbackUrl: string;
}

const DEFAULT_OIDC_SCOPE = 'openid profile email';

/**
 * Default profile mapping: the standard OIDC claims, with `id` for OAuth 2 providers that have no `sub`.
 *
 * @example
 * defaultProfile({ sub: '42', nickname: 'ada', picture: 'https://img.test/a.png' }) // { id: '42', name: 'ada', email: null, image: '...' }
 */
export function defaultProfile(profile: Profile): User {
  const id = profile.sub ?? profile.id;
  return {
    id: id === undefined || id === null ? undefined : String(id),
    name: profile.name ?? profile.nickname ?? profile.preferred_username ?? null,
    email: profile.email ?? null,
    image: typeof profile.picture === 'string' ? profile.picture : null,
  };
}

const ACCOUNT_FIELDS = ['access_token', 'id_token', 'refresh_token', 'expires_at', 'scope', 'token_type', 'session_state'] as const;

/**
 * Default account mapping: only the token fields worth storing, and none that are undefined.
 *
 * @example
 * defaultAccount({ access_token: 'at', expires_in: 3600, expires_at: 1768482000 }) // { access_token: 'at', expires_at: 1768482000 }
 */
export function defaultAccount(tokens: TokenSet): TokenSet {
  const account: Record<string, unknown> = {};
  for (const key of ACCOUNT_FIELDS) if (tokens[key] !== undefined) account[key] = tokens[key];
  return account as TokenSet;
}

function parseUrl(value: string, providerId: string, option: string): URL {
  try {
    return new URL(value);
  } catch (err) {
    throw new InvalidEndpoints(`Provider "${providerId}": \`${option}\` is not a valid URL.`, {
      err: err as Error,
      provider: providerId,
      option,
      actual: value,
    });
  }
}

/** An endpoint given as a path (`/oauth/token`) hangs under the issuer, the issuer's own path kept in front. */
function endpointHref(rawUrl: string, issuer: string | undefined, providerId: string, option: string): string {
  if (!rawUrl.startsWith('/')) return rawUrl;
  if (issuer === undefined) {
    throw new InvalidEndpoints(
      `Provider "${providerId}" runs per instance: set \`issuer\` (or AUTH_${providerId.toUpperCase().replace(/-/g, '_')}_ISSUER) to its base URL.`,
      { provider: providerId, option, expected: ['issuer'], actual: rawUrl },
    );
  }
  const base = new URL(issuer);
  return `${base.origin}${base.pathname.replace(/\/+$/, '')}${rawUrl}`;
}

/**
 * A URL string or `{ url, params }` becomes `{ url without query, params }`; the URL's own query wins. A path is
 * resolved under the issuer (see `endpointHref`).
 */
function normalizeEndpoint<T extends { url?: string; params?: Record<string, string> }>(
  value: string | T | undefined,
  providerId: string,
  option: string,
  issuer: string | undefined,
): InternalEndpoint & Omit<T, 'url' | 'params'> {
  const config = (typeof value === 'string' ? { url: value } : (value ?? {})) as T;
  const { url: rawUrl, params: rawParams, ...rest } = config;
  const params: Record<string, string> = { ...rawParams };
  let url: URL | undefined;
  if (rawUrl) {
    url = parseUrl(endpointHref(rawUrl, issuer, providerId, option), providerId, option);
    for (const [key, v] of url.searchParams) params[key] = v;
    url.search = '';
  }
  return { ...(rest as Omit<T, 'url' | 'params'>), url, params };
}

function normalizeChecks(configured: readonly OAuthCheck[] | undefined, proxied: boolean): Exclude<OAuthCheck, 'none'>[] {
  const checks = new Set<OAuthCheck>(configured ?? ['pkce']);
  checks.delete('none');
  // Behind a redirect proxy the callback first lands elsewhere; `state` is what ties it back to this flow.
  if (proxied) checks.add('state');
  return [...checks] as Exclude<OAuthCheck, 'none'>[];
}

const AUTH_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none']);

/** A client authentication method we do not know, or `private_key_jwt` without a key, fails as the sign-in starts, not at the callback. */
function checkClientAuth(providerId: string, method: string, privateKey: unknown): void {
  if (!AUTH_METHODS.has(method)) {
    throw new InvalidEndpoints(`Provider "${providerId}": unknown client.token_endpoint_auth_method "${method}".`, {
      provider: providerId,
      option: 'client.token_endpoint_auth_method',
      expected: [...AUTH_METHODS],
      actual: method,
    });
  }
  if (method === 'private_key_jwt' && (privateKey === undefined || privateKey === null || privateKey === '')) {
    throw new InvalidEndpoints(`Provider "${providerId}" authenticates with private_key_jwt but has no \`token.clientPrivateKey\`.`, {
      provider: providerId,
      option: 'token.clientPrivateKey',
      expected: 'a private JWK, PKCS#8 PEM or CryptoKey',
      actual: privateKey,
    });
  }
}

function redirectUriFor(proxyBase: string, providerId: string): string {
  return `${proxyBase.replace(/\/+$/, '')}/callback/${providerId}`;
}

/**
 * Resolves a provider's options: env fallbacks (`AUTH_{ID}_ID`, `_SECRET`, `_ISSUER`; explicit options win, and
 * `_ISSUER` wins over a preset's `defaultIssuer`), endpoints given as paths under the issuer,
 * default `checks` (`['pkce']`, plus `state` behind a redirect proxy), default scope for OIDC, client
 * authentication (`client_secret_basic`), profile and account mappings, and the `redirect_uri`.
 * Throws `InvalidEndpoints` when the endpoints can neither be read nor discovered.
 *
 * @example
 * const github = normalizeOAuthProvider(GitHub(), { env: process.env, callbackUrl: 'https://app.test/auth/callback/github' })
 * github.clientId // process.env.AUTH_GITHUB_ID unless GitHub({ clientId }) was given
 */
export function normalizeOAuthProvider(provider: OAuthProviderConfig<any>, options: NormalizeOAuthOptions): InternalOAuthProvider {
  const { id } = provider;
  const env = options.env;
  const issuer = provider.issuer ?? providerEnv(env, id, 'ISSUER') ?? provider.defaultIssuer;
  if (issuer !== undefined) parseUrl(issuer, id, 'issuer');
  // Like the endpoints, these may be paths under the issuer (Frontegg publishes its metadata below /oauth).
  const wellKnown = provider.wellKnown ? parseUrl(endpointHref(provider.wellKnown, issuer, id, 'wellKnown'), id, 'wellKnown') : undefined;
  const jwks_endpoint = provider.jwks_endpoint ? parseUrl(endpointHref(provider.jwks_endpoint, issuer, id, 'jwks_endpoint'), id, 'jwks_endpoint') : undefined;

  const authorization = normalizeEndpoint<AuthorizationEndpointConfig>(provider.authorization, id, 'authorization', issuer);
  const token = normalizeEndpoint<TokenEndpointConfig>(provider.token, id, 'token', issuer);
  const userinfo = normalizeEndpoint<UserinfoEndpointConfig>(provider.userinfo, id, 'userinfo', issuer);

  const isOidc = provider.type === 'oidc';
  if (isOidc && !authorization.params.scope) authorization.params.scope = DEFAULT_OIDC_SCOPE;
  const idToken = isOidc ? provider.idToken !== false : false;

  const canDiscover = issuer !== undefined || wellKnown !== undefined;
  const needsUserinfo = !idToken;
  const missing: string[] = [];
  if (!authorization.url) missing.push('authorization');
  if (!token.url && !token.request) missing.push('token');
  if (needsUserinfo && !userinfo.url && !userinfo.request) missing.push('userinfo');
  // An ID token is validated against the issuer, so OIDC cannot do without one (given or discovered).
  if (isOidc && !canDiscover) {
    throw new InvalidEndpoints(`OIDC provider "${id}" needs an \`issuer\` (or \`wellKnown\`) to validate ID tokens.`, {
      provider: id,
      expected: ['issuer', 'wellKnown'],
    });
  }
  if (missing.length > 0 && !canDiscover) {
    throw new InvalidEndpoints(
      `Provider "${id}" needs an \`issuer\` or \`wellKnown\` to discover endpoints, or explicit ${missing.join(', ')} endpoint(s).`,
      { provider: id, expected: ['issuer', 'wellKnown', ...missing], actual: missing },
    );
  }

  const authMethod = provider.client?.token_endpoint_auth_method ?? 'client_secret_basic';
  checkClientAuth(id, authMethod, token.clientPrivateKey);

  const proxyBase = provider.redirectProxyUrl ?? options.redirectProxyUrl ?? (env.AUTH_REDIRECT_PROXY_URL || undefined);
  if (proxyBase !== undefined) parseUrl(proxyBase, id, 'redirectProxyUrl');

  return {
    id,
    name: provider.name,
    type: provider.type,
    clientId: provider.clientId ?? providerEnv(env, id, 'ID'),
    clientSecret: provider.clientSecret ?? providerEnv(env, id, 'SECRET'),
    issuer,
    wellKnown,
    jwks_endpoint,
    authorization: { url: authorization.url, params: authorization.params, ...(authorization.conform ? { conform: authorization.conform } : {}) },
    token,
    userinfo,
    checks: normalizeChecks(provider.checks, proxyBase !== undefined),
    idToken,
    issuerPerTenant: isOidc && (provider as { issuerPerTenant?: boolean }).issuerPerTenant === true,
    client: { ...provider.client, token_endpoint_auth_method: authMethod },
    profile: provider.profile ?? defaultProfile,
    account: provider.account ?? defaultAccount,
    allowDangerousEmailAccountLinking: provider.allowDangerousEmailAccountLinking === true,
    redirectProxyUrl: proxyBase,
    redirectUri: proxyBase !== undefined ? redirectUriFor(proxyBase, id) : options.callbackUrl,
    callbackUrl: options.callbackUrl,
    needsDiscovery: missing.length > 0,
    style: provider.style,
  };
}

/**
 * The provider for another callback URL (another trusted host): the same resolved options with `callbackUrl`
 * and, unless a redirect proxy fixes it, `redirect_uri` replaced. Lets one normalised provider serve every host
 * without keeping a copy per host.
 *
 * @example
 * const forHost = withCallbackUrl(github, 'https://pr-7.preview.example.com/auth/callback/github')
 */
export function withCallbackUrl(provider: InternalOAuthProvider, callbackUrl: string): InternalOAuthProvider {
  if (provider.callbackUrl === callbackUrl) return provider;
  return { ...provider, callbackUrl, redirectUri: provider.redirectProxyUrl !== undefined ? provider.redirectUri : callbackUrl };
}

/**
 * An endpoint's URL with its `params` as the query (for GET requests such as user info).
 *
 * @example
 * endpointUrl(provider.userinfo) // https://graph.facebook.com/v22.0/me?fields=id%2Cname%2Cemail%2Cpicture
 */
export function endpointUrl(endpoint: InternalEndpoint): URL | undefined {
  if (!endpoint.url) return undefined;
  const url = new URL(endpoint.url);
  for (const [key, value] of Object.entries(endpoint.params)) url.searchParams.set(key, value);
  return url;
}

const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/**
 * True only for `http:` URLs on a loopback host (127.0.0.0/8, `[::1]`, `localhost`): the one case where
 * the OAuth machine lets oauth4webapi talk plain HTTP (a local test or development provider).
 *
 * @example
 * isLoopbackHttp('http://127.0.0.1:4000') // true
 * isLoopbackHttp('http://localhost.evil.test') // false
 */
export function isLoopbackHttp(url: string | URL): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:') return false;
  // WHATWG URL parsing has already canonicalised forms like `127.1` or `0x7f.0.0.1` to dotted quads.
  const host = parsed.hostname;
  return host === 'localhost' || host === '[::1]' || IPV4_LOOPBACK.test(host);
}
