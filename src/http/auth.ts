// One authchart instance for every integration: resolves the configuration (once, or per request
// for lazy configs), serves the routes, and reads sessions for application code.
import { resolveConfig, type InternalConfig } from '../core/config.js';
import { formatSetCookie } from '../core/cookie-syntax.js';
import type { AuthConfig } from '../core/options.js';
import type { Awaitable, Session } from '../core/types.js';
import { strategyFor } from '../session/strategy.js';
import { createAuthApp, type AuthApp } from './app.js';
import { createAuthRequest, detectOrigin, RefusedHost, type AuthRequest } from './request.js';
import { outageOf, outageResponse } from './outage.js';
import { unexpectedFailure } from './route.js';
import { AuthResponse } from '../core/fast-response.js';

export type ConfigInput = AuthConfig | ((request: Request | undefined) => Awaitable<AuthConfig>);

export interface AuthInstance {
  /** Serves one request to authchart's routes. */
  handle(request: Request): Promise<Response>;
  /** The session of a request, and the Set-Cookie lines its refresh produced (to forward when possible). */
  readSession(request: Request): Promise<{ session: Session | null; setCookie: string[] }>;
  /**
   * Asks the `authorized` callback about a request: a verdict Response (a redirect to sign-in when it
   * answered false, or the Response it returned), or none to let the request through.
   */
  authorize(request: Request): Promise<{ session: Session | null; setCookie: string[]; verdict?: Response }>;
}

/** The instance as the integrations hold it: it also resolves the internal configuration for a request. */
export interface ResolvingAuthInstance extends AuthInstance {
  /** The resolved configuration for a request (lazy configs resolve per request). */
  resolve(request: Request | undefined): Promise<{ config: InternalConfig; app: AuthApp }>;
  /** The resolved configuration when it is static (an object, not a function of the request). */
  readonly fixed: { config: InternalConfig; app: AuthApp } | undefined;
}

/** Serializes the cookies a request context queued, for integrations that set headers themselves. */
export function setCookieLines(req: AuthRequest): string[] {
  return req.setCookies.map((c) => formatSetCookie({ name: c.name, value: c.value, ...c.options }));
}

/**
 * One authchart instance on Web `Request`/`Response`: its routes, session reads and the `authorized` check, for
 * integrations of your own.
 *
 * @example
 * const auth = createAuth({ providers, secret }); const res = await auth.handle(request)
 */
export function createAuth(input: ConfigInput, options: { defaultBasePath?: string } = {}): AuthInstance {
  const { handle, readSession, authorize } = createAuthInstance(input, { defaultBasePath: options.defaultBasePath ?? '/auth' });
  return { handle, readSession, authorize };
}

/** The instance behind `createAuthHandler`, `AuthInit` and `ServerAuth` (internal: it exposes the resolved config). */
export function createAuthInstance(input: ConfigInput, options: { defaultBasePath: string }): ResolvingAuthInstance {
  const cache = new WeakMap<AuthConfig, { config: InternalConfig; app: AuthApp }>();
  let eager: { config: InternalConfig; app: AuthApp } | undefined;

  function build(config: AuthConfig) {
    let entry = cache.get(config);
    if (!entry) {
      const resolved = resolveConfig(config, { defaultBasePath: options.defaultBasePath });
      entry = { config: resolved, app: createAuthApp(resolved) };
      cache.set(config, entry);
    }
    return entry;
  }

  // A static config is validated at start, so a misconfiguration fails loudly and early.
  if (typeof input !== 'function') eager = build(input);

  async function resolve(request: Request | undefined) {
    if (eager) return eager;
    return build(await (input as (r: Request | undefined) => Awaitable<AuthConfig>)(request));
  }

  async function readSession(request: Request): Promise<{ session: Session | null; setCookie: string[] }> {
    let req: AuthRequest;
    try {
      const { config } = await resolve(request);
      // Only the cookies matter for reading a session; the body is never read here.
      req = await createAuthRequest(request, config, { body: false });
    } catch (err) {
      console.error('[authchart][error]', err);
      return { session: null, setCookie: [] };
    }
    const session = await strategyFor(req).read(req);
    return { session, setCookie: setCookieLines(req) };
  }

  return {
    resolve,
    fixed: eager,
    readSession,
    async authorize(request) {
      const { config } = await resolve(request);
      let read: Awaited<ReturnType<typeof readSession>>;
      try {
        read = await readSession(request);
      } catch (err) {
        // A store that cannot confirm the session: the outage answer (503), not an error for the app's framework.
        const down = outageOf(err);
        if (!down) throw err;
        return { session: null, setCookie: [], verdict: await outageResponse(request, config, down) };
      }
      const { session, setCookie } = read;
      const authorized = config.callbacks.authorized;
      if (!authorized) return { session, setCookie };
      const answer = await authorized({ auth: session, request });
      if (answer instanceof Response) return { session, setCookie, verdict: answer };
      if (answer === false) {
        let origin: string;
        try {
          origin = detectOrigin(request, config);
        } catch (err) {
          // A forged host gets no sign-in redirect naming it: a 400, as authchart's own routes answer.
          if (!(err instanceof RefusedHost)) throw err;
          config.logger.error(err);
          return { session, setCookie, verdict: new AuthResponse(JSON.stringify({ error: 'UntrustedHost', message: 'Bad request.' }), { status: 400, headers: { 'content-type': 'application/json' } }) };
        }
        const signin = new URL(config.pages.signIn ?? `${config.basePath}/signin`, origin);
        // The page as the browser sees it (behind a proxy request.url names the internal host).
        const here = new URL(request.url);
        signin.searchParams.set('callbackUrl', `${origin}${here.pathname}${here.search}`);
        return { session, setCookie, verdict: new AuthResponse(null, { status: 302, headers: { location: signin.href } }) };
      }
      return { session, setCookie };
    },
    async handle(request) {
      try {
        const { app } = await resolve(request);
        return await app.fetch(request);
      } catch (err) {
        return unexpectedFailure(err);
      }
    },
  };
}
