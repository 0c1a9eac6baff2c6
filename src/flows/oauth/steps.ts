// The network and protocol steps of the OAuth/OIDC flow, all through oauth4webapi, on a flow's deps. Each step
// turns oauth4webapi's failures into one of our typed errors, with the evidence attached.
import * as oauth from 'oauth4webapi';
import { AuthError, InvalidCheck, OAuthCallbackError, OAuthSignInError } from '../../core/errors.js';
import type { Account, Profile, TokenSet, User } from '../../core/types.js';
import type { InternalOAuthProvider, OAuthProviderConfig } from '../../providers/oauth.js';
import { buildAuthorizationUrl, mapProfile } from '../../providers/oauth-authorization-url.js';
import { endpointUrl, normalizeOAuthProvider, withCallbackUrl } from '../../providers/oauth-normalize.js';
import { authorizationServer, clientAuthOf, clientOf, forgetKeysAfterMiss, httpOptions, jwksOptions } from '../../providers/oauth-server.js';
import { forAuthorizationResponse, forTenantOf, isTenantTemplate } from '../../providers/oauth-tenant.js';
import { PROVIDER_REQUEST_TIMEOUT_MS } from '../../providers/provider-http.js';
import type { FlowDeps } from '../runtime/contract.js';
import { verifiedByCachedKey } from './cached-key-signature.js';
import { hmacAlgorithmOf, verifyHmacIdToken } from './hmac-id-token.js';
import { s256CodeChallenge } from './pkce.js';
import { randomCheckValue } from './random-check.js';
import { isOnRedirectProxy, sealProxyState } from './redirect-proxy.js';

/** The per-sign-in values the flow keeps while it waits (they go into the flow cookie). */
export interface OAuthChecks {
  codeVerifier?: string;
  state?: string;
  nonce?: string;
}

/** What `prepareAuthorization` hands back: the checks to keep, where to send the browser, and how it will come back. */
export type PreparedAuthorization = OAuthChecks & { url: string; formPost: boolean };

/** What `readProfile` hands back: the mapped user and account, and the profile they were mapped from. */
export interface ProfileResult {
  user: User;
  account: Account;
  profile: Profile;
}

// One normalised provider per provider object, whatever the host: the callback URL is swapped in per request,
// so Host headers (any number of them, under `trustHost: true`) never add an entry.
const normalized = new WeakMap<object, InternalOAuthProvider>();

/**
 * The provider of a flow's deps with every default resolved, for this request's callback URL.
 *
 * @example
 * oauthProviderFor(deps).redirectUri // 'https://app.example.com/auth/callback/github'
 */
export function oauthProviderFor(deps: Pick<FlowDeps, 'req' | 'provider'>): InternalOAuthProvider {
  return oauthProviderOf(deps.req, deps.provider);
}

/** {@link oauthProviderFor} for a request and a provider (a job's, which has no flow deps). */
export function oauthProviderOf(req: FlowDeps['req'], provider: FlowDeps['provider']): InternalOAuthProvider {
  const callbackUrl = `${req.authUrl}/callback/${provider.id}`;
  let p = normalized.get(provider);
  if (!p) {
    p = normalizeOAuthProvider(provider as unknown as OAuthProviderConfig, { env: req.config.env, redirectProxyUrl: req.config.redirectProxyUrl, callbackUrl });
    normalized.set(provider, p);
  }
  return withCallbackUrl(p, callbackUrl);
}

/** Parameters of the callback request: the query of a GET, the form of a `form_post` POST. */
export function callbackParams(deps: FlowDeps): Record<string, string> {
  const { req } = deps;
  if (req.method !== 'POST') return { ...req.query };
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.body)) if (typeof v === 'string') out[k] = v;
  return out;
}

/**
 * The options with a timeout on each request oauth4webapi sends with them. oauth4webapi calls the function per
 * request it actually sends, so a JWKS already cached costs no timer.
 */
function withTimeout<T extends object>(options: T): T & { signal: () => AbortSignal } {
  return { ...options, signal: () => AbortSignal.timeout(PROVIDER_REQUEST_TIMEOUT_MS) };
}

/** What a sign-in expected, for telling a failed check from a broken response (see classifyOAuthError). */
export interface ExpectedChecks {
  /** The nonce sent with the authorization request: an ID token without one fails that check. */
  nonce?: string;
}

// Claims oauth4webapi requires of every ID token that are checks of ours (who issued it, which sign-in it is for).
const CHECK_CLAIMS = ['iss', 'nonce'] as const;

