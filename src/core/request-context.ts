// The facts of one request that every layer may read, and the cookie jar its response will carry. The HTTP layer
// builds it; sessions and flows read and write it as plain data, so nothing below http/ needs to know about HTTP.
import type { InternalConfig } from './config.js';
import type { CookiesOptions, CookieToSet } from './cookies.js';
import { parseCookieHeader } from './cookie-syntax.js';

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
  /** The activity log's run of this request (src/activity/run.ts): its correlation id and the records it queued. */
  activity?: import('./activity.js').ActivityRun;
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

function queryOf(url: URL): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  // Most requests have no query; `searchParams` would build an object just to find that out.
  if (!url.search) return out;
  // The first value of a repeated query key wins; query strings are not state-changing input.
  for (const [k, v] of url.searchParams) if (!(k in out)) out[k] = v;
  return out;
}

/**
 * The request context as the HTTP layer makes it (its own module builds one per request; every layer reads it). The Request, its parsed URL and query are made on first use when
 * the integration has not made them already (the Node session check never needs them), and the response's own
 * headers too, since most responses (every session check) add none.
 */
export class RequestFacts implements RequestContext {
  config: InternalConfig;
  method: string;
  origin: string;
  authUrl: string;
  body: Record<string, unknown>;
  cookies: Record<string, string>;
  isSecure: boolean;
  cookieOptions: CookiesOptions;
  setCookies: RequestContext['setCookies'] = [];
  nonce: string | undefined = undefined;
  activity: RequestContext['activity'] = undefined;
  /** The response headers, once a route asked for them. */
  added: Headers | undefined = undefined;
  #request: Request | undefined;
  #makeRequest: (() => Request) | undefined;
  #url: URL | undefined;
  #makeUrl: ((request: Request) => URL) | undefined;
  #query: Record<string, string> | undefined = undefined;

  constructor(
    request: Request | (() => Request),
    url: URL | ((request: Request) => URL),
    method: string,
    origin: string,
    cookieHeader: string | null | undefined,
    body: Record<string, unknown>,
    config: InternalConfig,
    cookieOptions: CookiesOptions,
  ) {
    // One by one, in one order: every context gets the same shape (Object.assign measured slower here).
    if (typeof request === 'function') this.#makeRequest = request;
    else this.#request = request;
    if (typeof url === 'function') this.#makeUrl = url;
    else this.#url = url;
    this.config = config;
    this.method = method;
    this.origin = origin;
    this.authUrl = `${origin}${config.basePath}`;
    this.body = body;
    this.cookies = cookieHeader ? parseCookieHeader(cookieHeader) : {};
    this.isSecure = config.useSecureCookies ?? origin.startsWith('https:');
    this.cookieOptions = cookieOptions;
  }

  get request(): Request {
    return (this.#request ??= this.#makeRequest!());
  }

  set request(request: Request) {
    this.#request = request;
  }

  get url(): URL {
    return (this.#url ??= this.#makeUrl!(this.request));
  }

  set url(url: URL) {
    if (typeof url === 'function') this.#makeUrl = url;
    else this.#url = url;
  }

  get query(): Record<string, string> {
    return (this.#query ??= queryOf(this.url));
  }

  set query(query: Record<string, string>) {
    this.#query = query;
  }

  get headers(): Headers {
    return (this.added ??= new Headers());
  }

  set headers(headers: Headers) {
    this.added = headers;
  }
}
