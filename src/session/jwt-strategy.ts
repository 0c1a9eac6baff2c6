// JWT sessions: the encrypted token lives in the (chunked) session cookie.
// The cookie is re-encrypted only when the jwt callback changed the token or `updateAge` has passed.
import { noteActivity } from '../activity/run.js';
import { defaultCallbacks } from '../core/callbacks.js';
import { AccessDenied, JWTSessionError } from '../core/errors.js';
import type { Awaitable, JWT, Session } from '../core/types.js';
import { dispatchEvent } from '../core/events.js';
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import { setCookie } from '../core/request-context.js';
import { chunkCookie, clearChunked, readChunked } from './chunks.js';
import { decodeSyncCached, encodeSync, type JWTDecodeParams, type VerifiedTokens } from './jwt.js';
import type { InternalConfig } from '../core/config.js';
import type { SessionStrategyImpl, SignInResult } from './types.js';
import { tokenVerification, verificationClaims, withMethod } from './verification.js';
import { ORGANIZATION_CLAIM, reservedClaims, withReserved } from './claims.js';
import { PROVIDER_TOKENS_CLAIM, providerTokensFromAccount, providerTokensOf, withoutProviderTokens, type ProviderTokensClaim } from './provider-token-claim.js';
import { endedElsewhere, keepsValidAfter } from './valid-after.js';
import { lazy } from '../core/lazy.js';

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

async function encodeToken(req: AuthRequest, token: JWT): Promise<string> {
  const { config, cookieOptions } = req;
  const params = { token, secret: config.secrets, salt: cookieOptions.sessionToken.name, maxAge: config.jwt.maxAge };
  return config.jwt.encode ? await config.jwt.encode(params) : encodeSync(params);
}

// Each configuration's verified tokens (its own secrets and cookie name: a token one configuration verified means
// nothing to another). Held by the configuration object, so it goes when the configuration does.
const verified = new WeakMap<InternalConfig, VerifiedTokens>();

function verifiedTokensOf(config: InternalConfig): VerifiedTokens {
  let cache = verified.get(config);
  if (!cache) verified.set(config, (cache = { limit: config.jwt.verifiedTokenCache, entries: new Map() }));
  return cache;
}

/**
 * How many verified tokens the configuration's cache holds now (tests, and the memory figure in docs/performance.md).
 * @internal
 */
export const verifiedTokenCount = (config: InternalConfig): number => verified.get(config)?.entries.size ?? 0;

/**
 * Decodes the session cookie; null when absent. Throws JWTSessionError when it cannot be trusted. Synchronous with
 * the built-in codec (a session check is mostly this call); a promise only for an app's own `jwt.decode`.
 */
function decodeToken(req: AuthRequest): JWT | null | Promise<JWT | null> {
  const { config, cookieOptions } = req;
  const raw = readChunked(cookieOptions.sessionToken.name, req.cookies);
  if (!raw) return null;
  const params = { token: raw, secret: config.secrets, salt: cookieOptions.sessionToken.name };
  if (config.jwt.decode) return decodeWith(config.jwt.decode, params);
  try {
    return decodeSyncCached(params, verifiedTokensOf(config));
  } catch (err) {
    throw asSessionError(err);
  }
}

async function decodeWith(decode: NonNullable<InternalConfig['jwt']['decode']>, params: JWTDecodeParams): Promise<JWT | null> {
  try {
    const token = await decode(params);
    if (!token) throw new JWTSessionError('The session token could not be decoded.');
    return token;
  } catch (err) {
    throw asSessionError(err);
  }
}

const asSessionError = (err: unknown): JWTSessionError => (err instanceof JWTSessionError ? err : new JWTSessionError(err instanceof Error ? err : String(err)));

// The token last written in each request: a second rewrite in the same request (a factor check recorded, then the
// other sessions ended) builds on it rather than on the cookie the request came with, so neither is lost.
const written = new WeakMap<AuthRequest, JWT>();

