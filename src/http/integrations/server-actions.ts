// signIn, signOut and unstable_update called from server code (spec section 4.2): each posts to authchart's own
// route as the browser would, with a freshly minted CSRF pair, and hands the cookies that route set to the response
// being built: the request scope's, `responseHeaders`, or the redirect it returns.
import { AuthError, CallbackRouteError, CredentialsSignin, MissingRequestContext, errorClassesByType } from '../../core/errors.js';
import type { Session, User } from '../../core/types.js';
import type { ProviderId } from '../../providers/provider-ids.js';
import type { ResolvingAuthInstance } from '../auth.js';
import { mintCsrf } from '../csrf.js';
import { AuthResponse } from '../../core/fast-response.js';
import { cookieOptionsFor, detectOrigin, requestUrl } from '../request.js';
import { addScopeCookies, currentScope, type RequestScope } from './request-scope.js';
import { isWebRequest } from './session-helpers.js';

export interface SignInOptions {
  /** The incoming request (its cookies and origin). Inside authchart's middleware or a wrapped handler, that request. */
  request?: Request;
  /** Default true: a 302 Response to return. False: the URL to send the browser to. */
  redirect?: boolean;
  /** Where the user lands afterwards; default the current page. */
  redirectTo?: string;
  /** The headers of the response you are building, to receive the Set-Cookie lines (outside a request scope). */
  responseHeaders?: Headers;
  /** Any other field is sent to the provider's route (credentials, e-mail address). */
  [field: string]: unknown;
}

export interface SignOutOptions {
  request?: Request;
  /** Default true: a 302 Response to return. False: the URL to send the browser to. */
  redirect?: boolean;
  /** Where the user lands afterwards; default the current page. */
  redirectTo?: string;
  responseHeaders?: Headers;
}

export type AuthorizationParams = string | Record<string, string> | URLSearchParams | string[][];
export type SessionUpdate = Partial<Session> | { user: Partial<User> } | Record<string, unknown>;

export interface ServerActions {
  /**
   * Starts a sign-in (OAuth, e-mail) or signs in (credentials). `redirect: false` resolves to the URL to send the
   * browser to; otherwise a 302 Response. On failure an AuthError is thrown.
   *
   * @example
   * const url = await signIn('credentials', { email, password, redirect: false })
   */
  signIn(provider: ProviderId | undefined, options: SignInOptions & { redirect: false }, authorizationParams?: AuthorizationParams): Promise<string>;
  signIn(provider?: ProviderId, options?: SignInOptions & { redirect?: true }, authorizationParams?: AuthorizationParams): Promise<Response>;
  signIn(provider?: ProviderId, options?: SignInOptions | FormData, authorizationParams?: AuthorizationParams): Promise<Response | string>;
  /**
   * Ends the session (database row removed, cookie cleared). `redirect: false` resolves to the URL to send the
   * browser to; otherwise a 302 Response.
   *
   * @example
   * const url = await signOut({ redirect: false })
   */
  signOut(options: SignOutOptions & { redirect: false }): Promise<string>;
  signOut(options?: SignOutOptions & { redirect?: true }): Promise<Response>;
  signOut(options?: SignOutOptions): Promise<Response | string>;
  /**
   * Updates the session through the `jwt`/`session` callbacks (`trigger: 'update'`) and re-issues its cookie.
   * `unstable_update(data)` works on the request being answered; outside one, pass it and the response headers.
   *
   * @example
   * const session = await unstable_update({ user: { name: 'Ada' } })
   */
  unstable_update(data: SessionUpdate): Promise<Session | null>;
  unstable_update(request: Request, data: SessionUpdate, responseHeaders?: Headers): Promise<Session | null>;
}

/** Turns an error redirect from our own routes (error or sign-in page with `?error=`) back into its AuthError. */
function errorOf(location: string | null, pages: string[]): AuthError | undefined {
  if (!location) return undefined;
  const url = new URL(location, 'http://x');
  const type = url.searchParams.get('error');
  if (!type || !pages.includes(url.pathname)) return undefined;
  const Cls = errorClassesByType.get(type) ?? CallbackRouteError;
  const error = new Cls(type === 'Configuration' ? 'Sign-in failed; see the server log.' : type);
  const code = url.searchParams.get('code');
  if (error instanceof CredentialsSignin && code) error.code = code;
  return error;
}

/** The page the browser is on, as it sees it (behind a proxy `request.url` names the internal host). */
function currentPage(request: Request, origin: string): string {
  const url = requestUrl(request);
  return `${origin}${url.pathname}${url.search}`;
}

/** Hands Set-Cookie lines to the response being built: the caller's headers, else the request scope's. */
function deliver(lines: string[], headers: Headers | undefined, scope: RequestScope | undefined): void {
  if (headers) for (const line of lines) headers.append('set-cookie', line);
  else if (scope) addScopeCookies(scope, lines);
}

function redirectResponse(url: string, lines: string[]): Response {
  const headers = new Headers({ location: url });
  for (const line of lines) headers.append('set-cookie', line);
  return new AuthResponse(null, { status: 302, headers });
}

/** A FormData's `redirect` arrives as text. */
function wantsRedirect(value: unknown): boolean {
  return value !== false && value !== 'false';
}

