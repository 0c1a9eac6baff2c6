// Derives the 64-byte A256CBC-HS512 key and its `kid` from a secret and a salt (the cookie name), once per pair.
// HKDF and the thumbprint cost more than the decryption they serve, so a request must never redo them.

import { createHash, hkdfSync } from 'node:crypto';

/** A derived encryption key and its RFC 7638 thumbprint. Treat `key` as read-only: it is shared through the cache. */
export interface DerivedKey {
  readonly key: Uint8Array;
  readonly kid: string;
}

const KEY_BYTES = 64;

/**
 * How many (secret, salt) pairs stay cached. An app uses a handful (secrets × cookie names); the bound only stops
 * an app that derives from ever-changing salts from growing without end.
 * @internal
 */
export const KEY_CACHE_LIMIT = 64;

const cache = new Map<string, DerivedKey>();

/**
 * RFC 7638 thumbprint of the `oct` JWK of `key`: SHA-512 over its required members in lexicographic order.
 * @internal
 */
export function octThumbprint(key: Uint8Array): string {
  const jwk = `{"k":"${Buffer.from(key).toString('base64url')}","kty":"oct"}`;
  return createHash('sha512').update(jwk).digest('base64url');
}

/**
 * The session encryption key for `secret` and `salt` (the cookie name, so each cookie gets its own key):
 * HKDF-SHA256 with info `authchart Generated Encryption Key (<salt>)`, 64 bytes, and its thumbprint as `kid`.
 * Results are cached; the same pair returns the same object.
 *
 * @example
 * const { key, kid } = deriveSessionKey(process.env.AUTH_SECRET!, 'authchart.session-token')
 */
export function deriveSessionKey(secret: string, salt: string): DerivedKey {
  // The salt's length prefix keeps ("ab", "c") and ("a", "bc") apart without an escape scheme.
  const cacheKey = `${salt.length}:${salt}${secret}`;
  const hit = cache.get(cacheKey);
  if (hit) return hit;
  const key = new Uint8Array(hkdfSync('sha256', secret, salt, `authchart Generated Encryption Key (${salt})`, KEY_BYTES));
  const derived: DerivedKey = Object.freeze({ key, kid: octThumbprint(key) });
  if (cache.size >= KEY_CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(cacheKey, derived);
  return derived;
}

/**
 * Forgets every derived key (tests, or a process that wants rotated-out secrets gone from memory).
 * @internal
 */
export function clearSessionKeyCache(): void {
  cache.clear();
}