async function writeToken(req: AuthRequest, token: JWT): Promise<JWT> {
  written.set(req, token);
  const value = await encodeToken(req, token);
  const { name, options } = req.cookieOptions.sessionToken;
  const expires = new Date(Date.now() + req.config.jwt.maxAge * 1000);
  for (const c of chunkCookie(name, value, { ...options, expires }, req.cookies)) setCookie(req, c);
  // The claims the cookie now carries, for `expires` in the session.
  return { ...token, iat: nowSeconds(), exp: nowSeconds() + req.config.jwt.maxAge };
}

/** Clears the session cookie (every chunk). */
export function clearSession(req: AuthRequest): void {
  const { name, options } = req.cookieOptions.sessionToken;
  for (const c of clearChunked(name, options, req.cookies)) setCookie(req, c);
}

// The last `exp` turned into its ISO date: a browser checks the same token many times, and formatting a Date
// costs more than the rest of building the session.
let lastExpiry = { exp: NaN, iso: '' };

function isoExpiry(exp: number): string {
  if (exp !== lastExpiry.exp) lastExpiry = { exp, iso: new Date(exp * 1000).toISOString() };
  return lastExpiry.iso;
}

function toSession(req: AuthRequest, token: JWT): Awaitable<Session> {
  const expires = isoExpiry(token.exp ?? nowSeconds() + req.config.jwt.maxAge);
  const base: Session = { user: { name: token.name, email: token.email, image: token.picture }, expires };
  // A refused provider-token refresh (tokens in the cookie) shows as Auth.js's `session.error`.
  if (providerTokensOf(token)?.error === 'RefreshTokenError') base.error = 'RefreshTokenError';
  return req.config.callbacks.session({ session: base, token: withoutProviderTokens(token) }) as Awaitable<Session>;
}

/** Decodes, or clears the cookies and logs when the cookie is bad (synchronous as {@link decodeToken} is). */
function decodeOrClear(req: AuthRequest): JWT | null | Promise<JWT | null> {
  try {
    const token = decodeToken(req);
    return token instanceof Promise ? token.catch((err: unknown) => refuse(req, err)) : token;
  } catch (err) {
    return refuse(req, err);
  }
}

function refuse(req: AuthRequest, err: unknown): null {
  req.config.logger.error(err as Error);
  clearSession(req);
  return null;
}

// The Auth.js migration code loads only for apps that ask for it (`migrateFrom: 'authjs'`).
const loadMigration = lazy(() => import('./authjs-migration.js'));

/**
 * The request's live token: authchart's cookie, or under `migrateFrom: 'authjs'` an Auth.js session's when
 * authchart's is absent (written at once as authchart's cookie: the old one is already being cleared), and not
 * ended elsewhere ("sessions valid after", checked on every read where such times are kept). A bad or ended cookie
 * is cleared. Throws when the "sessions valid after" store cannot answer: a session that may have been ended is
 * never taken as live. The token a request wrote last (a factor check recorded, then the others ended) is the
 * live one for the rest of that request.
 */
function open(req: AuthRequest): JWT | null | Promise<JWT | null> {
  const already = written.get(req);
  if (already) return already;
  const decoded = decodeOrClear(req);
  // The common case (the built-in codec, no migration, no "sessions valid after" store) settles here and now: a
  // session check then takes no turn of the event loop to get its token.
  if (decoded instanceof Promise || (!decoded && req.config.migrateFrom === 'authjs') || (decoded && keepsValidAfter(req))) return openFurther(req, decoded);
  return decoded;
}