/**
 * Maps an oauth4webapi (or network) failure to our error types, by the error's class and `code` and the evidence in
 * its `cause` (oauth4webapi's `claim`, `attribute`, `claims`), never by its message:
 * - `OAUTH_JWT_CLAIM_COMPARISON_FAILED` (iss, aud, azp, nonce, c_hash, s_hash of a token) and
 *   `OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED` (a document's `issuer`): InvalidCheck naming the claim;
 * - `OAUTH_INVALID_RESPONSE` for an ID token whose `iss` (or the `nonce` this sign-in sent) is missing or not a
 *   string: InvalidCheck naming that claim;
 * - anything else (other codes, a provider's error answer, the network): OAuthCallbackError carrying the code.
 */
export function classifyOAuthError(err: unknown, step: string, expected: ExpectedChecks = {}): AuthError {
  if (err instanceof AuthError) return err;
  if (err instanceof oauth.AuthorizationResponseError) {
    return new OAuthCallbackError(`The provider answered ${err.error}${err.error_description ? `: ${err.error_description}` : ''}.`, { err, step, actual: err.error });
  }
  if (err instanceof oauth.ResponseBodyError) {
    return new OAuthCallbackError(`The ${step} request failed with ${err.error} (HTTP ${err.status}).`, { err, step, actual: err.error });
  }
  if (err instanceof oauth.OperationProcessingError) {
    const cause = (err.cause ?? {}) as { claim?: string; attribute?: string; expected?: unknown; claims?: Record<string, unknown>; body?: Record<string, unknown> };
    if (err.code === oauth.JWT_CLAIM_COMPARISON) {
      const claim = cause.claim;
      return new InvalidCheck(`${step}: ${err.message}`, { err, step, claim, expected: cause.expected, actual: claim && cause.claims ? cause.claims[claim] : undefined });
    }
    if (err.code === oauth.JSON_ATTRIBUTE_COMPARISON) {
      const claim = cause.attribute;
      return new InvalidCheck(`${step}: ${err.message}`, { err, step, claim, expected: cause.expected, actual: claim && cause.body ? cause.body[claim] : undefined });
    }
    if (err.code === oauth.INVALID_RESPONSE && cause.claims && typeof cause.claims === 'object') {
      const claims = cause.claims;
      const claim = CHECK_CLAIMS.find((name) => (name === 'iss' || expected.nonce !== undefined) && typeof claims[name] !== 'string');
      if (claim) {
        return new InvalidCheck(`${step}: ${err.message}`, { err, step, claim, expected: claim === 'nonce' ? expected.nonce : 'a string', actual: claims[claim] ?? null });
      }
    }
    return new OAuthCallbackError(`${step}: ${err.message}`, { err, step, code: err.code });
  }
  if (err instanceof Error) return new OAuthCallbackError(`${step} failed: ${err.message}`, { err, step });
  return new OAuthCallbackError(`${step} failed.`, { step, actual: err });
}

/**
 * Which check of the authorization response oauth4webapi's `validateAuthResponse` failed, read from its error:
 * both are `OAUTH_INVALID_RESPONSE` with the response's `parameters` in `cause`; the issuer check reports the
 * issuer as `expected` (or nothing, when `iss` is missing), the state check the state it expected.
 */
export function failedResponseCheck(err: unknown, issuer: string): 'iss' | 'state' | undefined {
  if (!(err instanceof oauth.OperationProcessingError) || err.code !== oauth.INVALID_RESPONSE) return undefined;
  const cause = err.cause as { expected?: unknown; parameters?: unknown } | undefined;
  if (!cause || !(cause.parameters instanceof URLSearchParams)) return undefined;
  const parameters = cause.parameters;
  if (parameters.has('response')) return undefined; // a JARM response: neither check ran
  if (!('expected' in cause)) return 'iss'; // the one check that reports no expectation: `iss` missing
  if (cause.expected === issuer && parameters.get('iss') !== issuer) return 'iss';
  return 'state';
}

/**
 * Creates the PKCE verifier, state and nonce the provider's checks ask for, and the authorization URL, after
 * discovering the provider's metadata when needed (failing there means sign-in cannot even start); `formPost`
 * says the provider will answer with a cross-site POST (`response_mode=form_post`).
 */
