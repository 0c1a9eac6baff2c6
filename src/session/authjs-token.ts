// Reads session tokens that Auth.js wrote, for apps moving to authchart (`migrateFrom: 'authjs'`, `getToken`).
// Auth.js (@auth/core, next-auth v5) seals a JWT as a dir JWE, key = HKDF-SHA256(secret, salt = cookie name,
// info "Auth.js Generated Encryption Key (<salt>)"), A256CBC-HS512 (64-byte key) or A256GCM (32), `kid` = the
// key's RFC 7638 thumbprint. next-auth v4 used HKDF(secret, salt "", info "NextAuth.js Generated Encryption Key"),
// A256GCM, no `kid`. Only reading: authchart never writes this format.
import { createHash, hkdfSync } from 'node:crypto';
import { JWTSessionError } from '../core/errors.js';
import type { JWT } from '../core/types.js';
import { CLOCK_TOLERANCE } from './jwt.js';
import { lazy } from '../core/lazy.js';

const loadJose = lazy(() => import('jose'));

/** Auth.js's session cookie names, v5 then v4, secure first: the order authchart looks for them in. */
export const AUTHJS_SESSION_COOKIES = ['__Secure-authjs.session-token', 'authjs.session-token', '__Secure-next-auth.session-token', 'next-auth.session-token'] as const;

type Enc = 'A256CBC-HS512' | 'A256GCM';
const KEY_BYTES: Record<Enc, number> = { 'A256CBC-HS512': 64, A256GCM: 32 };

function authjsKey(secret: string, salt: string, enc: Enc): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, salt, `Auth.js Generated Encryption Key (${salt})`, KEY_BYTES[enc]));
}

function nextAuthV4Key(secret: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, '', 'NextAuth.js Generated Encryption Key', 32));
}

/** RFC 7638 thumbprint of an `oct` key, SHA-512 for a 64-byte key and SHA-256 for a 32-byte one, as Auth.js names its keys. */
function thumbprint(key: Uint8Array): string {
  const jwk = `{"k":"${Buffer.from(key).toString('base64url')}","kty":"oct"}`;
  return createHash(key.byteLength === 64 ? 'sha512' : 'sha256').update(jwk).digest('base64url');
}

function refused(reason: string, message: string, evidence: Record<string, unknown> = {}): JWTSessionError {
  return new JWTSessionError(`Auth.js session token: ${message}`, { reason, ...evidence });
}

/** The keys that may open a token with this header: per secret, the one whose thumbprint is its `kid`, or all without one. */
function candidateKeys(header: { enc?: unknown; kid?: unknown }, secrets: string[], salt: string): Uint8Array[] {
  const enc = header.enc as Enc;
  const keys: Uint8Array[] = [];
  for (const secret of secrets) {
    const key = authjsKey(secret, salt, enc);
    if (header.kid === undefined || header.kid === thumbprint(key)) keys.push(key);
  }
  // next-auth v4 tokens carry no kid and one fixed derivation.
  if (enc === 'A256GCM' && header.kid === undefined) for (const secret of secrets) keys.push(nextAuthV4Key(secret));
  return keys;
}

/**
 * Opens a session token written by Auth.js (or next-auth v4) under `salt` (the cookie's name), trying each secret.
 * Rejects with JWTSessionError (`cause.reason`: malformed, unknown-key, tampered, expired, invalid-claims) for a
 * token it cannot trust; a token without `exp` is refused, as a session must end.
 *
 * @example
 * const token = await decodeAuthjsToken(cookies['authjs.session-token'], [process.env.AUTH_SECRET!], 'authjs.session-token')
 */
export async function decodeAuthjsToken(token: string, secrets: string[], salt: string): Promise<JWT> {
  // jose only here: reading Auth.js tokens is a migration path, and most apps never load it.
  const { decodeProtectedHeader, errors, jwtDecrypt } = await loadJose();
  let header: { alg?: unknown; enc?: unknown; kid?: unknown };
  try {
    header = decodeProtectedHeader(token);
  } catch (err) {
    throw refused('malformed', 'not a JWE', { err: err as Error });
  }
  if (header.alg !== 'dir' || (header.enc !== 'A256CBC-HS512' && header.enc !== 'A256GCM')) {
    throw refused('malformed', 'unsupported algorithm', { actual: { alg: header.alg, enc: header.enc } });
  }
  const keys = candidateKeys(header, secrets, salt);
  if (keys.length === 0) throw refused('unknown-key', 'no configured secret matches its kid', { actual: header.kid });
  for (const key of keys) {
    try {
      const { payload } = await jwtDecrypt(token, key, {
        keyManagementAlgorithms: ['dir'],
        contentEncryptionAlgorithms: [header.enc as Enc],
        clockTolerance: CLOCK_TOLERANCE,
      });
      if (typeof payload.exp !== 'number') throw refused('invalid-claims', '"exp" must be a number', { actual: payload.exp });
      return payload as JWT;
    } catch (err) {
      if (err instanceof JWTSessionError) throw err;
      if (err instanceof errors.JWTExpired) throw refused('expired', 'it has expired', { err });
      if (err instanceof errors.JWTClaimValidationFailed) throw refused('invalid-claims', err.message, { err });
      // Wrong key or tampered: the next candidate may open it.
    }
  }
  throw refused('tampered', 'it failed authentication under every configured secret');
}
