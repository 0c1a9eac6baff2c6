// How every route answers: the request context is built, the handler runs, and a failure becomes the answer its kind
// of route gives (a status for JSON routes, an error redirect for browser routes), never an unhandled 500. The h3 app
// and the Node session check both answer through here, so they answer alike.
import type { InternalConfig } from '../core/config.js';
import { AuthError, InvalidRequest, ServiceUnavailable, UntrustedHost } from '../core/errors.js';
import { AuthResponse } from '../core/fast-response.js';
import { BodyTooLarge, RefusedHost, type AuthRequest } from './request.js';
import { configurationErrorBody, errorRedirect, json, unavailableJson } from './response.js';

/** How a route reports a failure: JSON routes answer with a status, browser routes redirect. */
export type RouteKind = 'json' | 'browser';

/** A JSON answer that needs no request context. */
export function plainJson(body: unknown, status: number): Response {
  return new AuthResponse(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/**
 * Answers for errors raised before a request context exists (host, body). A browser that posted a form far too long
 * for any sign-in (a 200 KB password) from a page is sent on to the error page, which says so in its language (413);
 * a script gets JSON 413.
 */
export function earlyFailure(config: InternalConfig, err: unknown, kind: RouteKind = 'json'): Response {
  if (err instanceof BodyTooLarge) {
    if (kind === 'browser' && err.fromPage) return seeErrorPage(config, 'BodyTooLarge');
    return plainJson({ error: 'InvalidRequest', message: err.message }, 413);
  }
  if (err instanceof InvalidRequest) return plainJson({ error: 'InvalidRequest', message: err.message }, 400);
  // A host that is malformed or not on the allow-list: logged for the operator, a plain 400 for the client.
  if (err instanceof RefusedHost) {
    config.logger.error(err);
    return plainJson({ error: 'UntrustedHost', message: 'Bad request.' }, 400);
  }
  config.logger.error(err instanceof Error ? err : new Error(String(err)));
  return plainJson(configurationErrorBody, 500);
}

/** 303 to the error page (the app's own, or the built-in one) with `?error=type`: a relative URL needs no context. */
function seeErrorPage(config: InternalConfig, type: string): Response {
  const page = config.pages.error ?? `${config.basePath}/error`;
  const location = `${page}${page.includes('?') ? '&' : '?'}error=${type}`;
  return new AuthResponse(null, { status: 303, headers: { location, 'cache-control': 'no-store' } });
}

/**
 * One route's answer: the context `contextOf` builds (which may throw UntrustedHost, InvalidRequest, BodyTooLarge),
 * then `handler`, with every failure answered as its kind of route answers it. What is known at once (a GET's
 * context, a session check's answer) is answered at once, without a promise.
 *
 * @example
 * app.get('/auth/session', (event) => answerRoute(config, 'json', () => createAuthRequest(event.req, config), getSessionRoute))
 */
export function answerRoute(
  config: InternalConfig,
  kind: RouteKind,
  contextOf: () => AuthRequest | Promise<AuthRequest>,
  handler: (req: AuthRequest) => Promise<Response> | Response,
): Response | Promise<Response> {
  let made: AuthRequest | Promise<AuthRequest>;
  try {
    made = contextOf();
  } catch (err) {
    return earlyFailure(config, err, kind);
  }
  if (made instanceof Promise) return made.then((req) => handled(config, kind, req, handler), (err: unknown) => earlyFailure(config, err, kind));
  return handled(config, kind, made, handler);
}

function handled(config: InternalConfig, kind: RouteKind, req: AuthRequest, handler: (req: AuthRequest) => Promise<Response> | Response): Response | Promise<Response> {
  try {
    const answer = handler(req);
    return answer instanceof Promise ? answer.catch((err: unknown) => routeFailure(config, kind, req, err)) : answer;
  } catch (err) {
    return routeFailure(config, kind, req, err);
  }
}

/** A route's failure after its context exists, as its kind of route answers it. */
function routeFailure(config: InternalConfig, kind: RouteKind, req: AuthRequest, err: unknown): Response {
  if (err instanceof UntrustedHost) return earlyFailure(config, err);
  if (kind === 'browser') return errorRedirect(req, err);
  config.logger.error(err instanceof Error ? err : new Error(String(err)));
  if (err instanceof ServiceUnavailable) return unavailableJson(req, err);
  if (err instanceof AuthError && err.type === 'MissingCSRF') return json(req, null, 400);
  return json(req, configurationErrorBody, 500);
}

/** What an instance answers when serving a request threw past every route's own handling: logged, a plain 500. */
export function unexpectedFailure(err: unknown): Response {
  console.error('[authchart][error]', err);
  return new AuthResponse(JSON.stringify(configurationErrorBody), { status: 500, headers: { 'content-type': 'application/json' } });
}