export async function prepareAuthorization(deps: FlowDeps, extraParams: Record<string, string>): Promise<PreparedAuthorization> {
  const provider = oauthProviderFor(deps);
  const as = await authorizationServer(provider).catch((err: unknown) => {
    throw new OAuthSignInError(`Discovery for "${provider.id}" failed: ${(err as Error).message}`, { err: err as Error });
  });
  if (!as.authorization_endpoint) throw new OAuthSignInError(`Provider "${provider.id}" has no authorization endpoint.`);
  const checks: OAuthChecks = {};
  let codeChallenge: string | undefined;
  if (provider.checks.includes('pkce')) {
    checks.codeVerifier = randomCheckValue();
    codeChallenge = s256CodeChallenge(checks.codeVerifier);
  }
  // Behind a redirect proxy the state also tells the proxy where to forward the answer (sealed: see redirect-proxy.ts).
  const proxied = provider.redirectProxyUrl !== undefined && !isOnRedirectProxy(deps.req, provider.redirectProxyUrl);
  if (provider.checks.includes('state')) checks.state = proxied ? sealProxyState(deps.req, provider.id) : randomCheckValue();
  if (provider.checks.includes('nonce')) checks.nonce = randomCheckValue();
  const url = buildAuthorizationUrl(provider, new URL(as.authorization_endpoint), {
    redirectUri: provider.redirectUri,
    codeChallenge,
    state: checks.state,
    nonce: checks.nonce,
    extraParams,
  });
  return { ...checks, url: url.href, formPost: url.searchParams.get('response_mode') === 'form_post' };
}

function expectedState(provider: InternalOAuthProvider, params: Record<string, string>, checks: OAuthChecks): string | typeof oauth.skipStateCheck {
  if (checks.state) return checks.state;
  if (provider.checks.includes('state')) throw new InvalidCheck('The flow has no state to compare with.', { expected: 'state', actual: params.state ?? null });
  return oauth.skipStateCheck;
}

/**
 * The authorization response's parameters as oauth4webapi vouches for them (error=, state, iss). A wrong
 * or missing `state` or `iss`, and tokens in the front channel (an injected ID token), are failed checks.
 */
async function validatedParams(provider: InternalOAuthProvider, params: Record<string, string>, checks: OAuthChecks): Promise<URLSearchParams> {
  const as = await authorizationServer(provider).catch((err: unknown) => {
    throw new OAuthCallbackError(`The provider's metadata could not be loaded: ${(err as Error).message}`, { err: err as Error, step: 'discovery' });
  });
  const server = forAuthorizationResponse(as, params.iss);
  try {
    return oauth.validateAuthResponse(server, clientOf(provider), new URLSearchParams(params), expectedState(provider, params, checks));
  } catch (err) {
    const failed = failedResponseCheck(err, server.issuer);
    if (failed === 'state') {
      throw new InvalidCheck(`State check failed: ${(err as Error).message}`, { err: err as Error, expected: checks.state, actual: params.state ?? null });
    }
    if (failed === 'iss') {
      throw new InvalidCheck(`Issuer check failed: ${(err as Error).message}`, { err: err as Error, expected: server.issuer, actual: params.iss ?? null });
    }
    if (err instanceof oauth.UnsupportedOperationError) {
      throw new InvalidCheck('The authorization response carries tokens; this flow only accepts a code.', { err, expected: 'code', actual: Object.keys(params) });
    }
    throw classifyOAuthError(err, 'authorization response');
  }
}

/** The `id_token` of a token response, read from a copy (the response itself is oauth4webapi's to consume). */
async function idTokenOf(response: Response): Promise<unknown> {
  if (!response.ok) return undefined;
  const body: unknown = await response.clone().json().catch(() => undefined);
  return body && typeof body === 'object' ? (body as { id_token?: unknown }).id_token : undefined;
}

/** A validated token response: the tokens, and the ID token's claims (OIDC). */
export interface TokenResult {
  tokens: TokenSet;
  /** The validated ID token claims (OIDC). */
  claims?: Profile;
}

/**
 * Checks the authorization response (error=, state, iss: see validatedParams), then exchanges the code for tokens
 * (or runs the provider's own token request) and validates them. Nothing is exchanged unless the response passed.
 */