async function openFurther(req: AuthRequest, decoded: JWT | null | Promise<JWT | null>): Promise<JWT | null> {
  let token = await decoded;
  let migrated = false;
  if (!token && req.config.migrateFrom === 'authjs') {
    token = await (await loadMigration()).readAuthjsJwt(req);
    migrated = token !== null;
  }
  if (!token) return null;
  if (keepsValidAfter(req) && (await endedElsewhere(req, token))) {
    clearSession(req);
    return null;
  }
  // An Auth.js token becomes authchart's: the claims authchart relies on are authchart's from here on.
  return migrated ? writeToken(req, { ...token, ...reservedClaims(token) }) : token;
}

/** {@link open}, or null when the "sessions valid after" store cannot answer (logged; the cookie is kept for when it can). */
function openOrNull(req: AuthRequest): JWT | null | Promise<JWT | null> {
  try {
    const token = open(req);
    return token instanceof Promise ? token.catch((err: unknown) => logged(req, err)) : token;
  } catch (err) {
    return logged(req, err);
  }
}

function logged(req: AuthRequest, err: unknown): null {
  req.config.logger.error(err as Error);
  return null;
}

/** The request's live JWT, or null: what session control acts for (see {@link open}). */
export const liveToken = async (req: AuthRequest): Promise<JWT | null> => open(req);

/** Rewrites the session cookie with `token` (e.g. a session kept when the others ended). */
export async function rewriteToken(req: AuthRequest, token: JWT): Promise<void> {
  await writeToken(req, token);
}

/**
 * Rewrites the live session's provider tokens (getAccessToken's refresh, or its refusal), without calling the jwt
 * callback: the claim is authchart's alone. `token` is the live token the session gate opened in this request (not
 * opened again: the gate already applied expiry and "sessions valid after"); a token written since wins over it.
 */
export async function rewriteProviderTokens(req: AuthRequest, token: JWT, claim: ProviderTokensClaim): Promise<void> {
  await writeToken(req, { ...(written.get(req) ?? token), [PROVIDER_TOKENS_CLAIM]: claim });
}

/**
 * The session of an opened token. The common check (the built-in jwt callback, no refresh due, no session event, a
 * session callback that answers at once) is answered here and now, without a promise; anything else is
 * {@link readCalled}. Never throws.
 */
function readToken(req: AuthRequest, token: JWT | null): Session | null | Promise<Session | null> {
  if (!token) return null;
  const { callbacks, events, session } = req.config;
  if (callbacks.jwt !== defaultCallbacks.jwt || events.session || nowSeconds() - (token.iat ?? 0) >= session.updateAge) return readCalled(req, token);
  try {
    const made = toSession(req, token);
    // A session callback may hand back a promise or any thenable: it is awaited, its failure caught as below.
    return isThenable(made) ? Promise.resolve(made).catch((err: unknown) => unreadable(req, err)) : made;
  } catch (err) {
    return unreadable(req, err);
  }
}

const isThenable = (value: unknown): value is PromiseLike<unknown> => typeof (value as { then?: unknown } | null)?.then === 'function';

/** A failing callback must not sign anyone in, nor crash the request: logged, no session. */
function unreadable(req: AuthRequest, err: unknown): null {
  req.config.logger.error(new JWTSessionError(err instanceof Error ? err : String(err)));
  return null;
}

/** {@link readToken} with the callbacks, the refresh and the session event. */
async function readCalled(req: AuthRequest, token: JWT): Promise<Session | null> {
  try {
    const { callbacks, events } = req.config;
    // The built-in jwt callback hands the token back untouched: only a user's callback is called and compared.
    const custom = callbacks.jwt !== defaultCallbacks.jwt;
    // The callback sees the token without the provider tokens; they are put back as they were (withReserved).
    const before = custom ? JSON.stringify(withReserved(withoutProviderTokens({ ...token }), token)) : undefined;
    const returned = custom ? await callbacks.jwt({ token: withoutProviderTokens({ ...token }) }) : token;
    if (returned === null) {
      clearSession(req);
      return null;
    }
    const next = custom ? withReserved(returned, token) : returned;
    const changed = before !== undefined && JSON.stringify(next) !== before;
    const due = nowSeconds() - (token.iat ?? 0) >= req.config.session.updateAge;
    const current = changed || due ? await writeToken(req, next) : next;
    const session = await toSession(req, current);
    if (events.session) await dispatchEvent(events, req.config.logger, 'session', { session, token: withoutProviderTokens(current) });
    return session;
  } catch (err) {
    return unreadable(req, err);
  }
}

