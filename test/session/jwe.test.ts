// The JWE codec against RFC 7518's known answer and against jose, in both directions.
import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { CompactEncrypt, EncryptJWT, compactDecrypt, jwtDecrypt } from 'jose';
import { describe, expect, it } from 'vitest';
import { decryptJwe, encryptJwe, JweError, openA256CbcHs512, sealA256CbcHs512, type JweErrorCode } from '../../src/session/jwe.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const utf8 = (s: string) => Buffer.from(s, 'utf8');
const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

// RFC 7518 Appendix B.3 (AEAD_AES_256_CBC_HMAC_SHA_512).
const B3 = {
  key: Uint8Array.from({ length: 64 }, (_, i) => i),
  iv: hex('1af38c2dc2b96ffdd86694092341bc04'),
  plaintext: utf8('A cipher system must not be required to be secret, and it must be able to fall into the hands of the enemy without inconvenience'),
  aad: utf8('The second principle of Auguste Kerckhoffs'),
  ciphertext: hex(`
    4affaaadb78c31c5da4b1b590d10ffbd3dd8d5d302423526912da037ecbcc7bd
    822c301dd67c373bccb584ad3e9279c2e6d12a1374b77f077553df829410446b
    36ebd97066296ae6427ea75c2e0846a11a09ccf5370dc80bfecbad28c73f09b3
    a3b75e662a2594410ae496b2e2e6609e31e6e02cc837f053d21f37ff4f51950b
    be2638d09dd7a4930930806d0703b1f6`),
  tag: hex('4dd3b4c088a7f45c216839645b2012bf2e6269a8c56a816dbc1b267761955bc5'),
};

const key = new Uint8Array(randomBytes(64));
const otherKey = new Uint8Array(randomBytes(64));

function expectJweError(fn: () => unknown, code: JweErrorCode): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(JweError);
  expect((caught as JweError).code).toBe(code);
}

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const withPart = (jwe: string, index: number, value: string) => {
  const parts = jwe.split('.');
  parts[index] = value;
  return parts.join('.');
};
// Replaces the first character, which carries six full bits, so the decoded bytes really change.
const flipFirst = (part: string) => (part[0] === 'A' ? 'B' : 'A') + part.slice(1);

describe('A256CBC-HS512 (RFC 7518 Appendix B.3)', () => {
  it('encrypts the test vector to the published ciphertext and tag', () => {
    const sealed = sealA256CbcHs512(B3.key, B3.iv, B3.plaintext, B3.aad);
    expect(Buffer.from(sealed.ciphertext).toString('hex')).toBe(B3.ciphertext.toString('hex'));
    expect(Buffer.from(sealed.tag).toString('hex')).toBe(B3.tag.toString('hex'));
  });

  it('decrypts the published ciphertext', () => {
    expect(text(openA256CbcHs512(B3.key, B3.iv, B3.ciphertext, B3.tag, B3.aad))).toBe(text(B3.plaintext));
  });

  it('refuses the vector with one bit of the AAD or tag changed', () => {
    const aad = Buffer.from(B3.aad);
    aad[0] ^= 1;
    expectJweError(() => openA256CbcHs512(B3.key, B3.iv, B3.ciphertext, B3.tag, aad), 'ERR_JWE_DECRYPTION_FAILED');
    const tag = Buffer.from(B3.tag);
    tag[31] ^= 0x80;
    expectJweError(() => openA256CbcHs512(B3.key, B3.iv, B3.ciphertext, tag, B3.aad), 'ERR_JWE_DECRYPTION_FAILED');
  });

  it('reports a badly padded plaintext behind a valid tag as a decryption failure', () => {
    const block = Buffer.alloc(16, 0x41); // last byte 0x41 is not valid PKCS#7 padding
    const cipher = createCipheriv('aes-256-cbc', B3.key.subarray(32), B3.iv).setAutoPadding(false);
    const ct = Buffer.concat([cipher.update(block), cipher.final()]);
    const al = Buffer.alloc(8);
    al.writeBigUInt64BE(BigInt(B3.aad.length * 8));
    const tag = createHmac('sha512', B3.key.subarray(0, 32)).update(Buffer.concat([B3.aad, B3.iv, ct, al])).digest().subarray(0, 32);
    expectJweError(() => openA256CbcHs512(B3.key, B3.iv, ct, tag, B3.aad), 'ERR_JWE_DECRYPTION_FAILED');
  });
});

