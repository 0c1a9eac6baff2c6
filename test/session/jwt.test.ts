// The session codec: claims, rotation, expiry with a frozen clock, every failure reason, and jose as an oracle.
import { EncryptJWT, jwtDecrypt } from 'jose';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JWTSessionError, MissingSecret } from '../../src/core/errors.js';
import { encryptJwe } from '../../src/session/jwe.js';
import { deriveSessionKey } from '../../src/session/keys.js';
import { CLOCK_TOLERANCE, DEFAULT_MAX_AGE, decode, decodeSync, encode, encodeSync, type JWTSessionFailure } from '../../src/session/jwt.js';

const salt = 'authchart.session-token';
const secret = 'current-secret-0123456789abcdefghijkl';
const oldSecret = 'previous-secret-0123456789abcdefghijk';
const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const t0 = T0 / 1000;

const headerOf = (jwe: string) => JSON.parse(Buffer.from(jwe.split('.')[0], 'base64url').toString());
const sealRaw = (claims: unknown, key: Uint8Array, header: Record<string, unknown> = {}) =>
  encryptJwe(Buffer.from(JSON.stringify(claims)), key, header);

function failureOf(fn: () => unknown): JWTSessionFailure {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(JWTSessionError);
    expect((e as JWTSessionError).type).toBe('JWTSessionError');
    return (e as JWTSessionError).cause?.reason as JWTSessionFailure;
  }
  throw new Error('expected a JWTSessionError, nothing was thrown');
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('encode / decode', () => {
  it('round-trips the claims and stamps iat, exp and jti', () => {
    const jwe = encodeSync({ token: { sub: 'u1', name: 'Ada', email: 'ada@example.com', picture: null }, secret, salt, maxAge: 3600 });
    const token = decodeSync({ token: jwe, secret, salt });
    expect(token).toMatchObject({ sub: 'u1', name: 'Ada', email: 'ada@example.com', picture: null, iat: t0, exp: t0 + 3600 });
    expect(token?.jti).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('defaults maxAge to 30 days', () => {
    expect(DEFAULT_MAX_AGE).toBe(2_592_000);
    const token = decodeSync({ token: encodeSync({ token: {}, secret, salt }), secret, salt });
    expect(token?.exp).toBe(t0 + 2_592_000);
  });

  it('overwrites iat, exp and jti on every encode', () => {
    const first = decodeSync({ token: encodeSync({ token: { sub: 'u' }, secret, salt, maxAge: 60 }), secret, salt })!;
    vi.setSystemTime(T0 + 10_000);
    const second = decodeSync({ token: encodeSync({ token: first, secret, salt, maxAge: 60 }), secret, salt })!;
    expect(second.iat).toBe(t0 + 10);
    expect(second.exp).toBe(t0 + 70);
    expect(second.jti).not.toBe(first.jti);
  });

  it('writes the dir/A256CBC-HS512 header with the kid of the derived key', () => {
    const jwe = encodeSync({ token: { sub: 'u' }, secret, salt });
    expect(headerOf(jwe)).toEqual({ alg: 'dir', enc: 'A256CBC-HS512', kid: deriveSessionKey(secret, salt).kid });
  });

  it('returns null for an empty or missing token', () => {
    expect(decodeSync({ token: '', secret, salt })).toBeNull();
    expect(decodeSync({ secret, salt })).toBeNull();
  });

  it('has async twins with the Auth.js shape', async () => {
    const jwe = await encode({ token: { sub: 'async' }, secret, salt });
    await expect(decode({ token: jwe, secret, salt })).resolves.toMatchObject({ sub: 'async' });
    await expect(decode({ token: 'garbage', secret, salt })).rejects.toBeInstanceOf(JWTSessionError);
    await expect(decode({ token: undefined, secret, salt })).resolves.toBeNull();
  });

  it('treats a missing secret as a configuration error, not a bad token', () => {
    expect(() => encodeSync({ token: {}, secret: [], salt })).toThrow(MissingSecret);
    expect(() => decodeSync({ token: 'x.y', secret: '', salt })).toThrow(MissingSecret);
  });

  it('binds the token to its salt (cookie name)', () => {
    const jwe = encodeSync({ token: { sub: 'u' }, secret, salt });
    expect(failureOf(() => decodeSync({ token: jwe, secret, salt: `__Secure-${salt}` }))).toBe('unknown-key');
  });
});

describe('secret rotation', () => {
  it('still opens tokens made with a secret further down the list', () => {
    const old = encodeSync({ token: { sub: 'before-rotation' }, secret: oldSecret, salt });
    expect(decodeSync({ token: old, secret: [secret, oldSecret], salt })).toMatchObject({ sub: 'before-rotation' });
  });

  it('encrypts new tokens with the first secret only', () => {
    const jwe = encodeSync({ token: { sub: 'new' }, secret: [secret, oldSecret], salt });
    expect(headerOf(jwe).kid).toBe(deriveSessionKey(secret, salt).kid);
    expect(decodeSync({ token: jwe, secret, salt })).toMatchObject({ sub: 'new' });
    expect(failureOf(() => decodeSync({ token: jwe, secret: oldSecret, salt }))).toBe('unknown-key');
  });

  it('tries every secret in order for a token without kid', () => {
    const claims = { sub: 'kidless', exp: t0 + 60 };
    const byOld = sealRaw(claims, deriveSessionKey(oldSecret, salt).key);
    expect(headerOf(byOld).kid).toBeUndefined();
    expect(decodeSync({ token: byOld, secret: [secret, oldSecret], salt })).toMatchObject({ sub: 'kidless' });
    const byFirst = sealRaw(claims, deriveSessionKey(secret, salt).key);
    expect(decodeSync({ token: byFirst, secret: [secret, oldSecret], salt })).toMatchObject({ sub: 'kidless' });
    expect(failureOf(() => decodeSync({ token: byOld, secret, salt }))).toBe('tampered');
  });

  it('rejects a token whose kid names no configured secret, with the kid as evidence', () => {
    const jwe = encodeSync({ token: {}, secret: 'some-other-secret-entirely-000000000', salt });
    try {
      decodeSync({ token: jwe, secret: [secret, oldSecret], salt });
      expect.unreachable();
    } catch (e) {
      expect((e as JWTSessionError).cause).toMatchObject({ reason: 'unknown-key', actual: headerOf(jwe).kid });
    }
  });
});

describe('expiry with a frozen clock', () => {
  const jwe = () => encodeSync({ token: { sub: 'u' }, secret, salt, maxAge: 60 });

  it(`accepts a token up to ${CLOCK_TOLERANCE - 1} s past exp, as jose does with the same tolerance`, async () => {
    const token = jwe();
    const key = deriveSessionKey(secret, salt).key;
    vi.setSystemTime(T0 + (60 + CLOCK_TOLERANCE - 1) * 1000);
    expect(decodeSync({ token, secret, salt })).toMatchObject({ sub: 'u' });
    await expect(jwtDecrypt(token, key, { clockTolerance: CLOCK_TOLERANCE })).resolves.toBeTruthy();
  });

  it(`rejects it ${CLOCK_TOLERANCE} s past exp as expired, as jose does`, async () => {
    const token = jwe();
    const key = deriveSessionKey(secret, salt).key;
    vi.setSystemTime(T0 + (60 + CLOCK_TOLERANCE) * 1000);
    expect(failureOf(() => decodeSync({ token, secret, salt }))).toBe('expired');
    await expect(jwtDecrypt(token, key, { clockTolerance: CLOCK_TOLERANCE })).rejects.toMatchObject({ code: 'ERR_JWT_EXPIRED' });
  });

  it('rejects a token that is not valid yet beyond the tolerance', () => {
    const key = deriveSessionKey(secret, salt).key;
    const early = sealRaw({ sub: 'u', exp: t0 + 600, nbf: t0 + CLOCK_TOLERANCE + 1 }, key, { kid: deriveSessionKey(secret, salt).kid });
    expect(failureOf(() => decodeSync({ token: early, secret, salt }))).toBe('invalid-claims');
    const justInTolerance = sealRaw({ sub: 'u', exp: t0 + 600, nbf: t0 + CLOCK_TOLERANCE }, key);
    expect(decodeSync({ token: justInTolerance, secret, salt })).toMatchObject({ sub: 'u' });
  });
});

describe('failures, each with its reason', () => {
  const key = () => deriveSessionKey(secret, salt);

  it('wrong secret → unknown-key', () => {
    const jwe = encodeSync({ token: { sub: 'u' }, secret, salt });
    expect(failureOf(() => decodeSync({ token: jwe, secret: oldSecret, salt }))).toBe('unknown-key');
  });

  it('garbage → malformed', () => {
    for (const garbage of ['garbage', 'a.b.c.d.e', '....', 'eyJhbGciOiJkaXIifQ..AAAA.AAAA.AAAA', '%%%']) {
      expect(failureOf(() => decodeSync({ token: garbage, secret, salt }))).toBe('malformed');
    }
  });

  it('truncated → malformed', () => {
    const jwe = encodeSync({ token: { sub: 'u' }, secret, salt });
    expect(failureOf(() => decodeSync({ token: jwe.slice(0, -10), secret, salt }))).toBe('malformed');
    expect(failureOf(() => decodeSync({ token: jwe.slice(0, jwe.lastIndexOf('.')), secret, salt }))).toBe('malformed');
  });

  it('tampered ciphertext or tag → tampered', () => {
    const jwe = encodeSync({ token: { sub: 'u', role: 'user' }, secret, salt });
    const parts = jwe.split('.');
    const flip = (s: string) => (s[5] === 'A' ? 'B' : 'A') + '';
    for (const index of [2, 3, 4]) {
      const changed = [...parts];
      changed[index] = parts[index].slice(0, 5) + flip(parts[index]) + parts[index].slice(6);
      expect(failureOf(() => decodeSync({ token: changed.join('.'), secret, salt }))).toBe('tampered');
    }
  });

  it('a header claiming another key → unknown-key; another algorithm → malformed', () => {
    const jwe = encodeSync({ token: { sub: 'u' }, secret, salt });
    const rest = jwe.slice(jwe.indexOf('.'));
    const otherKid = Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256CBC-HS512', kid: 'forged' })).toString('base64url');
    expect(failureOf(() => decodeSync({ token: otherKid + rest, secret, salt }))).toBe('unknown-key');
    const gcm = Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256GCM' })).toString('base64url');
    expect(failureOf(() => decodeSync({ token: gcm + rest, secret, salt }))).toBe('malformed');
  });

  it('claims that are not an object, or lack a numeric exp → invalid-claims', () => {
    const { key: k, kid } = key();
    for (const claims of [[1, 2], 'text', null, { sub: 'u' }, { sub: 'u', exp: 'tomorrow' }, { exp: t0 + 60, iat: 'now' }]) {
      expect(failureOf(() => decodeSync({ token: sealRaw(claims, k, { kid }), secret, salt }))).toBe('invalid-claims');
    }
    const notJson = encryptJwe(Buffer.from('not json'), k, { kid });
    expect(failureOf(() => decodeSync({ token: notJson, secret, salt }))).toBe('invalid-claims');
  });

  it('a payload that cannot be serialized → invalid-claims at encode', () => {
    expect(failureOf(() => encodeSync({ token: { big: 1n }, secret, salt }))).toBe('invalid-claims');
  });
});

describe('interoperability with jose', () => {
  it('decodes a token jose EncryptJWT made with the same derived key', async () => {
    const { key, kid } = deriveSessionKey(secret, salt);
    const jwe = await new EncryptJWT({ sub: 'from-jose', email: 'j@example.com' })
      .setProtectedHeader({ alg: 'dir', enc: 'A256CBC-HS512', kid })
      .setIssuedAt()
      .setExpirationTime('1h')
      .setJti('jti-1')
      .encrypt(key);
    expect(decodeSync({ token: jwe, secret: [oldSecret, secret], salt })).toEqual({
      sub: 'from-jose',
      email: 'j@example.com',
      iat: t0,
      exp: t0 + 3600,
      jti: 'jti-1',
    });
  });

  it('makes tokens jose jwtDecrypt opens with the same derived key', async () => {
    const jwe = encodeSync({ token: { sub: 'to-jose', name: 'Zoë' }, secret, salt, maxAge: 120 });
    const { payload, protectedHeader } = await jwtDecrypt(jwe, deriveSessionKey(secret, salt).key, {
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256CBC-HS512'],
      clockTolerance: CLOCK_TOLERANCE,
    });
    expect(payload).toMatchObject({ sub: 'to-jose', name: 'Zoë', iat: t0, exp: t0 + 120 });
    expect(protectedHeader.kid).toBe(deriveSessionKey(secret, salt).kid);
  });
});