export async function exchangeCode(deps: FlowDeps, params: Record<string, string>, checks: OAuthChecks): Promise<TokenResult> {
  const provider = oauthProviderFor(deps);
  // oauth4webapi only exchanges parameters it validated itself; its failures are typed here, before the grant.
  const validated = await validatedParams(provider, params, checks);
  try {
    if (provider.token.request) {
      const { tokens } = await provider.token.request({ params, checks: { code_verifier: checks.codeVerifier, state: checks.state, nonce: checks.nonce }, provider });
      return { tokens, claims: provider.idToken ? await checkedIdToken(provider, tokens, checks) : undefined };
    }
    const as = await authorizationServer(provider);
    const client = clientOf(provider);
    const opts = withTimeout({ ...httpOptions(as.token_endpoint), additionalParameters: provider.token.params });
    let response = await oauth.authorizationCodeGrantRequest(as, client, await clientAuthOf(provider, as), validated, provider.redirectUri, checks.codeVerifier ?? oauth.nopkce, opts);
    if (provider.token.conform) response = await provider.token.conform(response);
    // Over plain HTTP there is no TLS to vouch for the ID token, so its signature is checked too.
    const insecure = opts[oauth.allowInsecureRequests] === true;
    return await processTokenResponse(provider, as, response, checks, { requireIdToken: provider.type === 'oidc', checkSignature: insecure });
  } catch (err) {
    // The code is bound to this client, this redirect URI and (with PKCE) this flow's verifier; the provider
    // refusing the grant means it was replayed, injected from another sign-in, or has expired.
    if (err instanceof oauth.ResponseBodyError && err.error === 'invalid_grant') {
      throw new InvalidCheck(`The provider refused the code (invalid_grant${err.error_description ? `: ${err.error_description}` : ''}).`, {
        err,
        step: 'token',
        expected: checks.codeVerifier ? 'a fresh code issued to this sign-in (PKCE)' : 'a fresh code',
        actual: err.error,
      });
    }
    throw classifyOAuthError(err, 'token', { nonce: checks.nonce });
  }
}

/**
 * Validates a token response, the ID token included (issuer, audience, expiry, nonce; per tenant for a
 * multi-tenant issuer), and checks the ID token's signature when asked to.
 */
async function processTokenResponse(
  provider: InternalOAuthProvider,
  as: oauth.AuthorizationServer,
  response: Response,
  checks: OAuthChecks,
  options: { requireIdToken: boolean; checkSignature: boolean },
): Promise<TokenResult> {
  const tenantAs = isTenantTemplate(as.issuer) ? forTenantOf(as, await idTokenOf(response)) : as;
  const tokens = await oauth.processAuthorizationCodeResponse(tenantAs, clientOf(provider), response, {
    expectedNonce: checks.nonce ?? oauth.expectNoNonce,
    requireIdToken: options.requireIdToken,
  });
  if (options.checkSignature && tokens.id_token) {
    // An HMAC-signed token (LINE's web login) is keyed with the client secret; oauth4webapi checks only public keys.
    if (hmacAlgorithmOf(tokens.id_token)) await verifyHmacIdToken(tokens.id_token, provider.clientSecret);
    else if (as.jwks_uri) await verifySignature(provider, tenantAs, response, tokens.id_token);
  }
  const claims = oauth.getValidatedIdTokenClaims(tokens);
  return { tokens: { ...tokens } as TokenSet, claims: claims ? ({ ...claims } as Profile) : undefined };
}

/**
 * Checks a processed token response's ID token signature against the provider's JWKS, cached per provider; a
 * key the cached set lacks (the provider rotated its keys) downloads the set once more and checks again.
 */
async function verifySignature(provider: InternalOAuthProvider, as: oauth.AuthorizationServer, response: Response, idToken: string): Promise<void> {
  const keys = await jwksOptions(provider);
  // The usual case, decided without Web Crypto; anything else (or a signature that fails) is oauth4webapi's to answer.
  if (verifiedByCachedKey(idToken, keys[oauth.jwksCache])) return;
  const options = (cache: typeof keys) => withTimeout({ ...httpOptions(as.jwks_uri), ...cache });
  try {
    await oauth.validateApplicationLevelSignature(as, response, options(keys));
  } catch (err) {
    if (!(err instanceof oauth.OperationProcessingError && err.code === oauth.KEY_SELECTION) || !(await forgetKeysAfterMiss(provider))) throw err;
    // The server object was replaced (oauth4webapi caches keys by its identity); a tenant's copy follows it, and so
    // do its keys (looked up again: the forgotten set is gone).
    const fresh = await authorizationServer(provider);
    await oauth.validateApplicationLevelSignature({ ...fresh, issuer: as.issuer }, response, options(await jwksOptions(provider)));
  }
}

/**
 * The claims of an ID token a provider's own token request handed back. It gets every check one from the token
 * endpoint gets, and its signature is always verified: no TLS connection of ours vouches for where the
 * provider's code found it.
 */
