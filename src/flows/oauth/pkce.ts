// The PKCE S256 code challenge (RFC 7636 §4.2), computed synchronously on node:crypto: the WebCrypto digest
// oauth4webapi uses is a thread-pool round trip that costs several times the hash itself on every sign-in start.
import { createHash } from 'node:crypto';

/**
 * `BASE64URL(SHA256(ASCII(code_verifier)))`.
 *
 * @example
 * s256CodeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk') // 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
 */
export function s256CodeChallenge(codeVerifier: string): string {
  return createHash('sha256').update(codeVerifier).digest('base64url');
}
