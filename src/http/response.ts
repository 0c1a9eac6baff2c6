// Building responses: cookies queued on the request context, redirects (or their JSON form for
// clients that ask for it), JSON and HTML bodies, and error redirects.
import { formatSetCookie } from '../core/cookie-syntax.js';
import type { CookieToSet } from '../core/cookies.js';
import { AuthError, CredentialsSignin, OAuthCallbackError, publicErrorType, ServiceUnavailable } from '../core/errors.js';
import { addedHeaders, bodyString, type AuthRequest } from './request.js';
import { AuthResponse } from '../core/fast-response.js';


export { setCookie, clearCookie } from '../core/request-context.js';

function setCookieLine(c: CookieToSet): string {
  return formatSetCookie({ name: c.name, value: c.value, ...c.options });
}

type HeaderList = readonly (readonly [string, string])[];

const header = (...pairs: [string, string][]): HeaderList => Object.freeze(pairs.map((p) => Object.freeze(p)));
const noCache: [string, string][] = [['cache-control', 'private, no-cache, no-store'], ['expires', '0'], ['pragma', 'no-cache']];
const JSON_TYPE: [string, string] = ['content-type', 'application/json'];
const JSON_HEADERS = header(JSON_TYPE);
const JSON_NO_CACHE_HEADERS = header(JSON_TYPE, ...noCache);
const HTML_TYPE: [string, string] = ['content-type', 'text/html; charset=utf-8'];

/**
 * Which policy a page gets. `page`: the built-in pages, whose only inline code is authchart's own `<style>` and
 * passkey script, both by nonce; images from anywhere (provider logos); forms unrestricted, because a sign-in form
 * posts to a route that redirects to the provider and browsers apply `form-action` to that redirect too.
 * `devtools`: the inspector, whose Mermaid diagrams need inline styles, and which has no form and sends no referrer.
 */
export type PageKind = 'page' | 'devtools';

/**
 * The Content-Security-Policy of a page. Without a nonce no script or style of the page may run at all.
 *
 * @example
 * contentSecurityPolicy('page', pageNonce(req)) // "default-src 'none'; script-src 'nonce-…'; …; frame-ancestors 'none'"
 */
export function contentSecurityPolicy(kind: PageKind, nonce: string | undefined): string {
  const own = nonce ? `'nonce-${nonce}'` : "'none'";
  const directives =
    kind === 'page'
      ? ["default-src 'none'", `script-src ${own}`, `style-src ${own}`, 'img-src * data:', "connect-src 'self'"]
      : ["default-src 'none'", `script-src ${own}`, "style-src 'unsafe-inline'", "img-src 'self' data:", "form-action 'none'"];
  return [...directives, "base-uri 'none'", "frame-ancestors 'none'"].join('; ');
}

/** Every header of an HTML page: its type, no caching, its policy, and no framing, sniffing or cross-site referrer. */
function pageHeaders(kind: PageKind, nonce: string | undefined): HeaderList {
  return [
    HTML_TYPE,
    ...noCache,
    ['content-security-policy', contentSecurityPolicy(kind, nonce)],
    ['x-frame-options', 'DENY'],
    ['x-content-type-options', 'nosniff'],
    // same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on the page's own form posts.
    ['referrer-policy', kind === 'page' ? 'same-origin' : 'no-referrer'],
  ];
}

function finish(req: AuthRequest, body: BodyInit | null, status: number, extra: HeaderList): Response {
  // Usually no route added headers of its own: then the response's list is built in one go, without copying an
  // empty Headers and setting into it one by one (measurable on the session route, which every page load hits).
  const added = addedHeaders(req);
  if (!added || added.keys().next().done) {
    if (!req.setCookies.length) return new AuthResponse(body, { status, headers: extra as [string, string][] });
    const list = [...extra];
    for (const c of req.setCookies) list.push(['set-cookie', setCookieLine(c)]);
    return new AuthResponse(body, { status, headers: list as [string, string][] });
  }
  const headers = new Headers(added);
  for (const [k, v] of extra) headers.set(k, v);
  for (const c of req.setCookies) headers.append('set-cookie', setCookieLine(c));
  return new AuthResponse(body, { status, headers });
}

export function json(req: AuthRequest, body: unknown, status = 200, options: { noCache?: boolean } = {}): Response {
  return jsonText(req, JSON.stringify(body), status, options);
}

