// The authorization server as oauth4webapi sees it: metadata from discovery (cached per issuer) merged with the
// provider's configured endpoints, one object per configuration (its JWKS cached with it), and the client and
// client authentication.
import { createPrivateKey } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { InvalidEndpoints } from '../core/errors.js';
import type { InternalOAuthProvider } from './oauth.js';
import { isLoopbackHttp } from './oauth-normalize.js';
import { PROVIDER_REQUEST_TIMEOUT_MS, providerFetch } from './provider-http.js';
import { isTenantOf, isTenantTemplateOf } from './oauth-tenant.js';
import { lazy } from '../core/lazy.js';

const loadJose = lazy(() => import('jose'));

/** Discovery results are reused for this long; providers rarely move their endpoints. */
const DISCOVERY_TTL_MS = 10 * 60 * 1000;
const discoveryCache = new Map<string, { at: number; as: oauth.AuthorizationServer }>();

/**
 * oauth4webapi options for a request to `url`: plain HTTP is allowed only for loopback providers; the request goes
 * out through {@link providerFetch} (node:http on Node, else the global fetch).
 */
export function httpOptions(url: string | URL | undefined): { [oauth.allowInsecureRequests]?: boolean; [oauth.customFetch]: ReturnType<typeof providerFetch> } {
  const transport = { [oauth.customFetch]: providerFetch() };
  return url && isLoopbackHttp(url) ? { ...transport, [oauth.allowInsecureRequests]: true } : transport;
}

const WELL_KNOWN_SUFFIXES = ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'];

/** The issuer a discovery document must name: the configured one, or the wellKnown URL minus its suffix. */
function expectedIssuer(provider: InternalOAuthProvider): URL {
  if (provider.issuer) return new URL(provider.issuer);
  const href = provider.wellKnown!.href;
  for (const suffix of WELL_KNOWN_SUFFIXES) {
    const at = href.indexOf(suffix);
    if (at > 0) return new URL(href.slice(0, at) + href.slice(at + suffix.length));
  }
  return new URL(provider.wellKnown!.origin);
}

/** Metadata whose issuer is the configured one, its multi-tenant template, or one tenant of it (see oauth-tenant.ts). */
async function tenantTemplateOrIssuer(issuer: URL, response: Response): Promise<oauth.AuthorizationServer> {
  const body: unknown = await response.clone().json().catch(() => undefined);
  const named = body && typeof body === 'object' ? (body as { issuer?: unknown }).issuer : undefined;
  // oauth4webapi still checks the document and its issuer, against the template when it is one of ours.
  const expected = typeof named === 'string' && (isTenantTemplateOf(named, issuer) || isTenantOf(named, issuer)) ? new URL(named) : issuer;
  return oauth.processDiscoveryResponse(expected, response);
}

/** The provider's discovery document, and when it was read (it is reused for DISCOVERY_TTL_MS from then). */
async function discover(provider: InternalOAuthProvider): Promise<{ at: number; as: oauth.AuthorizationServer }> {
  const issuer = expectedIssuer(provider);
  const key = `${provider.wellKnown?.href ?? ''}|${issuer.href}|${provider.type}|${provider.issuerPerTenant === true}`;
  const hit = discoveryCache.get(key);
  if (hit && Date.now() - hit.at < DISCOVERY_TTL_MS) return hit;
  const response = provider.wellKnown
    ? await providerFetch()(provider.wellKnown.href, { headers: { accept: 'application/json' }, redirect: 'manual', signal: AbortSignal.timeout(PROVIDER_REQUEST_TIMEOUT_MS) })
    : await oauth.discoveryRequest(issuer, { algorithm: provider.type === 'oidc' ? 'oidc' : 'oauth2', ...httpOptions(issuer), signal: AbortSignal.timeout(PROVIDER_REQUEST_TIMEOUT_MS) });
  const as = provider.issuerPerTenant ? await tenantTemplateOrIssuer(issuer, response) : await oauth.processDiscoveryResponse(issuer, response);
  const read = { at: Date.now(), as };
  discoveryCache.set(key, read);
  return read;
}

/**
 * One authorization server object per provider configuration. oauth4webapi caches a JWKS by that object's
 * identity, so a fresh object per call would download and import the provider's keys on every callback. The
 * key is everything the object is built from: two providers (or two configs) with different issuers or
 * endpoints never share one; the same issuer and endpoints may, and then rightly share the keys too.
 */
interface ServerEntry {
  discovered: oauth.AuthorizationServer | undefined;
  as: oauth.AuthorizationServer;
  /** The provider's JWKS as oauth4webapi fills it (`jwksCache`): shared by per-tenant copies of `as` too. */
  keys: oauth.JWKSCacheInput;
  /** When a key miss last forced a download (ms); misses within KEY_MISS_FLOOR_MS of it do not download again. */
  refreshedAt: number;
}
const servers = new Map<string, ServerEntry>();
/** A stream of tokens naming unknown keys costs at most one JWKS download per this interval. */
const KEY_MISS_FLOOR_MS = 10_000;