export const jwtStrategy: SessionStrategyImpl = {
  async open(req) {
    const token = await open(req);
    if (!token || typeof token.sub !== 'string') return null;
    const organizationId = token[ORGANIZATION_CLAIM];
    return { userId: token.sub, verification: tokenVerification(token), token, ...(typeof organizationId === 'string' ? { organizationId } : {}) };
  },

  read(req) {
    const opened = openOrNull(req);
    return opened instanceof Promise ? opened.then((token) => readToken(req, token)) : readToken(req, opened);
  },

  async issue(req, { user, account, profile, isNewUser, verification }: SignInResult) {
    // The jwt callback sees the claims authchart relies on, and cannot change them: whatever it returns, they are
    // written as authchart set them (a callback that builds a token of its own keeps them too).
    const claims = { ...(user.id === undefined ? {} : { sub: String(user.id) }), ...(verification ? verificationClaims(verification) : {}), session_iat: Date.now() / 1000 };
    const initial: JWT = { name: user.name ?? null, email: user.email ?? null, picture: user.image ?? null, ...claims };
    // Opt-in: the provider's tokens ride in the sealed token, as a reserved claim the callback does not see.
    const tokens = req.config.session.providerTokens === 'in-session-cookie' ? providerTokensFromAccount(account) : undefined;
    if (tokens) initial[PROVIDER_TOKENS_CLAIM] = tokens;
    const token = await req.config.callbacks.jwt({ token: withoutProviderTokens({ ...initial }), user, account, profile, isNewUser, trigger: isNewUser ? 'signUp' : 'signIn' });
    if (!token) throw new AccessDenied('The jwt callback returned no token at sign-in.');
    await writeToken(req, withReserved(token, initial));
  },

  async update(req, data) {
    const token = await openOrNull(req);
    if (!token) return null;
    // What the client sent may reach the jwt callback (a common pattern merges it into the token); the claims
    // authchart relies on stay as authchart wrote them whatever comes back.
    const returned = await req.config.callbacks.jwt({ token: withoutProviderTokens({ ...token }), trigger: 'update', session: data });
    if (returned === null) {
      clearSession(req);
      return null;
    }
    const current = await writeToken(req, withReserved(returned, token));
    const session = await toSession(req, current);
    await dispatchEvent(req.config.events, req.config.logger, 'session', { session, token: withoutProviderTokens(current) });
    return session;
  },

  async signOut(req) {
    let token: JWT | null = null;
    try {
      token = await decodeToken(req);
    } catch {
      // A broken cookie is still cleared.
    }
    if (typeof token?.sub === 'string') await noteActivity(req, { kind: 'session.ended', userId: token.sub, reason: 'signOut' });
    clearSession(req);
    if (req.config.migrateFrom === 'authjs') (await loadMigration()).clearAuthjsCookies(req);
    await dispatchEvent(req.config.events, req.config.logger, 'signOut', { token: withoutProviderTokens(token) });
  },

  async reverify(req, method) {
    const token = await open(req);
    if (!token) return false;
    await writeToken(req, { ...token, ...verificationClaims({ authTime: new Date(), amr: withMethod(tokenVerification(token)?.amr, method) }) });
    return true;
  },

  async setOrganization(req, organizationId) {
    const token = await open(req);
    if (!token) return false;
    const next: JWT = { ...token };
    if (organizationId === null) delete next[ORGANIZATION_CLAIM];
    else next[ORGANIZATION_CLAIM] = organizationId;
    await writeToken(req, next);
    return true;
  },
};
