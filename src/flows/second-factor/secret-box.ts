// TOTP keys at rest: encrypted (JWE dir + A256CBC-HS512) under a key derived from the auth secret, so a leaked
// factors table yields no codes. Rotation works as for sessions: sealed with the first secret, opened with any.
import { decryptJwe, encryptJwe } from '../../session/jwe.js';
import { deriveSessionKey } from '../../session/keys.js';

const SALT = 'authchart.factor-secret';

/** Seals a factor key for storage. */
export function sealFactorKey(secrets: readonly string[], key: Uint8Array): string {
  const { key: enc, kid } = deriveSessionKey(secrets[0], SALT);
  return encryptJwe(key, enc, { kid });
}

/** Opens a stored factor key; throws when no configured secret sealed it (or it was altered). */
export function openFactorKey(secrets: readonly string[], sealed: string): Uint8Array {
  const keys = secrets.map((s) => deriveSessionKey(s, SALT));
  return decryptJwe(sealed, (header) => keys.find((k) => k.kid === header.kid)?.key).plaintext;
}
