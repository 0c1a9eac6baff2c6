// HMAC-signed ID tokens (HS256/384/512, as LINE's web login issues them): OIDC Core §10.1 makes the client secret
// their key. oauth4webapi verifies only public-key signatures, so where the flow checks one itself, this does.
import { OAuthCallbackError } from '../../core/errors.js';

const HASHES: Record<string, string> = { HS256: 'SHA-256', HS384: 'SHA-384', HS512: 'SHA-512' };

/** The `alg` of a compact JWS when it is an HMAC one, else undefined. */
export function hmacAlgorithmOf(jws: string): string | undefined {
  try {
    const header: unknown = JSON.parse(Buffer.from(jws.split('.')[0] ?? '', 'base64url').toString('utf8'));
    const alg = header && typeof header === 'object' ? (header as { alg?: unknown }).alg : undefined;
    return typeof alg === 'string' && alg in HASHES ? alg : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Verifies an HMAC-signed ID token with the client secret; throws OAuthCallbackError when it does not verify.
 * (Which algorithms are acceptable at all was decided before, by the client's or the issuer's metadata.)
 *
 * @example
 * await verifyHmacIdToken(tokens.id_token, provider.clientSecret)
 */
export async function verifyHmacIdToken(jws: string, clientSecret: string | undefined): Promise<void> {
  const alg = hmacAlgorithmOf(jws);
  const [header = '', payload = '', signature = ''] = jws.split('.');
  if (!alg || !clientSecret) {
    throw new OAuthCallbackError('An HMAC-signed ID token needs the client secret to be verified.', { step: 'token', expected: 'clientSecret', actual: alg ?? null });
  }
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(clientSecret), { name: 'HMAC', hash: HASHES[alg]! }, false, ['verify']);
  // crypto.subtle.verify compares in constant time.
  const ok = await crypto.subtle.verify('HMAC', key, Buffer.from(signature, 'base64url'), new TextEncoder().encode(`${header}.${payload}`));
  if (!ok) throw new OAuthCallbackError('The ID token signature does not verify with the client secret.', { step: 'token', claim: 'signature' });
}
