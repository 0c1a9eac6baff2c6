// Splits a value too large for one cookie across `name.0`, `name.1`, … and reassembles it, clearing stale pieces.
// Browsers drop a cookie whose Set-Cookie line passes 4096 bytes, so the budget is measured on the serialized line.

import { formatSetCookie, URI_SAFE } from '../core/cookie-syntax.js';
import { defaultCookies, type CookieOptions, type CookieToSet } from '../core/cookies.js';

/** Largest Set-Cookie line (name, value and attributes) we write, in bytes. */
export const MAX_COOKIE_BYTES = 4096;

const CHUNK_INDEX = /^(?:0|[1-9][0-9]{0,5})$/;

/**
 * Bytes of the Set-Cookie line for `name` with an empty value: what a value may not use.
 * `Path=/` is counted even when absent because h3's `setCookie` adds it.
 * @internal
 */
export function cookieOverhead(name: string, options: CookieOptions): number {
  const line = formatSetCookie({ ...options, path: options.path ?? '/', name, value: '' });
  return Buffer.byteLength(line, 'utf8');
}

/**
 * Value bytes that fit in one session-cookie chunk with the default attributes at their longest: the `__Secure-`
 * name with a two-digit chunk index, a ten-digit `Max-Age` and an `Expires`. {@link chunkCookie} measures each
 * cookie's own name and options instead, so this is a floor for callers that only need an estimate.
 */
export const CHUNK_SIZE: number = (() => {
  const { name, options } = defaultCookies(true).sessionToken;
  return MAX_COOKIE_BYTES - cookieOverhead(`${name}.99`, { ...options, maxAge: 2 ** 31 - 1, expires: new Date(0) });
})();

// Cuts at code-point boundaries: a lone surrogate makes encodeURIComponent throw.
function split(value: string, budget: (index: number) => number): string[] {
  const pieces: string[] = [];
  if (URI_SAFE.test(value)) {
    for (let start = 0; start < value.length; ) {
      const size = budget(pieces.length);
      pieces.push(value.slice(start, start + size));
      start += size;
    }
    return pieces;
  }
  let piece = '';
  let bytes = 0;
  for (const char of value) {
    const size = encodeURIComponent(char).length;
    if (bytes + size > budget(pieces.length) && piece !== '') {
      pieces.push(piece);
      piece = '';
      bytes = 0;
    }
    piece += char;
    bytes += size;
  }
  pieces.push(piece);
  return pieces;
}

function valueBytes(value: string): number {
  return URI_SAFE.test(value) ? value.length : encodeURIComponent(value).length;
}

/** Names in `requestCookies` that belong to `name`: itself and its well-formed chunks `name.N`. */
function ownCookieNames(name: string, requestCookies: Record<string, string | undefined>): string[] {
  const prefix = `${name}.`;
  return Object.keys(requestCookies).filter(
    (key) => key === name || (key.startsWith(prefix) && CHUNK_INDEX.test(key.slice(prefix.length))),
  );
}

function clearing(name: string, options: CookieOptions): CookieToSet {
  const { expires: _expires, ...rest } = options;
  return { name, value: '', options: { ...rest, maxAge: 0 } };
}

/**
 * The cookies that store `value` under `name`: one cookie when its Set-Cookie line fits in 4096 bytes, else
 * `name.0`, `name.1`, … each within the limit. Cookies of `name` in the request that this write does not
 * replace are cleared, so a shrinking session leaves no stale chunk behind.
 *
 * @example
 * for (const c of chunkCookie('authchart.session-token', jwe, options, parseCookieHeader(req.headers.cookie ?? ''))) setCookie(event, c.name, c.value, c.options)
 */
export function chunkCookie(name: string, value: string, options: CookieOptions, requestCookies: Record<string, string | undefined>): CookieToSet[] {
  let written: CookieToSet[];
  if (cookieOverhead(name, options) + valueBytes(value) <= MAX_COOKIE_BYTES) {
    written = [{ name, value, options }];
  } else {
    const budget = (index: number): number => {
      const room = MAX_COOKIE_BYTES - cookieOverhead(`${name}.${index}`, options);
      // Encoded characters take up to 12 bytes (a 4-byte code point as %XX%XX%XX%XX); less room cannot progress.
      if (room < 12) throw new RangeError(`cookie "${name}": its name and attributes leave no room for a value`);
      return room;
    };
    written = split(value, budget).map((piece, index) => ({ name: `${name}.${index}`, value: piece, options }));
  }
  const writtenNames = new Set(written.map((c) => c.name));
  const stale = ownCookieNames(name, requestCookies).filter((n) => !writtenNames.has(n));
  return [...written, ...stale.map((n) => clearing(n, options))];
}

/**
 * The value stored under `name`: the plain cookie if present, else its chunks `name.0` … `name.N` joined in
 * numeric order. A chunk set with a gap, or one not starting at 0, is incomplete and yields `undefined`.
 *
 * @example
 * const jwe = readChunked('authchart.session-token', parseCookieHeader(req.headers.cookie ?? ''))
 */
export function readChunked(name: string, requestCookies: Record<string, string | undefined>): string | undefined {
  const plain = requestCookies[name];
  if (plain) return plain;
  const prefix = `${name}.`;
  const chunks: string[] = [];
  let count = 0;
  for (const key of Object.keys(requestCookies)) {
    if (!key.startsWith(prefix)) continue;
    const suffix = key.slice(prefix.length);
    if (!CHUNK_INDEX.test(suffix)) continue;
    chunks[Number(suffix)] = requestCookies[key] ?? '';
    count++;
  }
  // A sparse array has fewer entries than its length: some chunk between 0 and the last is missing.
  if (count === 0 || count !== chunks.length) return undefined;
  return chunks.join('');
}

/**
 * Clears the plain cookie `name` and every chunk of it present in the request (sign-out, bad session).
 *
 * @example
 * for (const c of clearChunked('authchart.session-token', options, cookies)) setCookie(event, c.name, c.value, c.options)
 */
export function clearChunked(name: string, options: CookieOptions, requestCookies: Record<string, string | undefined>): CookieToSet[] {
  return ownCookieNames(name, requestCookies).map((n) => clearing(n, options));
}
