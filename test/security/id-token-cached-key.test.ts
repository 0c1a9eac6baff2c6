// Forged ID tokens against the synchronous signature check on the provider's cached key set (a provider on loopback
// HTTP, where the flow checks signatures itself): none of them may be accepted there. Refused there means left to
// oauth4webapi's own check, which refuses them as before (test/e2e/oauth-attacks.test.ts goes through it).
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifiedByCachedKey } from '../../src/flows/oauth/cached-key-signature.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);
const claims = { iss: 'https://op.test', aud: 'app', sub: 'victim', iat: now(), exp: now() + 600, nonce: 'n' };

const provider = generateKeyPairSync('rsa', { modulusLength: 2048 });
const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });
const providerJwk = { ...(provider.publicKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: 'op-1', use: 'sig', alg: 'RS256' };
const cache = { jwks: { keys: [providerJwk] }, uat: now() };

const rs256 = (header: Record<string, unknown>, key = attacker.privateKey) => {
  const input = `${b64({ alg: 'RS256', ...header })}.${b64(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
};

describe('forged ID tokens and the cached-key signature check', () => {
  it('accepts the provider’s own signature (the control)', () => {
    expect(verifiedByCachedKey(rs256({ kid: 'op-1' }, provider.privateKey), cache)).toBe(true);
  });

  it('refuses a token signed by another key under the provider’s kid', () => {
    expect(verifiedByCachedKey(rs256({ kid: 'op-1' }), cache)).toBe(false);
  });

  it('refuses a key the token brings along (jwk, jku, x5c headers are never used)', () => {
    const own = attacker.publicKey.export({ format: 'jwk' });
    expect(verifiedByCachedKey(rs256({ kid: 'op-1', jwk: own }), cache)).toBe(false);
    expect(verifiedByCachedKey(rs256({ jku: 'https://evil.test/jwks' }), cache)).toBe(false);
  });

  it('refuses algorithm confusion: HS256 keyed with the provider’s public key, and alg none', () => {
    const input = `${b64({ alg: 'HS256', kid: 'op-1' })}.${b64(claims)}`;
    const pem = provider.publicKey.export({ format: 'pem', type: 'spki' });
    const hs = `${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`;
    expect(verifiedByCachedKey(hs, cache)).toBe(false);
    expect(verifiedByCachedKey(`${b64({ alg: 'none' })}.${b64(claims)}.`, cache)).toBe(false);
    expect(verifiedByCachedKey(`${b64({ alg: 'none' })}.${b64(claims)}`, cache)).toBe(false);
  });

  it('refuses a valid signature moved onto other claims, or with extra segments', () => {
    const [header, , signature] = rs256({ kid: 'op-1' }, provider.privateKey).split('.');
    expect(verifiedByCachedKey(`${header}.${b64({ ...claims, sub: 'admin' })}.${signature}`, cache)).toBe(false);
    expect(verifiedByCachedKey(`${rs256({ kid: 'op-1' }, provider.privateKey)}.${signature}`, cache)).toBe(false);
  });
});
