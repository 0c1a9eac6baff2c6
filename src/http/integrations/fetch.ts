// The fetch-based integration (`AuthInit`): route handlers on web Request/Response, the forms of
// `auth`, and server-side signIn / signOut / update that post to authchart's own routes.
import { AuthError, CallbackRouteError, CredentialsSignin, errorClassesByType } from '../../core/errors.js';
import type { Awaitable, Session } from '../../core/types.js';
import { createAuthInstance, type ConfigInput } from '../auth.js';
import { mintCsrf } from '../csrf.js';
import { cookieOptionsFor, detectOrigin } from '../request.js';
import { toRequest, type AnyRequest } from './session-helpers.js';
import { AuthResponse } from '../fast-response.js';

export type AuthenticatedRequest = Request & { auth: Session | null };
type Handler<A extends unknown[]> = (request: AuthenticatedRequest, ...rest: A) => Awaitable<Response>;

export interface SignInOptions {
  /** The incoming request (its cookies and origin); without it AUTH_URL is used. */
  request?: Request;
  /** Default true: a 302 response. False: a 200 JSON `{url}` response. */
  redirect?: boolean;
  redirectTo?: string;
  [field: string]: unknown;
}

export interface AuthInitResult {
  handlers: { GET: (request: Request) => Promise<Response>; POST: (request: Request) => Promise<Response> };
  /**
   * `auth(request)` resolves to the session; `auth(handler)` wraps a route handler, asks the
   * `authorized` callback, and puts the session on `request.auth`.
   */
  auth: {
    (request: AnyRequest): Promise<Session | null>;
    <A extends unknown[]>(handler: Handler<A>): (request: Request, ...rest: A) => Promise<Response>;
  };
  /** Middleware form: undefined to continue, or the Response the `authorized` callback decided. */
  middleware: (request: Request) => Promise<Response | undefined>;
  signIn(provider?: string, options?: SignInOptions | FormData, authorizationParams?: Record<string, string> | URLSearchParams | string | string[][]): Promise<Response>;
  signOut(options?: { request?: Request; redirect?: boolean; redirectTo?: string }): Promise<Response>;
  /**
   * Updates the session through the `jwt`/`session` callbacks (`trigger: 'update'`). Pass the headers of
   * the response you are building as `responseHeaders` to receive the re-issued session cookie.
   */
  unstable_update(request: Request, data: Partial<Session> | Record<string, unknown>, responseHeaders?: Headers): Promise<Session | null>;
}

/** Adds Set-Cookie lines to a response, copying it when its headers are immutable (`Response.redirect()`). */
export function appendCookies(response: Response, lines: string[]): Response {
  if (!lines.length) return response;
  try {
    for (const line of lines) response.headers.append('set-cookie', line);
    return response;
  } catch {
    // Immutable headers (e.g. a fetched Response): copy it.
    const copy = new Response(response.body, response);
    for (const line of lines) copy.headers.append('set-cookie', line);
    return copy;
  }
}

/** Turns an error redirect from our own routes (error or sign-in page with `?error=`) back into its AuthError. */
function errorOf(location: string | null, pages: string[]): AuthError | undefined {
  if (!location) return undefined;
  const url = new URL(location, 'http://x');
  const type = url.searchParams.get('error');
  if (!type || !pages.includes(url.pathname)) return undefined;
  const Cls = errorClassesByType.get(type) ?? CallbackRouteError;
  const error = new Cls(type === 'Configuration' ? 'Sign-in failed; see the server log.' : type);
  const code = new URL(location, 'http://x').searchParams.get('code');
  if (error instanceof CredentialsSignin && code) error.code = code;
  return error;
}

/**
 * The fetch-based integration.
 *
 * @example
 * export const { handlers: { GET, POST }, auth, signIn, signOut } = AuthInit({ providers: [Credentials({ authorize })] })
 */
