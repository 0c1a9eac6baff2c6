// JWT sessions: the encrypted token lives in the (chunked) session cookie.
// The cookie is re-encrypted only when the jwt callback changed the token or `updateAge` has passed.
import { defaultCallbacks } from '../core/callbacks.js';
import { AccessDenied, JWTSessionError } from '../core/errors.js';
import type { JWT, Session } from '../core/types.js';
import { dispatchEvent } from '../core/events.js';
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import { setCookie } from '../core/request-context.js';
import { chunkCookie, clearChunked, readChunked } from './chunks.js';
import { decodeSync, encodeSync } from './jwt.js';
import type { SessionStrategyImpl, SignInResult } from './types.js';
import { tokenVerification, verificationClaims, withMethod } from './verification.js';
import { endedElsewhere } from './valid-after.js';
import { lazy } from '../core/lazy.js';

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

async function encodeToken(req: AuthRequest, token: JWT): Promise<string> {
  const { config, cookieOptions } = req;
  const params = { token, secret: config.secrets, salt: cookieOptions.sessionToken.name, maxAge: config.jwt.maxAge };
  return config.jwt.encode ? await config.jwt.encode(params) : encodeSync(params);
}

/** Decodes the session cookie; null when absent. Throws JWTSessionError when it cannot be trusted. */
async function decodeToken(req: AuthRequest): Promise<JWT | null> {
  const { config, cookieOptions } = req;
  const raw = readChunked(cookieOptions.sessionToken.name, req.cookies);
  if (!raw) return null;
  const params = { token: raw, secret: config.secrets, salt: cookieOptions.sessionToken.name };
  try {
    const token = config.jwt.decode ? await config.jwt.decode(params) : decodeSync(params);
    if (!token) throw new JWTSessionError('The session token could not be decoded.');
    return token;
  } catch (err) {
    throw err instanceof JWTSessionError ? err : new JWTSessionError(err instanceof Error ? err : String(err));
  }
}

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

async function toSession(req: AuthRequest, token: JWT): Promise<Session> {
  const expires = isoExpiry(token.exp ?? nowSeconds() + req.config.jwt.maxAge);
  const base: Session = { user: { name: token.name, email: token.email, image: token.picture }, expires };
  return (await req.config.callbacks.session({ session: base, token })) as Session;
}

/** Decodes, or clears the cookies and logs when the cookie is bad. */
async function decodeOrClear(req: AuthRequest): Promise<JWT | null> {
  try {
    return await decodeToken(req);
  } catch (err) {
    req.config.logger.error(err as Error);
    clearSession(req);
    return null;
  }
}

// The Auth.js migration code loads only for apps that ask for it (`migrateFrom: 'authjs'`).
const loadMigration = lazy(() => import('./authjs-migration.js'));

/**
 * authchart's token, or under `migrateFrom: 'authjs'` an Auth.js session's when authchart's is absent (`migrated`:
 * the caller must write it as authchart's cookie now; the old cookie is already being cleared).
 */
async function tokenOrMigrated(req: AuthRequest): Promise<{ token: JWT | null; migrated: boolean }> {
  const token = await decodeOrClear(req);
  if (token || req.config.migrateFrom !== 'authjs') return { token, migrated: false };
  const old = await (await loadMigration()).readAuthjsJwt(req);
  return { token: old, migrated: old !== null };
}

/**
 * The request's live JWT (not ended elsewhere), or null (a bad or ended cookie is cleared): what session control
 * acts for.
 */
export async function liveToken(req: AuthRequest): Promise<JWT | null> {
  const token = written.get(req) ?? (await decodeOrClear(req));
  if (token && (await endedElsewhere(req, token))) {
    clearSession(req);
    return null;
  }
  return token;
}

/** Rewrites the session cookie with `token` (e.g. a session kept when the others ended). */
export async function rewriteToken(req: AuthRequest, token: JWT): Promise<void> {
  await writeToken(req, token);
}

