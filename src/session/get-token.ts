// getToken: the decoded JWT of a request's session cookie (or `Authorization: Bearer`), with Auth.js's semantics,
// for code that runs outside authchart's handlers (an API route, a proxy, another service sharing the secret).
import { parseCookieHeader } from '../core/cookie-syntax.js';
import { MissingSecret } from '../core/errors.js';
import type { JWT } from '../core/types.js';
import { decodeAuthjsToken } from './authjs-token.js';
import { readChunked } from './chunks.js';
import { decodeSync } from './jwt.js';
import { withoutProviderTokens } from './provider-token-claim.js';
import { beganBefore } from './valid-after.js';
import type { SessionsValidAfterStore } from '../core/options.js';
import type { Adapter } from '../core/adapter.js';

/** Options of {@link getToken}. */
export interface GetTokenParams {
  /** The app's secret (or secrets, newest first); required unless `raw`. */
  secret?: string | string[];
  /** Read this cookie (chunks included). Default: authchart's session cookie, then Auth.js's (see {@link getToken}). */
  cookieName?: string;
  /** Key-derivation salt; defaults to the cookie's name, as the session cookie is sealed with. */
  salt?: string;
  /** Use the `__Secure-` cookie names (an HTTPS deployment). Default false, as in Auth.js. */
  secureCookie?: boolean;
  /** Return the encrypted token string as found, without decrypting it. */
  raw?: boolean;
  /**
   * Where the users' "sessions valid after" times are kept (the app's `session.validAfter` store, or its adapter):
   * a token whose session began before its user's time (ended by "sign out everywhere") is null, as the session
   * gate reads it. Without it, getToken cannot know that a token was ended. A store that cannot answer throws.
   */
  validAfter?: Pick<SessionsValidAfterStore, 'get'> | Pick<Adapter, 'getSessionsValidAfter'>;
}

/** Anything with the request's headers: a fetch `Request`, or `{ headers }` as Node and older frameworks give them. */
export type TokenRequest = Request | { headers: Headers | Record<string, string | string[] | undefined> };

function headersOf(req: TokenRequest): Headers {
  if (req.headers instanceof Headers) return req.headers;
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  return headers;
}

/**
 * The session JWT a request carries, decoded, or null (no token, or one that does not open: a tampered, expired or
 * foreign token is null, never an exception). As in Auth.js: the cookie (chunked or not) first, else an
 * `Authorization: Bearer <url-encoded token>` header; `raw: true` returns the token string undecoded; without
 * `secret` (and not `raw`) it throws MissingSecret.
 *
 * Without `cookieName` it reads authchart's session cookie (`authchart.session-token`, `__Secure-authchart.session-token`
 * with `secureCookie`), and, for an app moving from Auth.js, Auth.js's (`authjs.session-token`) when authchart's is
 * absent. A token opens with authchart's key derivation or with Auth.js's, so both kinds of session read the same.
 * Also callable as Auth.js's `getToken({ req, secret })`.
 *
 * @example
 * const token = await getToken(request, { secret: process.env.AUTH_SECRET, secureCookie: true })
 * if (!token) return new Response('Unauthorized', { status: 401 })
 */
export async function getToken(request: TokenRequest, params: GetTokenParams & { raw: true }): Promise<string | null>;
export async function getToken(request: TokenRequest, params?: GetTokenParams): Promise<JWT | null>;
export async function getToken(params: GetTokenParams & { req: TokenRequest; raw: true }): Promise<string | null>;
export async function getToken(params: GetTokenParams & { req: TokenRequest }): Promise<JWT | null>;
export async function getToken(request: TokenRequest | (GetTokenParams & { req: TokenRequest }), params?: GetTokenParams): Promise<JWT | string | null> {
  const [req, options] = params === undefined && 'req' in request ? [request.req, request] : [request as TokenRequest, params ?? {}];
  const headers = headersOf(req);
  const cookies = parseCookieHeader(headers.get('cookie') ?? '');
  const prefix = options.secureCookie ? '__Secure-' : '';
  const names = options.cookieName ? [options.cookieName] : [`${prefix}authchart.session-token`, `${prefix}authjs.session-token`];
  let token: string | undefined;
  let name = names[0]!;
  for (const candidate of names) {
    token = readChunked(candidate, cookies);
    if (token) {
      name = candidate;
      break;
    }
  }
  const authorization = headers.get('authorization');
  if (!token && authorization?.split(' ')[0] === 'Bearer') {
    try {
      token = decodeURIComponent(authorization.split(' ')[1] ?? '');
    } catch {
      return null; // malformed percent-encoding: no token at all
    }
  }
  if (!token) return null;
  if (options.raw) return token;
  const secrets = options.secret === undefined ? [] : Array.isArray(options.secret) ? options.secret : [options.secret];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) throw new MissingSecret('getToken needs `secret` (unless `raw: true`).');
  const salt = options.salt ?? name;
  const decoded = await decodeEither(token, secrets, salt);
  if (decoded && options.validAfter && (await endedBefore(options.validAfter, decoded))) return null;
  // Provider tokens kept in the session token are getAccessToken's to hand out, never part of the decoded claims.
  return withoutProviderTokens(decoded);
}

/** authchart's token, else Auth.js's under the same salt, else null. */
async function decodeEither(token: string, secrets: string[], salt: string): Promise<JWT | null> {
  try {
    return decodeSync<JWT>({ token, secret: secrets, salt });
  } catch {
    // Not one of authchart's: perhaps Auth.js's, under the same salt.
  }
  try {
    return await decodeAuthjsToken(token, secrets, salt);
  } catch {
    return null;
  }
}

/** Whether the token's session began before its user's "sessions valid after" time. */
async function endedBefore(keeper: NonNullable<GetTokenParams['validAfter']>, token: JWT): Promise<boolean> {
  if (typeof token.sub !== 'string') return false;
  const read = 'get' in keeper ? keeper.get.bind(keeper) : keeper.getSessionsValidAfter?.bind(keeper);
  if (!read) return false;
  return beganBefore(token, await read(token.sub));
}
