// The facts of one request that every layer may read, and the cookie jar its response will carry. The HTTP layer
// builds it; sessions and flows read and write it as plain data, so nothing below http/ needs to know about HTTP.
import type { InternalConfig } from './config.js';
import type { CookiesOptions, CookieToSet } from './cookies.js';

export interface RequestContext {
  request: Request;
  config: InternalConfig;
  url: URL;
  method: string;
  /** Scheme and host the browser used (from AUTH_URL, trusted headers, or the request URL). */
  origin: string;
  /** origin + basePath: where authchart's routes live. */
  authUrl: string;
  query: Record<string, string>;
  /** Parsed form or JSON body of a POST; empty for other requests. */
  body: Record<string, unknown>;
  cookies: Record<string, string>;
  isSecure: boolean;
  cookieOptions: CookiesOptions;
  /** Cookies to write on the response, in order. */
  setCookies: CookieToSet[];
  /**
   * The headers of this request's **response** (what authchart will send back), not the request's: read the
   * request's own (`Accept`, `User-Agent`) from `request.headers`.
   */
  headers: Headers;
  /**
   * The nonce of the page this response carries, once made: `pageNonce(req)` (authchart/flow) makes it on first use,
   * and the page's security policy names it (without one, no script of the page runs).
   */
  nonce?: string;
}

/** Queues a cookie on the response; a later write of the same name replaces an earlier one. */
export function setCookie(req: RequestContext, cookie: CookieToSet): void {
  req.setCookies = req.setCookies.filter((c) => c.name !== cookie.name);
  req.setCookies.push(cookie);
}

/** Queues the removal of a cookie (`Max-Age=0`). */
export function clearCookie(req: RequestContext, name: string, options: CookieToSet['options']): void {
  setCookie(req, { name, value: '', options: { ...options, maxAge: 0, expires: undefined } });
}

/** String value of a body field, or undefined (arrays, objects and numbers are not accepted as strings). */
export function bodyString(req: RequestContext, key: string): string | undefined {
  const v = req.body[key];
  return typeof v === 'string' ? v : undefined;
}
