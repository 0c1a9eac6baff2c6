// The forms of `auth` that AuthInit returns (spec section 4.2), on web Requests, h3 events and Node's req/res:
// middleware, handler wrapper, API route, page props, and `auth()` for the request a middleware or wrapper entered.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { H3Event } from 'h3';
import { MissingRequestContext } from '../../core/errors.js';
import type { Awaitable, Session } from '../../core/types.js';
import type { ResolvingAuthInstance } from '../auth.js';
import { appendNodeSetCookie, isH3V1Event, type H3V1Event } from './h3-v1.js';
import { fromNodeRequest, isNodeRequest, toNodeResponse } from './node-request.js';
import { addScopeCookies, currentScope, enterScopeUntil, newScope, runInScope, withCookies, type RequestScope } from './request-scope.js';
import { isH3Event, isWebRequest } from './session-helpers.js';
import { outageOf } from '../outage.js';
import { answerOutageOn } from './node-outage.js';

export type AuthenticatedRequest = Request & { auth: Session | null };
/** A route handler `auth` wraps: it gets the request with `request.auth`, and whatever else the framework passes. */
export type AuthHandler<A extends unknown[], R> = (request: AuthenticatedRequest, ...rest: A) => Awaitable<R>;
/** What comes after a fetch-style middleware: answers the request. */
export type NextFetch = (request: Request) => Awaitable<Response>;
/** Server-side page props (`getServerSideProps(context)`): Node's request and response. */
export interface PageContext {
  req: IncomingMessage;
  res: ServerResponse;
}

/**
 * `auth` in each of its forms. Where a form answers the request (middleware, wrapped handler) the `authorized`
 * callback decides access: false redirects to sign-in, a returned Response wins. Below the middleware forms and
 * inside a wrapped handler, `auth()`, `signIn`, `signOut` and `unstable_update(data)` know the request.
 */
export interface AuthFunction {
  /** The session of the request being answered (below `auth` as middleware, or in a handler `auth` wrapped). */
  (): Promise<Session | null>;
  /** Server-side page props: the session; a refreshed or cleared cookie is written to `context.res`. */
  (context: PageContext): Promise<Session | null>;
  /**
   * API route on Node: the session; a refreshed or cleared cookie is written to `res`. A store outage is answered
   * on `res` (503, the outage page or JSON), and the call then never returns.
   */
  (req: IncomingMessage, res?: ServerResponse): Promise<Session | null>;
  /** Express/Connect middleware (`app.use(auth)`): a verdict is sent, else `next()` runs with the request known. */
  (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): Promise<void>;
  /** h3 middleware (`app.use(auth)`): a verdict Response, else what `next()` answers, with the session cookies. */
  (event: H3Event, next?: () => unknown): Promise<unknown>;
  /** h3 v1 middleware (Nitro 2, Nuxt): a verdict Response, or nothing to continue. */
  (event: H3V1Event): Promise<Response | undefined>;
  /** Fetch middleware with what comes next: a verdict, or `next(request)`'s Response with the session cookies. */
  (request: Request, next: NextFetch): Promise<Response>;
  /** Fetch middleware: a verdict Response, or undefined to let the request through. */
  (request: Request): Promise<Response | undefined>;
  /** Route handler: runs it with `request.auth` when authorized. */
  <A extends unknown[]>(handler: AuthHandler<A, Response>): (request: Request, ...rest: A) => Promise<Response>;
  /** Middleware written as a handler: returning nothing lets the request through. */
  <A extends unknown[]>(handler: AuthHandler<A, Response | undefined | void>): (request: Request, ...rest: A) => Promise<Response | undefined>;
}

const NO_CONTEXT =
  'auth() without arguments reads the request that authchart is answering, and there is none here. Call it below `auth` ' +
  'used as middleware (h3 or Express: app.use(auth); fetch: auth(request, next)) or inside a handler wrapped with ' +
  'auth((request) => ...), or pass the request: auth(req, res), auth({ req, res }).';

function isPageContext(input: unknown): input is PageContext {
  const c = input as Partial<PageContext> | null;
  return typeof c === 'object' && c !== null && isNodeRequest(c.req) && typeof c.res?.setHeader === 'function';
}