function serverKey(provider: InternalOAuthProvider, discovers: boolean): string {
  return JSON.stringify([
    discovers,
    provider.type,
    provider.issuer ?? null,
    provider.wellKnown?.href ?? null,
    provider.issuerPerTenant === true,
    provider.authorization.url?.href ?? null,
    provider.token.url?.href ?? null,
    provider.userinfo.url?.href ?? null,
    provider.jwks_endpoint?.href ?? null,
  ]);
}

// The entry a provider object resolved to last, until its discovery document goes stale or the entry is replaced
// (keys forgotten after a miss, caches cleared): a sign-in asks for its server several times, and building the
// cache keys again (a URL, a JSON list) cost more than the lookups.
const resolved = new WeakMap<InternalOAuthProvider, { key: string; entry: ServerEntry; until: number }>();

async function serverEntry(provider: InternalOAuthProvider): Promise<ServerEntry> {
  const last = resolved.get(provider);
  if (last && Date.now() < last.until && servers.get(last.key) === last.entry) return last.entry;
  const discovers = Boolean(provider.needsDiscovery || provider.idToken || provider.type === 'oidc');
  const read = discovers ? await discoverIfPossible(provider) : undefined;
  const discovered = read?.as;
  const key = serverKey(provider, discovers);
  const entry = entryFor(provider, key, discovered);
  resolved.set(provider, { key, entry, until: read ? read.at + DISCOVERY_TTL_MS : Infinity });
  return entry;
}

function entryFor(provider: InternalOAuthProvider, key: string, discovered: oauth.AuthorizationServer | undefined): ServerEntry {
  const hit = servers.get(key);
  // A refreshed discovery document (after its TTL) makes a new object: new endpoints, and a new key set with them.
  if (hit && hit.discovered === discovered) return hit;
  const issuer = discovered?.issuer ?? provider.issuer ?? provider.authorization.url?.origin ?? 'https://authchart.invalid';
  const as: oauth.AuthorizationServer = Object.freeze({
    ...discovered,
    issuer,
    authorization_endpoint: provider.authorization.url?.href ?? discovered?.authorization_endpoint,
    token_endpoint: provider.token.url?.href ?? discovered?.token_endpoint,
    userinfo_endpoint: provider.userinfo.url?.href ?? discovered?.userinfo_endpoint,
    jwks_uri: provider.jwks_endpoint?.href ?? discovered?.jwks_uri,
  });
  const entry: ServerEntry = { discovered, as, keys: {}, refreshedAt: 0 };
  servers.set(key, entry);
  return entry;
}

/**
 * The provider's authorization server metadata, the same (frozen) object on every call while its discovery
 * document is fresh. Configured endpoints win over discovered ones.
 *
 * @example
 * const as = await authorizationServer(provider); as.token_endpoint
 */
export async function authorizationServer(provider: InternalOAuthProvider): Promise<oauth.AuthorizationServer> {
  return (await serverEntry(provider)).as;
}

/**
 * oauth4webapi options that share the provider's cached JWKS (per-tenant copies of the server object included).
 *
 * @example
 * await oauth.validateApplicationLevelSignature(as, response, await jwksOptions(provider))
 */
export async function jwksOptions(provider: InternalOAuthProvider): Promise<{ [oauth.jwksCache]: oauth.JWKSCacheInput }> {
  return { [oauth.jwksCache]: (await serverEntry(provider)).keys };
}

/**
 * After a token named a key the cached JWKS lacks (the provider rotated its keys): forgets the keys so the
 * next check downloads them again. Answers false, and forgets nothing, when a miss already did so within
 * KEY_MISS_FLOOR_MS: a rotated key is then already in the set, and unknown key ids must not drive downloads.
 */
export async function forgetKeysAfterMiss(provider: InternalOAuthProvider): Promise<boolean> {
  const discovers = Boolean(provider.needsDiscovery || provider.idToken || provider.type === 'oidc');
  const key = serverKey(provider, discovers);
  const entry = servers.get(key);
  const now = Date.now();
  if (!entry || now - entry.refreshedAt < KEY_MISS_FLOOR_MS) return false;
  // oauth4webapi keeps its own copy by object identity too: a new object (same metadata) drops that one.
  servers.set(key, { ...entry, as: Object.freeze({ ...entry.as }), keys: {}, refreshedAt: now });
  return true;
}

async function discoverIfPossible(provider: InternalOAuthProvider): Promise<{ at: number; as: oauth.AuthorizationServer } | undefined> {
  if (!provider.issuer && !provider.wellKnown) return undefined;
  return discover(provider);
}