describe('one key, many tokens (the decipher is kept per key)', () => {
  it('opens tokens of every length in any order, as a fresh decipher would', () => {
    const messages = ['', 'x', 'sixteen bytes!!!', 'a'.repeat(17), 'b'.repeat(300)];
    const tokens = messages.map((m) => encryptJwe(utf8(m), key));
    for (const order of [[0, 1, 2, 3, 4], [4, 2, 0, 3, 1], [3, 3, 1, 4, 0]]) {
      for (const i of order) expect(text(decryptJwe(tokens[i], () => key).plaintext)).toBe(messages[i]);
    }
    // A refused token between two good ones leaves nothing behind for the next.
    expectJweError(() => decryptJwe(withPart(tokens[4], 4, flipFirst(tokens[4].split('.')[4])), () => key), 'ERR_JWE_DECRYPTION_FAILED');
    expect(text(decryptJwe(tokens[2], () => key).plaintext)).toBe(messages[2]);
  });

  it('takes a key array refilled with other bytes as the other key', () => {
    const refilled = new Uint8Array(key);
    const first = encryptJwe(utf8('under the first key'), refilled);
    expect(text(decryptJwe(first, () => refilled).plaintext)).toBe('under the first key');
    refilled.set(otherKey);
    const second = encryptJwe(utf8('under the second key'), refilled);
    expect(text(decryptJwe(second, () => refilled).plaintext)).toBe('under the second key');
  });
});