/** The `auth` of one AuthInit instance. */
export function createAuthFunction(instance: ResolvingAuthInstance): AuthFunction {
  /** The scope's session, read once per request (the middleware already read it when it entered the scope). */
  function sessionOf(scope: RequestScope): Promise<Session | null> {
    let read = scope.sessions.get(instance);
    if (!read) {
      read = instance.readSession(scope.request).then(({ session, setCookie }) => {
        addScopeCookies(scope, setCookie);
        return session;
      });
      scope.sessions.set(instance, read);
    }
    return read;
  }

  /** Asks `authorized`; without a verdict, a scope for the rest of the request, knowing its session. */
  async function enter(request: Request, node?: ServerResponse): Promise<{ verdict: Response } | { scope: RequestScope; session: Session | null }> {
    const { session, setCookie, verdict } = await instance.authorize(request);
    if (verdict) return { verdict: withCookies(verdict, setCookie) };
    const scope = newScope(request, setCookie, node);
    scope.sessions.set(instance, Promise.resolve(session));
    return { scope, session };
  }

  /**
   * Cookies still queued when the request went on without a Response to carry them: an enclosing scope takes them;
   * with none, they cannot reach the browser, which is logged (it keeps its current cookie a little longer).
   */
  async function handOn(scope: RequestScope): Promise<void> {
    if (scope.lines.length === 0) return;
    const outer = currentScope();
    if (outer) return addScopeCookies(outer, scope.lines.splice(0));
    const { config } = await instance.resolve(scope.request);
    config.logger.warn('session-cookie-dropped', 'A refreshed session cookie had no response to ride on: the request went on without a Response. Pass `next` (auth(request, next)) or return a Response from the handler.');
  }

  async function fetchMiddleware(request: Request, next: unknown): Promise<Response | undefined> {
    const entered = await enter(request);
    if ('verdict' in entered) return entered.verdict;
    const { scope } = entered;
    if (typeof next !== 'function') {
      await handOn(scope);
      return undefined;
    }
    const response = await runInScope(scope, () => (next as NextFetch)(request));
    if (response instanceof Response) return withCookies(response, scope.lines);
    await handOn(scope);
    return response;
  }

  async function h3Middleware(event: H3Event, next: unknown): Promise<unknown> {
    const entered = await enter(event.req as Request);
    if ('verdict' in entered) return entered.verdict;
    const { scope } = entered;
    // h3 merges event.res.headers into what answers the request (errHeaders for errors, which h3 2.0.1 RCs lack).
    const flush = () => {
      for (const line of scope.lines.splice(0)) {
        event.res.headers.append('set-cookie', line);
        (event.res as { errHeaders?: Headers }).errHeaders?.append('set-cookie', line);
      }
    };
    let result: unknown;
    try {
      result = typeof next === 'function' ? await runInScope(scope, next as () => unknown) : undefined;
    } catch (err) {
      flush();
      throw err;
    }
    if (result instanceof Response) return withCookies(result, scope.lines);
    flush();
    return result;
  }

  // h3 v1 runs the next handler after this one returns, outside any call of ours: no scope can follow it there.
  async function h3V1Middleware(event: H3V1Event): Promise<Response | undefined> {
    const { setCookie, verdict } = await instance.authorize(await fromNodeRequest(event.node.req));
    if (verdict) return withCookies(verdict, setCookie);
    appendNodeSetCookie(event.node.res, setCookie);
    return undefined;
  }

  async function nodeMiddleware(req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): Promise<void> {
    let entered: Awaited<ReturnType<typeof enter>>;
    try {
      entered = await enter(await fromNodeRequest(req), res);
      if ('verdict' in entered) return await toNodeResponse(res, entered.verdict);
    } catch (err) {
      return next(err);
    }
    // Express runs the next handlers inside this call, so the scope follows them and everything they await, until
    // the response is closed.
    enterScopeUntil(entered.scope, () => next(), (done) => res.once('close', done));
  }

  /** `auth(req, res)` (`answers`: an outage is answered on `res`, as getSession does) and `auth({ req, res })`. */
  async function nodeSession(req: IncomingMessage, res: ServerResponse | undefined, answers: boolean): Promise<Session | null> {
    const request = await fromNodeRequest(req);
    let read: Awaited<ReturnType<typeof instance.readSession>>;
    try {
      read = await instance.readSession(request);
    } catch (err) {
      const down = outageOf(err);
      if (!down || !answers || !res || res.headersSent) throw err;
      return answerOutageOn(res, request, (await instance.resolve(request)).config, down);
    }
    const { session, setCookie } = read;
    if (res) appendNodeSetCookie(res, setCookie);
    return session;
  }

  function wrap(handler: AuthHandler<unknown[], Response | undefined | void>) {
    return async (request: Request, ...rest: unknown[]): Promise<Response | undefined> => {
      if (!isWebRequest(request)) {
        throw new MissingRequestContext('auth(handler) wraps a handler of web Requests; in h3 or Express use app.use(auth) and call auth() in the handler.');
      }
      const entered = await enter(request);
      if ('verdict' in entered) return entered.verdict;
      const { scope, session } = entered;
      const response = await runInScope(scope, () => handler(Object.assign(request, { auth: session }), ...rest));
      if (response instanceof Response) return withCookies(response, scope.lines);
      await handOn(scope);
      return undefined;
    };
  }

  function auth(...args: unknown[]): unknown {
    const [a, b, c] = args;
    if (a === undefined) {
      const scope = currentScope();
      return scope ? sessionOf(scope) : Promise.reject(new MissingRequestContext(NO_CONTEXT));
    }
    if (a === null || (typeof a !== 'object' && typeof a !== 'function')) {
      return Promise.reject(new MissingRequestContext(`auth() was given ${a === null ? 'null' : typeof a}, which is no request. ${NO_CONTEXT}`));
    }
    if (typeof a === 'function') return wrap(a as AuthHandler<unknown[], Response | undefined>);
    if (isH3Event(a as H3Event)) return h3Middleware(a as H3Event, b);
    if (isH3V1Event(a)) return h3V1Middleware(a);
    if (isWebRequest(a as Request)) return fetchMiddleware(a as Request, b);
    if (isNodeRequest(a)) {
      return typeof c === 'function' ? nodeMiddleware(a, b as ServerResponse, c as (err?: unknown) => void) : nodeSession(a, b as ServerResponse | undefined, true);
    }
    if (isPageContext(a)) return nodeSession(a.req, a.res, false);
    return Promise.reject(new MissingRequestContext(`auth() was given an object that is no request. ${NO_CONTEXT}`));
  }

  return auth as AuthFunction;
}