/** The oauth4webapi client for a provider. */
export function clientOf(provider: InternalOAuthProvider): oauth.Client {
  const { token_endpoint_auth_method: _method, ...rest } = provider.client;
  return { ...rest, client_id: provider.clientId ?? '' } as oauth.Client;
}

/**
 * How the client authenticates at the token endpoint. The JWT assertions of `client_secret_jwt` and
 * `private_key_jwt` name both the issuer and the token endpoint as audience, as Auth.js sends them: providers
 * differ in which one they expect.
 */
export async function clientAuthOf(provider: InternalOAuthProvider, as: oauth.AuthorizationServer): Promise<oauth.ClientAuth> {
  const secret = provider.clientSecret ?? '';
  const audience: oauth.ModifyAssertionOptions = {
    [oauth.modifyAssertion](_header, payload) {
      payload.aud = [as.issuer, ...(as.token_endpoint ? [as.token_endpoint] : [])];
    },
  };
  switch (provider.client.token_endpoint_auth_method) {
    case 'client_secret_post':
      return oauth.ClientSecretPost(secret);
    case 'client_secret_jwt':
      return oauth.ClientSecretJwt(secret, audience);
    case 'private_key_jwt':
      return oauth.PrivateKeyJwt(await signingKeyOf(provider), audience);
    case 'none':
      return oauth.None();
    default:
      return oauth.ClientSecretBasic(secret);
  }
}

// Imported keys, per configured key object or PEM/JWK text: importing costs more than signing the assertion.
const importedKeys = new WeakMap<object, Promise<oauth.PrivateKey>>();
const importedPems = new Map<string, Promise<oauth.PrivateKey>>();

/** The JWS algorithm a private JWK signs with: its own `alg`, else the usual one for its key type and curve. */
function algorithmOf(jwk: JsonWebKey): string {
  if (typeof jwk.alg === 'string' && jwk.alg) return jwk.alg;
  if (jwk.kty === 'RSA') return 'RS256';
  if (jwk.kty === 'EC') return ({ 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' } as Record<string, string>)[jwk.crv ?? ''] ?? 'ES256';
  if (jwk.kty === 'OKP') return 'EdDSA';
  throw new InvalidEndpoints(`A private_key_jwt key of type "${String(jwk.kty)}" cannot sign.`, { option: 'token.clientPrivateKey', actual: jwk.kty });
}

async function importPrivateJwk(jwk: JsonWebKey & { kid?: string }): Promise<oauth.PrivateKey> {
  if (typeof jwk.d !== 'string') {
    throw new InvalidEndpoints('token.clientPrivateKey is a public key; private_key_jwt needs the private one.', { option: 'token.clientPrivateKey', expected: 'a JWK with "d"' });
  }
  // jose only on this path: most apps never authenticate with a private key.
  const { importJWK } = await loadJose();
  const key = await importJWK(jwk, algorithmOf(jwk), { extractable: false });
  return { key: key as CryptoKey, kid: typeof jwk.kid === 'string' ? jwk.kid : undefined };
}

async function importKey(configured: NonNullable<InternalOAuthProvider['token']['clientPrivateKey']>): Promise<oauth.PrivateKey> {
  try {
    if (typeof configured === 'string') return await importPrivateJwk(createPrivateKey(configured).export({ format: 'jwk' }) as JsonWebKey);
    if (configured instanceof CryptoKey) return { key: configured };
    if ('key' in configured && configured.key instanceof CryptoKey) return { key: configured.key, kid: configured.kid };
    return await importPrivateJwk(configured as JsonWebKey);
  } catch (err) {
    if (err instanceof InvalidEndpoints) throw err;
    throw new InvalidEndpoints(`token.clientPrivateKey could not be read: ${(err as Error).message}`, { err: err as Error, option: 'token.clientPrivateKey' });
  }
}

/** The provider's `token.clientPrivateKey` as oauth4webapi signs with it, imported once. */
function signingKeyOf(provider: InternalOAuthProvider): Promise<oauth.PrivateKey> {
  const configured = provider.token.clientPrivateKey!;
  const cached = typeof configured === 'string' ? importedPems.get(configured) : importedKeys.get(configured);
  if (cached) return cached;
  const imported = importKey(configured);
  if (typeof configured === 'string') importedPems.set(configured, imported);
  else importedKeys.set(configured, imported);
  // A failed import is not remembered: the next sign-in tries again (and reports again).
  imported.catch(() => (typeof configured === 'string' ? importedPems.delete(configured) : importedKeys.delete(configured)));
  return imported;
}

/** Forgets cached discovery documents (tests, and providers that rotate endpoints). */
export function clearDiscoveryCache(): void {
  discoveryCache.clear();
  servers.clear();
}