export function createServerActions(instance: ResolvingAuthInstance): ServerActions {
  /** Posts to one of our routes as the browser would, with a freshly minted CSRF pair. */
  async function post(request: Request | undefined, origin: string, path: string, body: URLSearchParams | string, json = false): Promise<Response> {
    const { config: resolved } = await instance.resolve(request);
    const csrfPair = mintCsrf(resolved.secrets[0]);
    const csrfName = cookieOptionsFor(resolved, origin.startsWith('https:')).csrfToken.name;
    // The browser's own CSRF cookie must not shadow the minted one (the first cookie of a name wins).
    const kept = (request?.headers.get('cookie') ?? '').split(';').map((c) => c.trim()).filter((c) => c && c.split('=', 1)[0]!.trim() !== csrfName);
    const cookie = [...kept, `${csrfName}=${encodeURIComponent(csrfPair.cookieValue)}`].join('; ');
    let payload: string;
    if (json) payload = JSON.stringify({ ...JSON.parse(body as string), csrfToken: csrfPair.token });
    else {
      (body as URLSearchParams).set('csrfToken', csrfPair.token);
      payload = body.toString();
    }
    return instance.handle(new Request(`${origin}${resolved.basePath}${path}`, {
      method: 'POST',
      headers: { cookie, 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded', 'x-auth-return-redirect': '1' },
      body: payload,
    }));
  }

  /** The request a call works on: the one given, else the scope's; and its origin. */
  async function target(given: Request | undefined, what: string, needsRequest: boolean) {
    const scope = currentScope();
    const request = given ?? scope?.request;
    const { config } = await instance.resolve(request);
    const origin = request ? detectOrigin(request, config) : config.url?.origin;
    if (!origin || (needsRequest && !request)) {
      throw new MissingRequestContext(
        `${what} needs the request it answers: call it below \`auth\` used as middleware or inside a handler wrapped with auth(...), or pass { request }` +
          (needsRequest ? '.' : ' (or set AUTH_URL and give redirectTo).'),
      );
    }
    return { scope, request, config, origin };
  }

  async function signIn(provider?: string, options?: SignInOptions | FormData, authorizationParams?: AuthorizationParams): Promise<Response | string> {
    const opts: SignInOptions = options instanceof FormData ? Object.fromEntries(options.entries()) : options ?? {};
    const { request: given, redirect, redirectTo, responseHeaders, ...fields } = opts;
    const { scope, request, config, origin } = await target(given, 'signIn()', false);
    const callbackUrl = redirectTo ?? (request ? currentPage(request, origin) : undefined);
    if (callbackUrl === undefined) {
      throw new MissingRequestContext('signIn() returns the user to the current page, and there is no request here: pass redirectTo, or call it while answering a request.');
    }
    if (!provider) {
      const url = new URL(config.pages.signIn ?? `${config.basePath}/signin`, origin);
      url.searchParams.set('callbackUrl', callbackUrl);
      return wantsRedirect(redirect) ? redirectResponse(url.href, []) : url.href;
    }
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) if (typeof v === 'string') body.set(k, v);
    body.set('callbackUrl', callbackUrl);
    const query = authorizationParams ? `?${new URLSearchParams(authorizationParams as Record<string, string>)}` : '';
    const path = config.providersById.get(provider)?.type === 'credentials' ? `/callback/${provider}` : `/signin/${provider}${query}`;
    const response = await post(request, origin, path, body);
    const lines = response.headers.getSetCookie();
    const location = response.headers.get('location') ?? (((await response.clone().json().catch(() => ({}))) as { url?: string }).url ?? null);
    const pages = [config.pages.error ?? `${config.basePath}/error`, config.pages.signIn ?? `${config.basePath}/signin`].map((p) => new URL(p, 'http://x').pathname);
    const error = errorOf(location, pages);
    if (error) throw error;
    const { url } = (await response.json()) as { url: string };
    deliver(lines, responseHeaders, scope);
    // A credentials sign-in changed the session: the next auth() reads it again.
    scope?.sessions.delete(instance);
    return wantsRedirect(redirect) ? redirectResponse(url, lines) : url;
  }

  async function signOut(options: SignOutOptions = {}): Promise<Response | string> {
    const { scope, request, origin } = await target(options.request, 'signOut()', true);
    const body = new URLSearchParams({ callbackUrl: options.redirectTo ?? currentPage(request!, origin) });
    const response = await post(request, origin, '/signout', body);
    const lines = response.headers.getSetCookie();
    const { url } = (await response.json()) as { url: string };
    deliver(lines, options.responseHeaders, scope);
    scope?.sessions.set(instance, Promise.resolve(null));
    return wantsRedirect(options.redirect) ? redirectResponse(url, lines) : url;
  }

  async function unstable_update(...args: [SessionUpdate] | [Request, SessionUpdate, Headers?]): Promise<Session | null> {
    const explicit = args.length > 1 || isWebRequest(args[0] as Request);
    const [given, data, headers] = explicit ? (args as [Request, SessionUpdate, Headers?]) : [undefined, args[0] as SessionUpdate, undefined];
    const { scope, request, origin } = await target(given, 'unstable_update(data)', true);
    const response = await post(request, origin, '/session', JSON.stringify({ data }), true);
    if (!response.ok) return null;
    // The updated token lives in the re-issued cookie: without it the browser keeps the old session.
    deliver(response.headers.getSetCookie(), headers, scope);
    const session = (await response.json()) as Session | null;
    scope?.sessions.set(instance, Promise.resolve(session));
    return session;
  }

  return { signIn, signOut, unstable_update } as ServerActions;
}