describe('encryptJwe / decryptJwe', () => {
  it('round-trips and exposes the protected header', () => {
    const jwe = encryptJwe(utf8('{"a":1}'), key, { kid: 'k1', typ: 'JWT' });
    const { plaintext, header } = decryptJwe(jwe, (h) => (h.kid === 'k1' ? key : undefined));
    expect(text(plaintext)).toBe('{"a":1}');
    expect(header).toEqual({ alg: 'dir', enc: 'A256CBC-HS512', kid: 'k1', typ: 'JWT' });
    expect(jwe.split('.')[1]).toBe('');
  });

  it('uses a fresh IV on every call', () => {
    const a = encryptJwe(utf8('same'), key);
    const b = encryptJwe(utf8('same'), key);
    expect(a.split('.')[2]).not.toBe(b.split('.')[2]);
    expect(a).not.toBe(b);
  });

  it('keeps alg and enc its own whatever the caller passes', () => {
    const jwe = encryptJwe(utf8('x'), key, { alg: 'RSA-OAEP', enc: 'A128GCM' });
    expect(JSON.parse(Buffer.from(jwe.split('.')[0], 'base64url').toString())).toEqual({ alg: 'dir', enc: 'A256CBC-HS512' });
  });

  it('refuses to write zip or crit, and keys that are not 64 bytes', () => {
    expectJweError(() => encryptJwe(utf8('x'), key, { zip: 'DEF' }), 'ERR_JWE_NOT_SUPPORTED');
    expectJweError(() => encryptJwe(utf8('x'), key, { crit: ['exp'] }), 'ERR_JWE_NOT_SUPPORTED');
    expectJweError(() => encryptJwe(utf8('x'), key.subarray(0, 32)), 'ERR_JWE_KEY');
    const jwe = encryptJwe(utf8('x'), key);
    expectJweError(() => decryptJwe(jwe, () => key.subarray(0, 32)), 'ERR_JWE_KEY');
  });

  it('with a fixed IV, produces exactly the token jose produces', async () => {
    const iv = new Uint8Array(randomBytes(16));
    const ours = encryptJwe(utf8('{"sub":"x"}'), key, { kid: 'k' }, { iv });
    const theirs = await new CompactEncrypt(utf8('{"sub":"x"}'))
      .setProtectedHeader({ alg: 'dir', enc: 'A256CBC-HS512', kid: 'k' })
      .setInitializationVector(iv)
      .encrypt(key);
    expect(ours).toBe(theirs);
  });

  it('opens tokens made by jose CompactEncrypt and EncryptJWT', async () => {
    const compact = await new CompactEncrypt(utf8('hello')).setProtectedHeader({ alg: 'dir', enc: 'A256CBC-HS512' }).encrypt(key);
    expect(text(decryptJwe(compact, () => key).plaintext)).toBe('hello');

    const jwt = await new EncryptJWT({ sub: 'u1', n: 2 })
      .setProtectedHeader({ alg: 'dir', enc: 'A256CBC-HS512', kid: 'kid-1' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .encrypt(key);
    const { plaintext, header } = decryptJwe(jwt, () => key);
    expect(JSON.parse(text(plaintext))).toMatchObject({ sub: 'u1', n: 2 });
    expect(header.kid).toBe('kid-1');
  });

  it('makes tokens jose compactDecrypt and jwtDecrypt open', async () => {
    const jwe = encryptJwe(utf8(JSON.stringify({ sub: 'u2', exp: Math.floor(Date.now() / 1000) + 60 })), key, { kid: 'k2' });
    const compact = await compactDecrypt(jwe, key);
    expect(compact.protectedHeader).toEqual({ alg: 'dir', enc: 'A256CBC-HS512', kid: 'k2' });
    const { payload } = await jwtDecrypt(jwe, key, { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256CBC-HS512'] });
    expect(payload.sub).toBe('u2');
  });

  it('fails authentication under another key', () => {
    const jwe = encryptJwe(utf8('x'), key);
    expectJweError(() => decryptJwe(jwe, () => otherKey), 'ERR_JWE_DECRYPTION_FAILED');
  });

  it('reports a missing key', () => {
    const jwe = encryptJwe(utf8('x'), key, { kid: 'nope' });
    expectJweError(() => decryptJwe(jwe, () => undefined), 'ERR_JWE_KEY');
  });
});

describe('tampering with each of the five parts', () => {
  const original = encryptJwe(utf8('{"sub":"victim"}'), key, { kid: 'k' });
  const [header, , iv, ciphertext, tag] = original.split('.');
  const tampered: [string, string, JweErrorCode][] = [
    ['protected header', withPart(original, 0, b64({ alg: 'dir', enc: 'A256CBC-HS512', kid: 'other' })), 'ERR_JWE_DECRYPTION_FAILED'],
    ['encrypted key', withPart(original, 1, 'AAAA'), 'ERR_JWE_INVALID'],
    ['IV', withPart(original, 2, flipFirst(iv)), 'ERR_JWE_DECRYPTION_FAILED'],
    ['ciphertext', withPart(original, 3, flipFirst(ciphertext)), 'ERR_JWE_DECRYPTION_FAILED'],
    ['tag', withPart(original, 4, flipFirst(tag)), 'ERR_JWE_DECRYPTION_FAILED'],
  ];

  it('the untampered token opens in both implementations', async () => {
    expect(text(decryptJwe(original, () => key).plaintext)).toBe('{"sub":"victim"}');
    expect(text((await compactDecrypt(original, key)).plaintext)).toBe('{"sub":"victim"}');
    expect(header.length).toBeGreaterThan(0);
  });

  for (const [part, jwe, code] of tampered) {
    it(`rejects a changed ${part}, as jose does`, async () => {
      expect(jwe).not.toBe(original);
      expectJweError(() => decryptJwe(jwe, () => key), code);
      await expect(compactDecrypt(jwe, key)).rejects.toThrow();
    });
  }
});

describe('malformed and unsupported tokens', () => {
  const good = encryptJwe(utf8('{"a":1}'), key);
  const cases: [string, string, JweErrorCode][] = [
    ['four parts', good.split('.').slice(0, 4).join('.'), 'ERR_JWE_INVALID'],
    ['six parts', `${good}.`, 'ERR_JWE_INVALID'],
    ['empty string', '', 'ERR_JWE_INVALID'],
    ['standard base64 in the ciphertext', withPart(good, 3, good.split('.')[3].slice(0, -2) + '+/'), 'ERR_JWE_INVALID'],
    ['padding characters', withPart(good, 4, good.split('.')[4] + '='), 'ERR_JWE_INVALID'],
    ['an impossible base64url length', withPart(good, 4, good.split('.')[4] + 'AA'), 'ERR_JWE_INVALID'],
    ['non-canonical trailing bits in the tag', withPart(good, 4, good.split('.')[4].slice(0, -1) + 'B'), 'ERR_JWE_INVALID'],
    ['a short IV', withPart(good, 2, Buffer.alloc(12).toString('base64url')), 'ERR_JWE_INVALID'],
    ['a short tag', withPart(good, 4, Buffer.alloc(16).toString('base64url')), 'ERR_JWE_INVALID'],
    ['a ciphertext not a multiple of 16', withPart(good, 3, Buffer.alloc(17).toString('base64url')), 'ERR_JWE_INVALID'],
    ['an empty ciphertext', withPart(good, 3, ''), 'ERR_JWE_INVALID'],
    ['a header that is not JSON', withPart(good, 0, Buffer.from('{nope').toString('base64url')), 'ERR_JWE_INVALID'],
    ['a header that is an array', withPart(good, 0, b64(['dir'])), 'ERR_JWE_INVALID'],
    ['a numeric kid', withPart(good, 0, b64({ alg: 'dir', enc: 'A256CBC-HS512', kid: 7 })), 'ERR_JWE_INVALID'],
    ['another alg', withPart(good, 0, b64({ alg: 'A256KW', enc: 'A256CBC-HS512' })), 'ERR_JWE_NOT_SUPPORTED'],
    ['another enc', withPart(good, 0, b64({ alg: 'dir', enc: 'A256GCM' })), 'ERR_JWE_NOT_SUPPORTED'],
    ['no alg', withPart(good, 0, b64({ enc: 'A256CBC-HS512' })), 'ERR_JWE_NOT_SUPPORTED'],
    ['zip', withPart(good, 0, b64({ alg: 'dir', enc: 'A256CBC-HS512', zip: 'DEF' })), 'ERR_JWE_NOT_SUPPORTED'],
    ['crit', withPart(good, 0, b64({ alg: 'dir', enc: 'A256CBC-HS512', crit: ['exp'], exp: 1 })), 'ERR_JWE_NOT_SUPPORTED'],
  ];
  for (const [what, jwe, code] of cases) {
    it(`rejects ${what} with ${code}`, () => {
      expectJweError(() => decryptJwe(jwe, () => key), code);
    });
  }

  it('never asks for a key before the structure is valid', () => {
    let asked = 0;
    expectJweError(() => decryptJwe(withPart(good, 2, 'AAAA'), () => (asked++, key)), 'ERR_JWE_INVALID');
    expect(asked).toBe(0);
  });
});
