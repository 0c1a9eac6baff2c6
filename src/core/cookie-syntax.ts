// The two cookie headers as text (RFC 6265): reading a `Cookie` header into names and values, writing one
// `Set-Cookie` line. Plain ESM of our own rather than the `cookie` package, which Node can only load as CommonJS: the
// first CommonJS module of a process costs a cold start more than this whole file does.
import type { CookieOptions } from './cookies.js';

/** A cookie-name is an RFC 7230 token: visible ASCII except separators. */
const NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A Domain attribute: dot-separated letter-digit-hyphen labels, an optional leading dot (which browsers ignore). */
const DOMAIN = /^\.?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
/** A Path attribute: any character but controls and `;`, which would end the attribute. */
const PATH = /^[\u0020-\u003A\u003C-\u007E]*$/;
const SAME_SITE = { lax: 'Lax', strict: 'Strict', none: 'None' } as const;
/** The characters encodeURIComponent keeps as they are: a value made only of these (every JWE) is sent unchanged. */
export const URI_SAFE = /^[A-Za-z0-9\-_.!~*'()]*$/;

/**
 * The parsed cookies' object: made by a constructor whose prototype has none, so it has no inherited properties yet
 * keeps V8's fast properties (an Object.create(null) object starts in slow dictionary mode).
 */
const Cookies = function () {} as unknown as new () => Record<string, string>;
Cookies.prototype = Object.create(null) as object;

/** A value as sent: percent-decoded when it holds an escape, kept as it is when the escape is malformed. */
function decodeValue(raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * The cookies of a `Cookie` header by name. The first of a repeated name wins; a piece without `=` is skipped;
 * blanks and tabs around names and values are dropped. The result has no prototype: a cookie named `constructor` or
 * `__proto__` is data, not a property of Object.
 *
 * @example
 * parseCookieHeader('a=1; b=x%20y') // { a: '1', b: 'x y' }
 */
export function parseCookieHeader(header: string): Record<string, string> {
  const cookies = new Cookies();
  // Scans the header in place (a session token is most of it): no array of pieces, one slice per name and value.
  for (let start = 0; start < header.length; ) {
    let end = header.indexOf(';', start);
    if (end === -1) end = header.length;
    const eq = header.indexOf('=', start);
    if (eq !== -1 && eq < end) {
      const name = trimmed(header, start, eq);
      if (name !== '' && cookies[name] === undefined) cookies[name] = decodeValue(trimmed(header, eq + 1, end));
    }
    start = end + 1;
  }
  return cookies;
}

/** `text.slice(from, to)` without the blanks and tabs at either end. */
function trimmed(text: string, from: number, to: number): string {
  while (from < to && isBlank(text.charCodeAt(from))) from++;
  while (to > from && isBlank(text.charCodeAt(to - 1))) to--;
  return text.slice(from, to);
}

const isBlank = (code: number) => code === 0x20 || code === 0x09;

/** What one Set-Cookie line says: the cookie and its attributes. */
export interface SetCookie extends CookieOptions {
  name: string;
  value: string;
}

/**
 * One `Set-Cookie` line: `name=value` (the value percent-encoded), then Max-Age, Domain, Path, Expires, HttpOnly,
 * Secure and SameSite when given. Throws a TypeError for anything that could not be sent as it is: a name that is not
 * a token, a Domain or Path that would break the line, a Max-Age that is not an integer, an invalid date.
 *
 * @example
 * formatSetCookie({ name: 'a', value: 'x y', path: '/', httpOnly: true, sameSite: 'lax' }) // 'a=x%20y; Path=/; HttpOnly; SameSite=Lax'
 */
export function formatSetCookie(cookie: SetCookie): string {
  if (!NAME.test(cookie.name)) throw new TypeError(`Invalid cookie name: ${cookie.name}`);
  // Testing is cheaper than encoding: encodeURIComponent copies even a value it leaves unchanged.
  let line = `${cookie.name}=${!cookie.value ? '' : URI_SAFE.test(cookie.value) ? cookie.value : encodeURIComponent(cookie.value)}`;
  if (cookie.maxAge !== undefined) {
    if (!Number.isInteger(cookie.maxAge)) throw new TypeError(`Invalid cookie Max-Age: ${cookie.maxAge}`);
    line += `; Max-Age=${cookie.maxAge}`;
  }
  if (cookie.domain) {
    if (!DOMAIN.test(cookie.domain)) throw new TypeError(`Invalid cookie Domain: ${cookie.domain}`);
    line += `; Domain=${cookie.domain}`;
  }
  if (cookie.path) {
    if (!PATH.test(cookie.path)) throw new TypeError(`Invalid cookie Path: ${cookie.path}`);
    line += `; Path=${cookie.path}`;
  }
  if (cookie.expires) {
    if (!(cookie.expires instanceof Date) || !Number.isFinite(cookie.expires.getTime())) throw new TypeError(`Invalid cookie Expires: ${String(cookie.expires)}`);
    line += `; Expires=${cookie.expires.toUTCString()}`;
  }
  if (cookie.httpOnly) line += '; HttpOnly';
  if (cookie.secure) line += '; Secure';
  if (cookie.sameSite) {
    const sameSite = SAME_SITE[String(cookie.sameSite).toLowerCase() as keyof typeof SAME_SITE];
    if (!sameSite) throw new TypeError(`Invalid cookie SameSite: ${String(cookie.sameSite)}`);
    line += `; SameSite=${sameSite}`;
  }
  return line;
}
