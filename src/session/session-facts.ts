// The session's verification facts (`auth_time`, `amr`) for database sessions on adapters that cannot store them
// (every Auth.js adapter): a sealed companion cookie beside the session token, bound to that session's stored token.
import { createHash } from 'node:crypto';
import type { Adapter } from '../core/adapter.js';
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import { clearCookie, setCookie } from '../core/request-context.js';
import type { SessionVerification } from '../core/types.js';
import { decodeSync, encodeSync } from './jwt.js';
import { knownMethods } from './verification.js';

/**
 * Whether an adapter keeps authchart's session facts itself: it says so with `sessionFacts: true` (PostgresAdapter
 * does), and then `createSession`/`updateSession` receive `authTime` and `amr` and `getSessionAndUser` returns them.
 * Any other adapter receives only the keys of the Auth.js contract.
 *
 * @example
 * if (keepsSessionFacts(config.adapter)) await adapter.createSession({ ...row, authTime, amr })
 */
export function keepsSessionFacts(adapter: Pick<Adapter, 'sessionFacts'> | undefined | null): boolean {
  return adapter?.sessionFacts === true;
}

/** The companion cookie's name: the session cookie's, suffixed (its own key, since the name is the salt). */
export function factsCookieName(req: AuthRequest): string {
  return `${req.cookieOptions.sessionToken.name}-facts`;
}

// The stored token is a hash already; hashing it again keeps even that out of the cookie's plaintext.
function binding(storedToken: string): string {
  return createHash('sha256').update(`authchart session facts\0${storedToken}`).digest('base64url');
}

/**
 * Seals `verification` for the session whose stored token is `storedToken`, expiring with it at `expires`.
 *
 * @example
 * writeSessionFacts(req, stored(token), expires, { authTime: new Date(), amr: ['email'] })
 */
export function writeSessionFacts(req: AuthRequest, storedToken: string, expires: Date, verification: SessionVerification): void {
  const name = factsCookieName(req);
  const maxAge = Math.max(1, Math.floor((expires.getTime() - Date.now()) / 1000));
  const value = encodeSync({
    token: { sid: binding(storedToken), auth_time: Math.floor(verification.authTime.getTime() / 1000), amr: [...verification.amr] },
    secret: req.config.secrets,
    salt: name,
    maxAge,
  });
  setCookie(req, { name, value, options: { ...req.cookieOptions.sessionToken.options, expires } });
}

/**
 * The facts the request's companion cookie holds for the session `storedToken`, or null: no cookie, a cookie that
 * does not open (tampered, another secret, expired) or one sealed for another session.
 */
export function readSessionFacts(req: AuthRequest, storedToken: string): SessionVerification | null {
  const raw = req.cookies[factsCookieName(req)];
  if (!raw) return null;
  let claims: Record<string, unknown> | null;
  try {
    claims = decodeSync<Record<string, unknown>>({ token: raw, secret: req.config.secrets, salt: factsCookieName(req) });
  } catch {
    return null;
  }
  if (!claims || claims.sid !== binding(storedToken)) return null;
  const authTime = claims.auth_time;
  if (typeof authTime !== 'number' || !Number.isFinite(authTime)) return null;
  return { authTime: new Date(authTime * 1000), amr: knownMethods(claims.amr) };
}

/** Removes the companion cookie (sign-out, a session that is gone). */
export function clearSessionFacts(req: AuthRequest): void {
  if (req.cookies[factsCookieName(req)] === undefined) return;
  clearCookie(req, factsCookieName(req), req.cookieOptions.sessionToken.options);
}
