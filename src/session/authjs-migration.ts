// `migrateFrom: 'authjs'`: a browser that still holds Auth.js's session cookie (and not authchart's) keeps its
// session. The strategies read the old cookie, re-issue the session as authchart's own cookie on that same request,
// and clear the old one, so each user moves over on their next visit and nobody is signed out.
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import { setCookie } from '../core/request-context.js';
import type { JWT } from '../core/types.js';
import { AUTHJS_SESSION_COOKIES, decodeAuthjsToken } from './authjs-token.js';
import { clearChunked, readChunked } from './chunks.js';

/** An Auth.js session cookie found on a request: its name (also the salt of its key) and its value, chunks joined. */
export interface AuthjsSessionCookie {
  name: string;
  value: string;
}

/** The first Auth.js session cookie the request carries (v5 before v4, `__Secure-` first), chunked or not. */
export function authjsSessionCookie(req: AuthRequest): AuthjsSessionCookie | undefined {
  for (const name of AUTHJS_SESSION_COOKIES) {
    const value = readChunked(name, req.cookies);
    if (value) return { name, value };
  }
  return undefined;
}

/** Clears every Auth.js session cookie (and chunk) the request carries, with the attributes Auth.js set them with. */
export function clearAuthjsCookies(req: AuthRequest): void {
  for (const name of AUTHJS_SESSION_COOKIES) {
    const options = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: name.startsWith('__Secure-') };
    for (const c of clearChunked(name, options, req.cookies)) setCookie(req, c);
  }
}

/**
 * The claims of the request's Auth.js JWT session, or null when it has none. Unless `clear: false` (a look that
 * issues nothing), the old cookie is cleared either way once read: a good one because the caller re-issues it as authchart's, a bad one (forged, tampered, expired,
 * another secret) because it will never open; the refusal is logged as a JWTSessionError.
 *
 * @example
 * const token = authchartToken ?? (config.migrateFrom === 'authjs' ? await readAuthjsJwt(req) : null)
 */
export async function readAuthjsJwt(req: AuthRequest, options: { clear?: boolean } = {}): Promise<JWT | null> {
  const found = authjsSessionCookie(req);
  if (!found) return null;
  if (options.clear !== false) clearAuthjsCookies(req);
  try {
    return await decodeAuthjsToken(found.value, req.config.secrets, found.name);
  } catch (err) {
    req.config.logger.error(err as Error);
    return null;
  }
}
