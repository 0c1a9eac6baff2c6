// Compact JWE with `alg: "dir"` and `enc: "A256CBC-HS512"` (RFC 7516, RFC 7518 §5.2.5), synchronous on node:crypto.
// Session cookies are opened on every request; Web Crypto's async hops cost ~50x the cryptography itself.

import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual, type Decipher } from 'node:crypto';

/** The protected header of a JWE this module reads or writes. */
export interface JweHeader {
  alg: 'dir';
  enc: 'A256CBC-HS512';
  kid?: string;
  [param: string]: unknown;
}

export type JweErrorCode =
  /** Not five base64url parts, bad base64url, wrong part lengths, a header that is not a JSON object. */
  | 'ERR_JWE_INVALID'
  /** Well-formed but asks for something we do not do: another alg/enc, `zip`, `crit`. */
  | 'ERR_JWE_NOT_SUPPORTED'
  /** No key for this header, or a key that is not 64 bytes. */
  | 'ERR_JWE_KEY'
  /** The authentication tag did not verify (wrong key or tampered token). */
  | 'ERR_JWE_DECRYPTION_FAILED';

/**
 * Every failure of {@link encryptJwe} and {@link decryptJwe}; `code` says which kind.
 *
 * @example
 * try { decryptJwe(token, () => key) } catch (e) { if (e instanceof JweError && e.code === 'ERR_JWE_DECRYPTION_FAILED') ... }
 */
export class JweError extends Error {
  readonly code: JweErrorCode;
  constructor(code: JweErrorCode, message: string) {
    super(message);
    this.name = 'JweError';
    this.code = code;
  }
}

const ALG = 'dir';
const ENC = 'A256CBC-HS512';
export const KEY_BYTES = 64;
const IV_BYTES = 16;
const TAG_BYTES = 32;
const BLOCK_BYTES = 16;
const B64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
// Each ASCII code's base64url value, or 255 for a character outside the alphabet: one table lookup per character
// instead of a regular expression over the part.
const B64URL_VALUE = new Uint8Array(128).fill(255);
for (let i = 0; i < B64URL_ALPHABET.length; i++) B64URL_VALUE[B64URL_ALPHABET.charCodeAt(i)] = i;

/** Ciphertext and tag of one A256CBC-HS512 encryption. */
export interface Sealed {
  ciphertext: Uint8Array;
  tag: Uint8Array;
}

function checkKey(key: Uint8Array): void {
  if (!(key instanceof Uint8Array) || key.byteLength !== KEY_BYTES) {
    throw new JweError('ERR_JWE_KEY', `A256CBC-HS512 needs a ${KEY_BYTES}-byte key`);
  }
}

// RFC 7518 §5.2.2.1 step 5: the MAC covers AAD ‖ IV ‖ CT ‖ AL, AL being the AAD length in bits (64-bit big-endian).
function aadLength(aad: Uint8Array): Buffer {
  const al = Buffer.alloc(8);
  al.writeBigUInt64BE(BigInt(aad.byteLength) * 8n);
  return al;
}

function computeTag(macKey: Uint8Array, aad: Uint8Array, iv: Uint8Array, ciphertext: Uint8Array, al: Uint8Array = aadLength(aad)): Buffer {
  return createHmac('sha512', macKey).update(aad).update(iv).update(ciphertext).update(al).digest().subarray(0, TAG_BYTES);
}

/**
 * The AEAD primitive AES_256_CBC_HMAC_SHA_512 of RFC 7518 §5.2.5, exposed for the RFC's known-answer test.
 * @internal
 */