export const jwtStrategy: SessionStrategyImpl = {
  async read(req) {
    const { token, migrated } = await tokenOrMigrated(req);
    if (!token) return null;
    try {
      const { callbacks, events } = req.config;
      // The built-in jwt callback hands the token back untouched: only a user's callback is called and compared.
      const custom = callbacks.jwt !== defaultCallbacks.jwt;
      const before = custom ? JSON.stringify(token) : undefined;
      const next = custom ? await callbacks.jwt({ token: { ...token } }) : token;
      if (next === null) {
        clearSession(req);
        return null;
      }
      const changed = before !== undefined && JSON.stringify(next) !== before;
      const due = migrated || nowSeconds() - (token.iat ?? 0) >= req.config.session.updateAge;
      // Every rewrite (a refresh) first asks whether the user ended this session elsewhere ("sign out everywhere").
      if ((changed || due) && (await endedElsewhere(req, token))) {
        clearSession(req);
        return null;
      }
      const current = changed || due ? await writeToken(req, next) : next;
      const session = await toSession(req, current);
      if (events.session) await dispatchEvent(events, req.config.logger, 'session', { session, token: current });
      return session;
    } catch (err) {
      // A failing callback must not sign anyone in, nor crash the request.
      req.config.logger.error(new JWTSessionError(err instanceof Error ? err : String(err)));
      return null;
    }
  },

  async issue(req, { user, account, profile, isNewUser, verification }: SignInResult) {
    // auth_time and amr are in the token the jwt callback sees; a callback that builds a token of its own keeps them.
    const claims = { ...(verification ? verificationClaims(verification) : {}), session_iat: Date.now() / 1000 };
    const initial: JWT = { name: user.name ?? null, email: user.email ?? null, picture: user.image ?? null, sub: user.id === undefined ? undefined : String(user.id), ...claims };
    const token = await req.config.callbacks.jwt({ token: initial, user, account, profile, isNewUser, trigger: isNewUser ? 'signUp' : 'signIn' });
    if (!token) throw new AccessDenied('The jwt callback returned no token at sign-in.');
    await writeToken(req, { ...claims, ...token });
  },

  async update(req, data) {
    const { token } = await tokenOrMigrated(req);
    if (!token) return null;
    if (await endedElsewhere(req, token)) {
      clearSession(req);
      return null;
    }
    const next = await req.config.callbacks.jwt({ token: { ...token }, trigger: 'update', session: data });
    if (next === null) {
      clearSession(req);
      return null;
    }
    const current = await writeToken(req, next);
    const session = await toSession(req, current);
    await dispatchEvent(req.config.events, req.config.logger, 'session', { session, token: current });
    return session;
  },

  async signOut(req) {
    let token: JWT | null = null;
    try {
      token = await decodeToken(req);
    } catch {
      // A broken cookie is still cleared.
    }
    clearSession(req);
    if (req.config.migrateFrom === 'authjs') (await loadMigration()).clearAuthjsCookies(req);
    await dispatchEvent(req.config.events, req.config.logger, 'signOut', { token });
  },

  async verification(req) {
    try {
      const token = await decodeToken(req);
      return typeof token?.sub === 'string' ? { userId: token.sub, verification: tokenVerification(token) } : null;
    } catch {
      return null;
    }
  },

  async reverify(req, method) {
    let token: JWT | null;
    try {
      token = written.get(req) ?? (await decodeToken(req));
    } catch {
      return false;
    }
    if (!token) return false;
    await writeToken(req, { ...token, ...verificationClaims({ authTime: new Date(), amr: withMethod(tokenVerification(token)?.amr, method) }) });
    return true;
  },

  async currentUserId(req) {
    try {
      const token = (await decodeToken(req)) ?? (req.config.migrateFrom === 'authjs' ? await (await loadMigration()).readAuthjsJwt(req, { clear: false }) : null);
      return typeof token?.sub === 'string' ? token.sub : undefined;
    } catch {
      return undefined;
    }
  },
};
