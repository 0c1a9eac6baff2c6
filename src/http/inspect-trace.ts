// Lets the error page show why a flow failed, in development only: a failed flow leaves its id in a short-lived
// cookie of the browser that ran it, and the error page looks that id up in the in-memory flow log.
//
// Why a cookie and not `?flow=<id>` in the error URL: the trace stays bound to the browser that ran the flow, so
// a shared, logged or Referer-leaked error URL reveals nothing; the URLs an app sees (and a custom error page
// receives) are exactly the production ones; and the cookie holds only a random id, never the trace, which
// stays in server memory that exists only with `debug: true` outside production.
import { clientSafeErrorTypes } from '../core/errors.js';
import { flowLogFor, tracesKept } from '../machines/trace-log.js';
import { formatFlowRecord, isFlowId, type FlowRecord } from '../machines/trace.js';
import type { AuthRequest } from './request.js';
import { setCookie } from './response.js';

/** How long the error page can still show a failed flow's trace. */
const TRACE_COOKIE_MAX_AGE = 10 * 60;

/** The cookie named after the flow cookie, so prefixes (`__Secure-`) and custom names carry over. */
function traceCookie(req: AuthRequest): { name: string; options: AuthRequest['cookieOptions']['flow']['options'] } {
  const { name, options } = req.cookieOptions.flow;
  return { name: `${name}-trace`, options: { ...options, httpOnly: true, maxAge: TRACE_COOKIE_MAX_AGE } };
}

/** Remembers a failed flow for the error page this browser is about to see; a no-op unless traces are kept. */
export function rememberFailedFlow(req: AuthRequest, record: FlowRecord): void {
  if (!tracesKept(req.config) || record.status !== 'failed') return;
  const { name, options } = traceCookie(req);
  setCookie(req, { name, value: record.id, options });
}

/**
 * The trace of the flow this browser last saw fail, as text, when it explains the error page being shown
 * (`?error=` is the failure's public type); undefined in production, without debug, or for anything else.
 */
export function failedFlowTrace(req: AuthRequest, shownError: string): string | undefined {
  const log = flowLogFor(req.config);
  if (!log) return undefined;
  const id = req.cookies[traceCookie(req).name];
  if (!isFlowId(id)) return undefined;
  const flow = log.get(id);
  const error = flow?.record.error;
  if (!flow || !error) return undefined;
  const publicType = clientSafeErrorTypes.has(error.type) ? error.type : 'Configuration';
  if (publicType !== shownError) return undefined;
  return `${formatFlowRecord(flow.record)}\n\ninspector: ${req.authUrl}/_inspect/${flow.record.id}`;
}