export function sealA256CbcHs512(key: Uint8Array, iv: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): Sealed {
  checkKey(key);
  if (iv.byteLength !== IV_BYTES) throw new JweError('ERR_JWE_INVALID', `the IV must be ${IV_BYTES} bytes`);
  const cipher = createCipheriv('aes-256-cbc', key.subarray(32), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { ciphertext, tag: computeTag(key.subarray(0, 32), aad, iv, ciphertext) };
}

/**
 * Inverse of {@link sealA256CbcHs512}; the tag is verified before any decryption.
 * @internal
 */
export function openA256CbcHs512(key: Uint8Array, iv: Uint8Array, ciphertext: Uint8Array, tag: Uint8Array, aad: Uint8Array, al?: Uint8Array): Uint8Array {
  checkKey(key);
  const expected = computeTag(key.subarray(0, 32), aad, iv, ciphertext, al);
  // Compare before decrypting: a padding error reached without a valid tag would be a padding oracle.
  if (tag.byteLength !== TAG_BYTES || !timingSafeEqual(expected, tag)) {
    throw new JweError('ERR_JWE_DECRYPTION_FAILED', 'decryption failed');
  }
  if (iv.byteLength !== IV_BYTES || ciphertext.byteLength === 0 || ciphertext.byteLength % BLOCK_BYTES !== 0) {
    throw new JweError('ERR_JWE_DECRYPTION_FAILED', 'decryption failed');
  }
  return withoutPadding(decryptCbc(key, iv, ciphertext));
}

/** A key's AES-256-CBC decipher, kept open (see {@link decryptCbc}), and the key bytes it was made from. */
interface OpenDecipher {
  decipher: Decipher;
  keyBytes: Buffer;
}
const decipherByKey = new WeakMap<Uint8Array, OpenDecipher>();

// One decipher per key, kept open without padding and never finished: creating one costs more than the AES it does.
// CBC decryption chains only on the previous ciphertext block, so decrypting the IV as a block first (its output
// thrown away) sets the chain to it, and the next update decrypts the message exactly as a fresh decipher would.
// Callers pass whole blocks only, so nothing is ever left buffered from one message to the next.
function decryptCbc(key: Uint8Array, iv: Uint8Array, ciphertext: Uint8Array): Buffer {
  const aesKey = key.subarray(32);
  let open = decipherByKey.get(key);
  // The same array with other bytes in it is another key.
  if (!open || !open.keyBytes.equals(aesKey)) {
    const decipher = createDecipheriv('aes-256-cbc', aesKey, Buffer.alloc(IV_BYTES)).setAutoPadding(false);
    decipherByKey.set(key, (open = { decipher, keyBytes: Buffer.from(aesKey) }));
  }
  open.decipher.update(iv);
  return open.decipher.update(ciphertext);
}

// PKCS#7 (RFC 5652 §6.3): the last byte says how many bytes of padding there are, each holding that number. Only
// reached with a valid tag, i.e. a bad padding comes from someone holding the key, so no oracle is offered.
function withoutPadding(padded: Buffer): Buffer {
  const pad = padded[padded.byteLength - 1];
  let bad = pad === 0 || pad > BLOCK_BYTES;
  for (let i = padded.byteLength - pad; !bad && i < padded.byteLength; i++) bad = padded[i] !== pad;
  if (bad) throw new JweError('ERR_JWE_DECRYPTION_FAILED', 'decryption failed');
  return padded.subarray(0, padded.byteLength - pad);
}

// Node's base64url decoder skips stray characters and ignores leftover bits, so two different strings could
// decode to the same bytes; a token must have exactly one spelling, or a flipped bit could go unnoticed.
function decodePart(part: string, what: string): Buffer {
  const rem = part.length % 4;
  let last = 0;
  for (let i = 0; i < part.length; i++) {
    const code = part.charCodeAt(i);
    last = code < 128 ? B64URL_VALUE[code] : 255;
    if (last === 255) throw new JweError('ERR_JWE_INVALID', `${what} is not base64url`);
  }
  if (rem === 1) throw new JweError('ERR_JWE_INVALID', `${what} is not base64url`);
  if (rem !== 0 && (last & ((1 << (rem === 2 ? 4 : 2)) - 1)) !== 0) throw new JweError('ERR_JWE_INVALID', `${what} is not canonical base64url`);
  return Buffer.from(part, 'base64url');
}

/** A protected header as read once: the parsed object (frozen), the AAD bytes and their length block. */
interface ParsedHeader {
  header: JweHeader;
  aad: Buffer;
  al: Buffer;
}

// Every token under one key carries the same protected header, so the parse, the AAD bytes and the AAD length are
// kept per exact header text. Bounded: a handful of (alg, enc, kid) combinations exist; junk headers from attackers
// only cycle the oldest entry out. Only headers that parsed and passed the checks are kept.
const HEADER_CACHE_LIMIT = 32;
const parsedHeaders = new Map<string, ParsedHeader>();

function readHeader(part: string): ParsedHeader {
  const hit = parsedHeaders.get(part);
  if (hit) return hit;
  const header = Object.freeze(parseHeader(part));
  if (header.alg !== ALG || header.enc !== ENC) throw new JweError('ERR_JWE_NOT_SUPPORTED', `only "${ALG}" with "${ENC}" is supported`);
  const aad = Buffer.from(part, 'ascii');
  const parsed = { header, aad, al: aadLength(aad) };
  if (parsedHeaders.size >= HEADER_CACHE_LIMIT) parsedHeaders.delete(parsedHeaders.keys().next().value as string);
  parsedHeaders.set(part, parsed);
  return parsed;
}

function parseHeader(part: string): JweHeader {
  let header: unknown;
  try {
    header = JSON.parse(decodePart(part, 'the protected header').toString('utf8'));
  } catch (e) {
    if (e instanceof JweError) throw e;
    throw new JweError('ERR_JWE_INVALID', 'the protected header is not JSON');
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw new JweError('ERR_JWE_INVALID', 'the protected header is not a JSON object');
  }
  checkHeaderParams(header as Record<string, unknown>);
  if ('kid' in header && typeof header.kid !== 'string') throw new JweError('ERR_JWE_INVALID', '"kid" must be a string');
  return header as JweHeader;
}

function checkHeaderParams(header: Record<string, unknown>): void {
  if (header.alg !== undefined && header.alg !== ALG) throw new JweError('ERR_JWE_NOT_SUPPORTED', `"alg" must be "${ALG}"`);
  if (header.enc !== undefined && header.enc !== ENC) throw new JweError('ERR_JWE_NOT_SUPPORTED', `"enc" must be "${ENC}"`);
  // `zip` would make the length of the ciphertext leak the plaintext's content; `crit` names extensions we do not honour.
  if ('zip' in header) throw new JweError('ERR_JWE_NOT_SUPPORTED', '"zip" is not supported');
  if ('crit' in header) throw new JweError('ERR_JWE_NOT_SUPPORTED', '"crit" is not supported');
}

/** Test-only knobs of {@link encryptJwe}. */
export interface EncryptJweOptions {
  /** @internal Fixed IV for known-answer tests; never set it in production, an IV must not repeat under a key. */
  iv?: Uint8Array;
}

/**
 * Encrypts `plaintext` into a compact JWE (`alg: "dir"`, `enc: "A256CBC-HS512"`) under a 64-byte key.
 * `header` adds protected parameters such as `kid`; `alg` and `enc` are always ours.
 *
 * @example
 * const jwe = encryptJwe(new TextEncoder().encode('{"sub":"1"}'), key, { kid })
 */
export function encryptJwe(plaintext: Uint8Array, key: Uint8Array, header: Record<string, unknown> = {}, options: EncryptJweOptions = {}): string {
  checkKey(key);
  const full: Record<string, unknown> = { alg: ALG, enc: ENC };
  for (const [name, value] of Object.entries(header)) {
    if (name !== 'alg' && name !== 'enc') full[name] = value;
  }
  checkHeaderParams(full);
  const encodedHeader = Buffer.from(JSON.stringify(full), 'utf8').toString('base64url');
  const iv = options.iv ?? randomBytes(IV_BYTES);
  // RFC 7516 §5.1 step 14: the AAD is the ASCII of the encoded header, not the header bytes.
  const { ciphertext, tag } = sealA256CbcHs512(key, iv, plaintext, Buffer.from(encodedHeader, 'ascii'));
  return `${encodedHeader}..${Buffer.from(iv).toString('base64url')}.${Buffer.from(ciphertext).toString('base64url')}.${Buffer.from(tag).toString('base64url')}`;
}

/**
 * Opens a compact JWE. `selectKey` sees the validated protected header (e.g. its `kid`) and returns the 64-byte
 * key, or `undefined` when it has none. Throws {@link JweError} on any failure.
 *
 * @example
 * const { plaintext, header } = decryptJwe(jwe, (h) => (h.kid === kid ? key : undefined))
 */
export function decryptJwe(jwe: string, selectKey: (header: JweHeader) => Uint8Array | undefined): { plaintext: Uint8Array; header: JweHeader } {
  if (typeof jwe !== 'string') throw new JweError('ERR_JWE_INVALID', 'a JWE must be a string');
  const parts = jwe.split('.');
  if (parts.length !== 5) throw new JweError('ERR_JWE_INVALID', 'a compact JWE has five parts');
  const [headerPart, encryptedKey, ivPart, ciphertextPart, tagPart] = parts;
  const { header, aad, al } = readHeader(headerPart);
  if (encryptedKey !== '') throw new JweError('ERR_JWE_INVALID', 'with "dir" the encrypted key must be empty');
  const iv = decodePart(ivPart, 'the IV');
  const ciphertext = decodePart(ciphertextPart, 'the ciphertext');
  const tag = decodePart(tagPart, 'the tag');
  if (iv.byteLength !== IV_BYTES) throw new JweError('ERR_JWE_INVALID', `the IV must be ${IV_BYTES} bytes`);
  if (tag.byteLength !== TAG_BYTES) throw new JweError('ERR_JWE_INVALID', `the tag must be ${TAG_BYTES} bytes`);
  if (ciphertext.byteLength === 0 || ciphertext.byteLength % BLOCK_BYTES !== 0) {
    throw new JweError('ERR_JWE_INVALID', 'the ciphertext is not a whole number of AES blocks');
  }
  const key = selectKey(header);
  if (key === undefined) throw new JweError('ERR_JWE_KEY', 'no key for this JWE');
  const plaintext = openA256CbcHs512(key, iv, ciphertext, tag, aad, al);
  return { plaintext, header };
}