export function AuthInit(config: ConfigInput): AuthInitResult {
  const instance = createAuthInstance(config, { defaultBasePath: '/api/auth' });
  const handle = (request: Request) => instance.handle(request);

  const decide = (request: Request) => instance.authorize(request);

  function auth(input: AnyRequest | Handler<unknown[]>): unknown {
    if (typeof input === 'function') {
      return async (request: Request, ...rest: unknown[]) => {
        const { session, setCookie, verdict } = await decide(request);
        if (verdict) return appendCookies(verdict, setCookie);
        const response = await input(Object.assign(request, { auth: session }), ...rest);
        return appendCookies(response, setCookie);
      };
    }
    return instance.readSession(toRequest(input)).then((r) => r.session);
  }

  /** Posts to one of our routes as the browser would, with a freshly minted CSRF pair. */
  async function post(request: Request | undefined, path: string, body: URLSearchParams | string, json = false): Promise<Response> {
    const { config: resolved } = await instance.resolve(request);
    const origin = request ? detectOrigin(request, resolved) : resolved.url?.origin;
    if (!origin) throw new AuthError('signIn/signOut need the incoming request (or AUTH_URL) to know the origin.');
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
    return handle(new Request(`${origin}${resolved.basePath}${path}`, {
      method: 'POST',
      headers: { cookie, 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded', 'x-auth-return-redirect': '1' },
      body: payload,
    }));
  }

  /** Our routes answer `{url}` to X-Auth-Return-Redirect; turn that into what the caller asked for. */
  async function asRedirect(response: Response, wantRedirect: boolean): Promise<Response> {
    const { url } = (await response.json()) as { url: string };
    const headers = new Headers();
    for (const line of response.headers.getSetCookie()) headers.append('set-cookie', line);
    if (wantRedirect) {
      headers.set('location', url);
      return new AuthResponse(null, { status: 302, headers });
    }
    headers.set('content-type', 'application/json');
    return new AuthResponse(JSON.stringify({ url }), { status: 200, headers });
  }

  return {
    handlers: { GET: handle, POST: handle },
    auth: auth as AuthInitResult['auth'],
    middleware: async (request) => {
      const { setCookie, verdict } = await decide(request);
      return verdict ? appendCookies(verdict, setCookie) : undefined;
    },
    async signIn(provider, options, authorizationParams) {
      const opts: SignInOptions = options instanceof FormData ? Object.fromEntries(options.entries()) : options ?? {};
      const { request, redirect: wantRedirect = true, redirectTo, ...fields } = opts;
      const { config: resolved } = await instance.resolve(request);
      if (!provider) {
        const url = new URL(resolved.pages.signIn ?? `${resolved.basePath}/signin`, request ? detectOrigin(request, resolved) : resolved.url?.origin);
        if (redirectTo) url.searchParams.set('callbackUrl', redirectTo);
        return wantRedirect ? Response.redirect(url.href, 302) : Response.json({ url: url.href });
      }
      const target = resolved.providersById.get(provider);
      const body = new URLSearchParams();
      for (const [k, v] of Object.entries(fields)) if (typeof v === 'string') body.set(k, v);
      body.set('callbackUrl', redirectTo ?? request?.url ?? '/');
      const query = authorizationParams ? `?${new URLSearchParams(authorizationParams as Record<string, string>)}` : '';
      const path = target?.type === 'credentials' ? `/callback/${provider}` : `/signin/${provider}${query}`;
      const response = await post(request, path, body);
      const location = response.headers.get('location') ?? (((await response.clone().json().catch(() => ({}))) as { url?: string }).url ?? null);
      const error = errorOf(location, [resolved.pages.error ?? `${resolved.basePath}/error`, resolved.pages.signIn ?? `${resolved.basePath}/signin`].map((p) => new URL(p, 'http://x').pathname));
      if (error) throw error;
      return asRedirect(response, wantRedirect);
    },
    async signOut(options = {}) {
      const body = new URLSearchParams({ callbackUrl: options.redirectTo ?? options.request?.url ?? '/' });
      return asRedirect(await post(options.request, '/signout', body), options.redirect ?? true);
    },
    async unstable_update(request, data, responseHeaders) {
      const response = await post(request, '/session', JSON.stringify({ data }), true);
      if (!response.ok) return null;
      // The updated token lives in the re-issued cookie: without it the browser keeps the old session.
      if (responseHeaders) for (const line of response.headers.getSetCookie()) responseHeaders.append('set-cookie', line);
      return (await response.json()) as Session | null;
    },
  };
}
