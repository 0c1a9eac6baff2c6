// Logout tokens for tests: signed with the real OP's own key (so only a claim check can refuse them), or with a
// key the OP never published.
import { randomUUID } from 'node:crypto';
import { generateKeyPair, importJWK, SignJWT, type JWTPayload } from 'jose';
import { BACKCHANNEL_LOGOUT_EVENT } from '../../../src/flows/logout/backchannel-steps.js';
import { rsaSigningKey, type OidcProviderHarness } from '../peers/oidc.js';

export function logoutClaims(op: OidcProviderHarness, claims: Record<string, unknown> = {}): JWTPayload {
  return { iss: op.issuer, aud: op.clientId, iat: Math.floor(Date.now() / 1000), jti: randomUUID(), events: { [BACKCHANNEL_LOGOUT_EVENT]: {} }, ...claims };
}

/** Signs with the OP's key (the key its JWKS publishes); `drop` removes claims. */
export async function opSigned(payload: JWTPayload, drop: string[] = []): Promise<string> {
  const jwk = await rsaSigningKey();
  const key = await importJWK(jwk as Parameters<typeof importJWK>[0], 'RS256');
  const body = { ...payload };
  for (const claim of drop) delete body[claim];
  return new SignJWT(body).setProtectedHeader({ alg: 'RS256', kid: jwk.kid as string, typ: 'logout+jwt' }).sign(key);
}

/** Signs with a fresh key the OP never published, under the OP's kid. */
export async function attackerSigned(payload: JWTPayload): Promise<string> {
  const { privateKey } = await generateKeyPair('RS256');
  const kid = (await rsaSigningKey()).kid as string;
  return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid, typ: 'logout+jwt' }).sign(privateKey);
}

/** An unsigned token (`alg: none`). */
export function unsigned(payload: JWTPayload): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'none', typ: 'logout+jwt' })}.${part(payload)}.`;
}
