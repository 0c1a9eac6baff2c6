// Key derivation against Web Crypto's HKDF and jose's thumbprint, and the cache that spares each request a derivation.
import * as nodeCrypto from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { clearSessionKeyCache, deriveSessionKey, KEY_CACHE_LIMIT } from '../../src/session/keys.js';

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, hkdfSync: vi.fn(actual.hkdfSync) };
});

const hkdfSpy = vi.mocked(nodeCrypto.hkdfSync);

async function webCryptoHkdf(secret: string, salt: string): Promise<Uint8Array> {
  const ikm = await globalThis.crypto.subtle.importKey('raw', new TextEncoder().encode(secret), 'HKDF', false, ['deriveBits']);
  const bits = await globalThis.crypto.subtle.deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt: new TextEncoder().encode(salt), info: new TextEncoder().encode(`authchart Generated Encryption Key (${salt})`) },
    ikm,
    512,
  );
  return new Uint8Array(bits);
}

beforeEach(() => {
  clearSessionKeyCache();
  hkdfSpy.mockClear();
});

describe('deriveSessionKey', () => {
  it('derives the same 64 bytes as Web Crypto HKDF-SHA256 with our info string', async () => {
    const { key } = deriveSessionKey('a secret of reasonable length!!', 'authchart.session-token');
    expect(key.byteLength).toBe(64);
    expect(Buffer.from(key).toString('hex')).toBe(Buffer.from(await webCryptoHkdf('a secret of reasonable length!!', 'authchart.session-token')).toString('hex'));
  });

  it('names the key by its RFC 7638 SHA-512 thumbprint, as jose computes it', async () => {
    const { key, kid } = deriveSessionKey('s3cret', '__Secure-authchart.session-token');
    expect(kid).toBe(await calculateJwkThumbprint({ kty: 'oct', k: Buffer.from(key).toString('base64url') }, 'sha512'));
    expect(kid).toMatch(/^[A-Za-z0-9_-]{86}$/);
  });

  it('gives each salt (cookie name) and each secret its own key', () => {
    const a = deriveSessionKey('one', 'authchart.session-token');
    const b = deriveSessionKey('one', '__Secure-authchart.session-token');
    const c = deriveSessionKey('two', 'authchart.session-token');
    expect(new Set([a.kid, b.kid, c.kid]).size).toBe(3);
  });

  it('does not confuse pairs whose concatenation is the same', () => {
    const a = deriveSessionKey('ab', 'c');
    const b = deriveSessionKey('b', 'ca');
    expect(a.kid).not.toBe(b.kid);
    expect(hkdfSpy).toHaveBeenCalledTimes(2);
  });

  it('derives once per (secret, salt) and then serves the cached object', () => {
    const first = deriveSessionKey('cached', 'authchart.session-token');
    const again = deriveSessionKey('cached', 'authchart.session-token');
    expect(again).toBe(first);
    expect(hkdfSpy).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 100; i++) deriveSessionKey('cached', 'authchart.session-token');
    expect(hkdfSpy).toHaveBeenCalledTimes(1);
  });

  it('keeps the cache bounded, evicting the oldest pair first', () => {
    const oldest = deriveSessionKey('s', 'salt-0');
    for (let i = 1; i <= KEY_CACHE_LIMIT; i++) deriveSessionKey('s', `salt-${i}`);
    expect(hkdfSpy).toHaveBeenCalledTimes(KEY_CACHE_LIMIT + 1);
    deriveSessionKey('s', `salt-${KEY_CACHE_LIMIT}`);
    expect(hkdfSpy).toHaveBeenCalledTimes(KEY_CACHE_LIMIT + 1);
    const rederived = deriveSessionKey('s', 'salt-0');
    expect(hkdfSpy).toHaveBeenCalledTimes(KEY_CACHE_LIMIT + 2);
    expect(rederived).not.toBe(oldest);
    expect(rederived.kid).toBe(oldest.kid);
  });

  it('returns a frozen record so callers cannot swap the cached key', () => {
    const derived = deriveSessionKey('frozen', 'x');
    expect(Object.isFrozen(derived)).toBe(true);
  });
});
