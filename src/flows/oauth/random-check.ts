// The random values a sign-in sends and checks on return (PKCE verifier, state, nonce), made synchronously on
// node:crypto: oauth4webapi's generators encode through String.fromCharCode, btoa and three replacements on Node 20.

import { randomBytes } from 'node:crypto';

/**
 * 32 random bytes as unpadded base64url (43 characters): what oauth4webapi's `generateRandomCodeVerifier`,
 * `generateRandomState` and `generateRandomNonce` return, and a valid PKCE verifier (RFC 7636 §4.1).
 *
 * @example
 * randomCheckValue() // 43 characters of A-Z a-z 0-9 - _, e.g. 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'
 */
export function randomCheckValue(): string {
  return randomBytes(32).toString('base64url');
}