/** {@link json} of a body already written as JSON text. */
export function jsonText(req: AuthRequest, text: string, status = 200, options: { noCache?: boolean } = {}): Response {
  return finish(req, text, status, options.noCache ? JSON_NO_CACHE_HEADERS : JSON_HEADERS);
}

/**
 * An HTML page with its security headers. Its scripts and styles must carry the request's nonce
 * ({@link pageNonce}): the policy allows nothing else.
 *
 * @example
 * const nonce = pageNonce(req); return html(req, renderSignOut({ ...params, nonce }))
 */
export function html(req: AuthRequest, body: string, status = 200, kind: PageKind = 'page'): Response {
  return finish(req, body, status, pageHeaders(kind, req.nonce));
}

/**
 * Whether the client reads redirects as data: `X-Auth-Return-Redirect` (next-auth v5's client, authchart/client), or
 * `json=true` in the form body, which next-auth v4's client sends instead and v4's server answered with `{ url }`.
 */
export function redirectsAsData(req: AuthRequest): boolean {
  return Boolean(req.request.headers.get('x-auth-return-redirect')) || (req.request.method === 'POST' && bodyString(req, 'json') === 'true');
}

/** Whether the client asked for JSON (fetch with `Accept: application/json`, the client library) rather than a page. */
export function wantsJson(req: AuthRequest): boolean {
  const accept = req.request.headers.get('accept') ?? '';
  return Boolean(req.request.headers.get('x-auth-return-redirect')) || (accept.includes('application/json') && !accept.includes('text/html'));
}
/** A 302, or `200 {url}` when the client asked for redirects as data ({@link redirectsAsData}). */
export function redirect(req: AuthRequest, url: string): Response {
  if (redirectsAsData(req)) return json(req, { url });
  return finish(req, null, 302, [['location', url]]);
}

/**
 * Where the browser goes for an error: the sign-in page for sign-in errors, else the error page. A provider's
 * `access_denied` answer (the user cancelled) goes on as `code=access_denied` with the provider's id, and a passkey's
 * AccountNotLinked names its provider, so the page can say what happened and where.
 */
export function errorPageUrl(req: AuthRequest, error: unknown, providerId?: string): string {
  const type = publicErrorType(error);
  const kind = error instanceof AuthError && type !== 'Configuration' ? error.kind : 'error';
  const { pages, basePath } = req.config;
  const page = kind === 'signIn' ? pages.signIn ?? `${basePath}/signin` : pages.error ?? `${basePath}/error`;
  const url = new URL(page, req.origin);
  url.searchParams.set('error', type);
  if (error instanceof CredentialsSignin && type === 'CredentialsSignin') url.searchParams.set('code', error.code);
  if (error instanceof OAuthCallbackError && type === 'OAuthCallbackError' && error.cause?.actual === 'access_denied') {
    url.searchParams.set('code', 'access_denied');
    if (providerId) url.searchParams.set('provider', providerId);
  }
  // A passkey refused for the account signed in has its own explanation on the page.
  if (type === 'AccountNotLinked' && providerId && req.config.providersById.get(providerId)?.type === 'webauthn') url.searchParams.set('provider', providerId);
  return url.href;
}

/** Logs the whole error on the server and redirects the browser to the public form of it. */
export function errorRedirect(req: AuthRequest, error: unknown, providerId?: string): Response {
  req.config.logger.error(error instanceof Error ? error : new Error(String(error)));
  return redirect(req, errorPageUrl(req, error, providerId));
}

/**
 * A store outage for a client that reads data: 503, `Retry-After`, and `{ error: 'ServiceUnavailable', message,
 * retryAfter }`, never a session of `null` that reads as signed out.
 */
export function unavailableJson(req: AuthRequest, error: ServiceUnavailable): Response {
  req.headers.set('retry-after', String(error.retryAfter));
  return json(req, { error: ServiceUnavailable.type, message: unavailableMessage, retryAfter: error.retryAfter }, 503, { noCache: true });
}

/** What a client is told during a store outage. */
export const unavailableMessage = 'Sign-in is temporarily unavailable. Try again in a few seconds.';

export const configurationErrorBody = { message: 'There was a problem with the server configuration. Check the server logs for more information.' };