async function checkedIdToken(provider: InternalOAuthProvider, tokens: TokenSet, checks: OAuthChecks): Promise<Profile | undefined> {
  if (typeof tokens.id_token !== 'string') throw new OAuthCallbackError("The provider's token request returned no ID token.", { expected: 'id_token', actual: null });
  const as = await authorizationServer(provider);
  if (!as.jwks_uri) {
    throw new OAuthCallbackError("An ID token from the provider's own token request cannot be verified: the provider has no jwks_uri.", { step: 'token' });
  }
  // oauth4webapi validates ID tokens as part of a token response: the tokens are handed to it as one. Only the
  // ID token is taken from the result; a missing token_type does not matter for that.
  const response = new Response(JSON.stringify({ token_type: 'bearer', ...tokens }), { status: 200, headers: { 'content-type': 'application/json' } });
  return (await processTokenResponse(provider, as, response, checks, { requireIdToken: true, checkSignature: true })).claims;
}

/**
 * The profile with the `user` form field of a form_post callback, as Sign in with Apple posts it on the first
 * sign-in only (`{"name":{"firstName","lastName"},"email"}`): added as `profile.user`, a JSON object of strings.
 * It is not signed, so it fills in a name at most; nothing that identifies the user may be read from it.
 */
function withFormUser(provider: InternalOAuthProvider, profile: Profile, formUser: string | undefined): Profile {
  if (formUser === undefined || provider.authorization.params.response_mode !== 'form_post' || 'user' in profile) return profile;
  let parsed: { name?: { firstName?: unknown; lastName?: unknown }; email?: unknown };
  try {
    parsed = JSON.parse(formUser);
  } catch {
    return profile;
  }
  // Anything but a JSON object (a number, a list, null) is no user field at all.
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return profile;
  const text = (v: unknown) => (typeof v === 'string' && v.length <= 256 ? v : undefined);
  const user = { name: { firstName: text(parsed.name?.firstName), lastName: text(parsed.name?.lastName) }, email: text(parsed.email) };
  return { ...profile, user };
}

/**
 * Who signed in: the profile (ID token claims or user info, plus the `user` form field of a form_post callback),
 * mapped by the provider's `profile()` and `account()` into the user and account the sign-in tail receives.
 */
export async function readProfile(deps: FlowDeps, tokens: TokenResult, formUser: string | undefined): Promise<ProfileResult> {
  const provider = oauthProviderFor(deps);
  const profile = withFormUser(provider, await fetchProfile(provider, tokens), formUser);
  const mapped = await mapProfile(provider, profile, tokens.tokens);
  // A provider built at runtime for an organization's SSO connection admits only its verified domains' addresses
  // (sso/oidc-provider.ts): checked here, before the sign-in tail finds or makes anyone.
  const admit = (deps.provider as { admitIdentity?: (user: User, profile: Profile) => Promise<void> }).admitIdentity;
  if (typeof admit === 'function') await admit(mapped.user, profile);
  return { ...mapped, profile };
}

/** The user's profile: the ID token's claims, or the user-info endpoint (or the provider's own request). */
async function fetchProfile(provider: InternalOAuthProvider, { tokens, claims }: TokenResult): Promise<Profile> {
  try {
    if (provider.idToken) {
      if (!claims) throw new OAuthCallbackError('The provider returned no ID token.', { expected: 'id_token', actual: null });
      return claims;
    }
    if (provider.userinfo.request) return (await provider.userinfo.request({ tokens, provider })) as Profile;
    const as = await authorizationServer(provider);
    const url = endpointUrl(provider.userinfo) ?? (as.userinfo_endpoint ? new URL(as.userinfo_endpoint) : undefined);
    if (!url) throw new OAuthCallbackError(`Provider "${provider.id}" has no user-info endpoint.`);
    const response = await oauth.userInfoRequest({ ...as, userinfo_endpoint: url.href }, clientOf(provider), String(tokens.access_token ?? ''), withTimeout(httpOptions(url)));
    if (provider.type === 'oidc') {
      const sub = typeof claims?.sub === 'string' ? claims.sub : oauth.skipSubjectCheck;
      return (await oauth.processUserInfoResponse(as, clientOf(provider), sub, response)) as Profile;
    }
    if (!response.ok) throw new OAuthCallbackError(`The user-info endpoint answered HTTP ${response.status}.`, { actual: response.status });
    const body = await response.json().catch(() => undefined);
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new OAuthCallbackError('The user-info endpoint did not answer a JSON object.');
    return body as Profile;
  } catch (err) {
    throw classifyOAuthError(err, 'user info');
  }
}
