// The JWT session codec: claims sealed as a dir/A256CBC-HS512 JWE under a key derived from the secret and cookie name.
// Auth.js-shaped (`encode`/`decode` with {token, secret, salt, maxAge}) so `config.jwt` may replace it.

import { randomUUID } from 'node:crypto';
import { JWTSessionError, MissingSecret } from '../core/errors.js';
import type { JWT, JWTDecodeParams, JWTEncodeParams } from '../core/types.js';

export type { JWTDecodeParams, JWTEncodeParams } from '../core/types.js';
import { decryptJwe, encryptJwe, JweError, type JweHeader } from './jwe.js';
import { deriveSessionKey } from './keys.js';

/** Seconds a session token lives unless `maxAge` says otherwise: 30 days. */
export const DEFAULT_MAX_AGE = 30 * 24 * 60 * 60;

/** Seconds of clock skew forgiven when checking `exp` and `nbf`. */
export const CLOCK_TOLERANCE = 15;

/** Why a token was refused, in `JWTSessionError.cause.reason`. */
export type JWTSessionFailure = 'malformed' | 'unknown-key' | 'tampered' | 'expired' | 'invalid-claims';

function fail(reason: JWTSessionFailure, message: string, evidence: Record<string, unknown> = {}): JWTSessionError {
  return new JWTSessionError(message, { reason, ...evidence });
}

function secretList(secret: string | string[]): string[] {
  const secrets = Array.isArray(secret) ? secret : [secret];
  // A missing secret is a configuration error, not a bad token: it must not be swallowed like one.
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
    throw new MissingSecret('the JWT codec needs at least one non-empty secret');
  }
  return secrets;
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/**
 * Seals `token` as a JWE session token, synchronously. Claims: the payload plus `iat`, `exp` = `iat + maxAge`, a
 * fresh `jti`. The header carries the `kid` of the first secret's key.
 *
 * @example
 * const jwe = encodeSync({ token: { sub: 'u1', email: 'a@b.c' }, secret: [current, previous], salt: 'authchart.session-token' })
 */
export function encodeSync<Payload extends object = JWT>(params: JWTEncodeParams<Payload>): string {
  const { key, kid } = deriveSessionKey(secretList(params.secret)[0], params.salt);
  const maxAge = params.maxAge ?? DEFAULT_MAX_AGE;
  if (!Number.isFinite(maxAge)) throw fail('invalid-claims', 'maxAge must be a finite number of seconds', { actual: maxAge });
  const iat = nowSeconds();
  const claims = { ...params.token, iat, exp: iat + Math.floor(maxAge), jti: randomUUID() };
  let json: string;
  try {
    json = JSON.stringify(claims);
  } catch (err) {
    throw fail('invalid-claims', 'the token is not JSON-serializable', { err: err as Error });
  }
  return encryptJwe(Buffer.from(json, 'utf8'), key, { kid });
}

/**
 * Opens a session token, synchronously: `null` for an empty token, the claims when valid, else a
 * `JWTSessionError` whose `cause.reason` says why. Any listed secret decrypts (rotation).
 *
 * @example
 * const token = decodeSync({ token: cookies['authchart.session-token'], secret, salt: 'authchart.session-token' })
 */
export function decodeSync<Payload extends object = JWT>(params: JWTDecodeParams): Payload | null {
  if (!params.token) return null;
  const secrets = secretList(params.secret);
  return checkClaims(plaintextOf(openToken(params.token, secrets, params.salt))) as Payload;
}

/**
 * Verified session tokens of one configuration: the exact token string → its claims. What is kept has passed
 * decryption and authentication under that configuration's secrets and salt; what changes with time is never
 * kept (see {@link decodeSyncCached}). The claims kept are never handed out: each hit gets a copy.
 * @internal
 */
export interface VerifiedTokens {
  /** Most entries kept; the oldest goes first. */
  readonly limit: number;
  readonly entries: Map<string, JWT>;
}

/**
 * {@link decodeSync} that remembers the tokens it verified in `cache`, which must belong to one (secret, salt):
 * a repeat of the exact token string skips base64url, HMAC, AES and the claims' JSON, and gets its own deep copy
 * of the claims (callers may change theirs); `exp`/`nbf` are checked on every hit, so an expired token is refused
 * (and forgotten) as on a miss. Revocation is the caller's to apply after, as for any decoded token.
 * @internal
 */
export function decodeSyncCached(params: JWTDecodeParams, cache: VerifiedTokens): JWT | null {
  if (!params.token) return null;
  const { entries, limit } = cache;
  // Off (0): not even a lookup, which would hash the whole token.
  const hit = limit > 0 ? entries.get(params.token) : undefined;
  if (hit !== undefined) {
    try {
      checkTimes(hit);
    } catch (err) {
      entries.delete(params.token);
      throw err;
    }
    return copyJson(hit);
  }
  const claims = checkClaims(plaintextOf(openToken(params.token, secretList(params.secret), params.salt)));
  if (limit > 0) {
    if (entries.size >= limit) entries.delete(entries.keys().next().value as string);
    entries.set(ownCopy(params.token), copyJson(claims));
  }
  return claims;
}

