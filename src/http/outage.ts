// What every helper an app calls (the middleware, getSession, requireSession, in their h3, Express and fetch forms)
// answers while the store is down, one way everywhere: 503 with Retry-After, the outage page for a browser and JSON
// for a client, the error logged through the configuration's logger (one line per window, then a count: core/logger.ts).
// Never a 500, and never an error h3 or Express would log with its stack once per request.
import { HTTPError } from 'h3';
import type { InternalConfig } from '../core/config.js';
import { ServiceUnavailable } from '../core/errors.js';
import { AuthResponse } from '../core/fast-response.js';
import { messagesFor } from '../core/messages/request.js';
import { isOutage, outage } from '../core/store-deadline.js';
import { H3V1CompatibleError } from './integrations/h3-v1.js';
import { loadErrorPage } from './pages/load.js';
import { createAuthRequest, pageNonce } from './request.js';
import { html, unavailableJson, unavailableMessage } from './response.js';

const OUTAGE = Symbol('authchart.outage');

/** The outage an error stands for (a ServiceUnavailable, or a store that could not be reached), else undefined. */
export function outageOf(err: unknown): ServiceUnavailable | undefined {
  if (err instanceof ServiceUnavailable) return err;
  return isOutage(err) ? outage(err instanceof Error ? err : new Error(String(err)), {}) : undefined;
}

/** A browser navigating (it asks for HTML) rather than a client reading data. */
function wantsPage(request: Request): boolean {
  return (request.headers.get('accept') ?? '').includes('text/html');
}

/**
 * The answer to a request whose session the store could not confirm: 503, `Retry-After`, the "Temporarily
 * unavailable" page for a browser, `{ error: 'ServiceUnavailable', message, retryAfter }` for any other client.
 *
 * @example
 * return { verdict: await outageResponse(request, config, outage) }
 */
export async function outageResponse(request: Request, config: InternalConfig, error: ServiceUnavailable, log = true): Promise<Response> {
  if (log) config.logger.error(error);
  let req;
  try {
    req = await createAuthRequest(request, config, { body: false });
  } catch {
    // A request no context can be made for (a forged host): the bare answer, naming no URL.
    const body = JSON.stringify({ error: ServiceUnavailable.type, message: unavailableMessage, retryAfter: error.retryAfter });
    return new AuthResponse(body, { status: 503, headers: { 'content-type': 'application/json', 'retry-after': String(error.retryAfter) } });
  }
  if (!wantsPage(request)) return unavailableJson(req, error);
  req.headers.set('retry-after', String(error.retryAfter));
  const page = (await loadErrorPage()).renderError({ error: ServiceUnavailable.type, theme: config.theme, basePath: config.basePath, signinUrl: `${req.authUrl}/signin`, homeUrl: req.origin, nonce: pageNonce(req), i18n: await messagesFor(req) });
  return html(req, page.html, 503);
}

/**
 * What an h3 helper that returns a session throws for an outage: an HTTPError h3 answers with its status (503),
 * `Retry-After` and `{ error: 'ServiceUnavailable', message, retryAfter }`, and does not log. The error itself is
 * logged here, once per window.
 *
 * @example
 * throw outageHttpError(config, outage, isH3V1Event(event))
 */
export function outageHttpError(config: InternalConfig, error: ServiceUnavailable, h3v1: boolean): HTTPError {
  config.logger.error(error);
  const Err = h3v1 ? H3V1CompatibleError : HTTPError;
  const thrown = new Err({
    status: 503,
    statusText: 'Service Unavailable',
    message: unavailableMessage,
    headers: { 'retry-after': String(error.retryAfter), 'cache-control': 'no-store' },
    body: { error: ServiceUnavailable.type, retryAfter: error.retryAfter },
  });
  // What authOnError needs to answer a browser with the page instead (h3 renders a thrown error as JSON).
  Object.defineProperty(thrown, OUTAGE, { value: { config, error } });
  return thrown;
}

/**
 * h3's `onError` hook for apps that read the session with `getSession(event)` or `requireSession(event)` in their
 * routes: h3 answers an error thrown there as JSON, so without it a browser gets the outage as JSON. With it, a
 * browser (it asks for HTML) gets the "Temporarily unavailable" page (503, `Retry-After`); everything else is left
 * to h3 as it was.
 *
 * @example
 * const app = new H3({ onError: authOnError })
 */
export async function authOnError(error: unknown, event: { req: Request }): Promise<Response | undefined> {
  const outage = (error as { [OUTAGE]?: { config: InternalConfig; error: ServiceUnavailable } } | null)?.[OUTAGE];
  if (!outage || !wantsPage(event.req)) return undefined;
  return outageResponse(event.req, outage.config, outage.error, false);
}