// The token as a string of its own. A cookie's value is cut out of the request's Cookie header, and V8 keeps a
// substring as a view on its parent: kept as a key, it would keep the whole header (every other cookie) alive.
// A token that opened is base64url and dots, so UTF-8 carries it over exactly.
const ownCopy = (token: string): string => Buffer.from(token, 'utf8').toString('utf8');

// A deep copy of parsed JSON (objects, arrays, primitives), a fraction of what parsing the text again costs. Spread
// defines properties rather than assigning them, so a `__proto__` key stays a plain key, as JSON.parse made it.
function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key of Object.keys(copy)) {
    const v = copy[key];
    if (typeof v === 'object' && v !== null) Object.defineProperty(copy, key, { value: copyJson(v), writable: true, enumerable: true, configurable: true });
  }
  return copy as T;
}

function plaintextOf(plaintext: Uint8Array): string {
  return Buffer.from(plaintext.buffer, plaintext.byteOffset, plaintext.byteLength).toString('utf8');
}

function openToken(token: string, secrets: string[], salt: string): Uint8Array {
  let keyless = false;
  let kid: string | undefined;
  const byKid = (header: JweHeader): Uint8Array | undefined => {
    kid = header.kid;
    if (kid === undefined) {
      keyless = true;
      return deriveSessionKey(secrets[0], salt).key;
    }
    for (const secret of secrets) {
      const derived = deriveSessionKey(secret, salt);
      if (derived.kid === kid) return derived.key;
    }
    return undefined;
  };
  try {
    return decryptJwe(token, byKid).plaintext;
  } catch (err) {
    // Tokens without `kid` (other encoders, older versions) carry no hint of their key: try each secret in turn.
    if (keyless && err instanceof JweError && err.code === 'ERR_JWE_DECRYPTION_FAILED') {
      for (const secret of secrets.slice(1)) {
        try {
          return decryptJwe(token, () => deriveSessionKey(secret, salt).key).plaintext;
        } catch {
          // the next secret may open it
        }
      }
    }
    throw toSessionError(err, kid);
  }
}

function toSessionError(err: unknown, kid: string | undefined): JWTSessionError {
  if (!(err instanceof JweError)) return fail('malformed', 'the session token could not be read', { err: err as Error });
  switch (err.code) {
    case 'ERR_JWE_KEY':
      return fail('unknown-key', 'no configured secret matches the session token', { err, actual: kid });
    case 'ERR_JWE_DECRYPTION_FAILED':
      return fail('tampered', 'the session token failed authentication', { err });
    default:
      return fail('malformed', `the session token is malformed: ${err.message}`, { err });
  }
}

function checkClaims(json: string): JWT {
  const claims = parseClaims(json);
  checkTimes(claims);
  return claims;
}

function parseClaims(json: string): JWT {
  let claims: unknown;
  try {
    claims = JSON.parse(json);
  } catch (err) {
    throw fail('invalid-claims', 'the session token does not hold JSON', { err: err as Error });
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
    throw fail('invalid-claims', 'the session token does not hold a claims object');
  }
  const { exp, iat, nbf } = claims as Record<string, unknown>;
  // A session without `exp` would never end; our encoder always sets it, so its absence means a foreign token.
  if (typeof exp !== 'number' || !Number.isFinite(exp)) throw fail('invalid-claims', '"exp" must be a number', { actual: exp });
  if (iat !== undefined && (typeof iat !== 'number' || !Number.isFinite(iat))) throw fail('invalid-claims', '"iat" must be a number', { actual: iat });
  if (nbf !== undefined && (typeof nbf !== 'number' || !Number.isFinite(nbf))) throw fail('invalid-claims', '"nbf" must be a number', { actual: nbf });
  return claims as JWT;
}

/** The checks that change with time, on claims {@link parseClaims} accepted: run again on every cache hit. */
function checkTimes(claims: JWT): void {
  const { exp, nbf } = claims as { exp: number; nbf?: number };
  const now = nowSeconds();
  if (exp <= now - CLOCK_TOLERANCE) throw fail('expired', 'the session token has expired', { expected: `exp > ${now - CLOCK_TOLERANCE}`, actual: exp });
  if (typeof nbf === 'number' && nbf > now + CLOCK_TOLERANCE) throw fail('invalid-claims', 'the session token is not valid yet', { expected: `nbf <= ${now + CLOCK_TOLERANCE}`, actual: nbf });
}

/**
 * Async form of {@link encodeSync}, the shape `config.jwt.encode` overrides.
 *
 * @example
 * const jwe = await encode({ token, secret: process.env.AUTH_SECRET!, salt: cookieName, maxAge: 3600 })
 */
export async function encode<Payload extends object = JWT>(params: JWTEncodeParams<Payload>): Promise<string> {
  return encodeSync(params);
}

/**
 * Async form of {@link decodeSync}, the shape `config.jwt.decode` overrides. Rejects with `JWTSessionError`.
 *
 * @example
 * const token = await decode({ token: jwe, secret: process.env.AUTH_SECRET!, salt: cookieName })
 */
export async function decode<Payload extends object = JWT>(params: JWTDecodeParams): Promise<Payload | null> {
  return decodeSync<Payload>(params);
}
