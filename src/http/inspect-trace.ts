// Binds development traces to the browser that ran them: each browser gets a random id in an HttpOnly cookie, the
// flow log remembers which ids ran each flow, and the inspector and the error page show a browser only its own
// flows (every flow with `debug: { inspector: 'shared' }`). Nothing here exists unless traces are kept (development).
//
// The error page finds a failed flow through a second short-lived cookie holding its id, not `?flow=<id>` in the
// error URL: a shared, logged or Referer-leaked error URL reveals nothing; the URLs an app sees (and a custom error
// page receives) are exactly the production ones; and the cookies hold random ids only, never the trace, which stays
// in server memory that exists only with `debug` on outside production.
import { randomBytes } from 'node:crypto';
import { clientSafeErrorTypes } from '../core/errors.js';
import { isFlowId } from '../flows/runtime/flow-id.js';
import { flowLogFor, loadRecords, tracesKept, type LoggedFlow } from '../flows/runtime/log.js';
import type { FlowRecord } from '../flows/runtime/record.js';
import type { AuthRequest } from './request.js';
import { setCookie } from './response.js';

/** The path segment of the development inspector under basePath. */
export const INSPECT_SEGMENT = '_inspect';

/** How long the error page can still show a failed flow's trace. */
const TRACE_COOKIE_MAX_AGE = 10 * 60;

const BROWSER_ID = /^[0-9a-f]{32}$/;

type CookieOptions = AuthRequest['cookieOptions']['flow']['options'];

/** Cookies named after the flow cookie, so prefixes (`__Secure-`) and custom names carry over. */
function devCookie(req: AuthRequest, suffix: 'trace' | 'browser', maxAge: number | undefined): { name: string; options: CookieOptions } {
  const { name, options } = req.cookieOptions.flow;
  return { name: `${name}-${suffix}`, options: { ...options, httpOnly: true, maxAge } };
}

// The browser id lives as long as the browser session: the flows it names live only in this process's memory.
const browserCookie = (req: AuthRequest) => devCookie(req, 'browser', undefined);
const traceCookie = (req: AuthRequest) => devCookie(req, 'trace', TRACE_COOKIE_MAX_AGE);

/** The id this browser's cookie carries, when it carries a well-formed one. */
function browserIdOf(req: AuthRequest): string | undefined {
  const id = req.cookies[browserCookie(req).name];
  return id !== undefined && BROWSER_ID.test(id) ? id : undefined;
}

/**
 * The id of the browser running a flow, for the flow log; undefined unless traces are kept. A browser without one
 * gets a fresh id (and its cookie) when `mint` is set: a request that starts a flow. A request that resumes one
 * (a cross-site `form_post` callback, which carries no Lax cookie) mints none: the flow already names its browser.
 */
export function flowBrowser(req: AuthRequest, options: { mint: boolean }): string | undefined {
  if (!tracesKept(req.config)) return undefined;
  const id = browserIdOf(req);
  if (id !== undefined || !options.mint) return id;
  const fresh = randomBytes(16).toString('hex');
  const { name, options: cookieOptions } = browserCookie(req);
  setCookie(req, { name, value: fresh, options: cookieOptions });
  return fresh;
}

/** Whether this request's browser may see a logged flow: one of the browsers that ran it, or the log is shared. */
function mayView(req: AuthRequest, flow: LoggedFlow): boolean {
  if (req.config.inspector === 'shared') return true;
  const id = browserIdOf(req);
  return id !== undefined && flow.browsers.has(id);
}

/**
 * The logged flows this browser may see, newest first, or undefined when traces are not kept.
 *
 * @example
 * const flows = visibleFlows(req); if (!flows) return unavailable(req)
 */
export function visibleFlows(req: AuthRequest): LoggedFlow[] | undefined {
  return flowLogFor(req.config)?.list().filter((flow) => mayView(req, flow));
}

/** The logged flow with this id when this browser may see it; undefined alike for unknown and hidden flows. */
export function visibleFlow(req: AuthRequest, id: string): LoggedFlow | undefined {
  const flow = isFlowId(id) ? flowLogFor(req.config)?.get(id) : undefined;
  return flow && mayView(req, flow) ? flow : undefined;
}

/** Remembers a failed flow for the error page this browser is about to see; a no-op unless traces are kept. */
export function rememberFailedFlow(req: AuthRequest, record: FlowRecord): void {
  if (!tracesKept(req.config) || record.status !== 'failed') return;
  const { name, options } = traceCookie(req);
  setCookie(req, { name, value: record.id, options });
}

/**
 * The trace of the flow this browser last saw fail, as text, when it explains the error page being shown
 * (`?error=` is the failure's public type) and this browser may see it; undefined in production, without debug,
 * or for anything else (a flow id copied into another browser's cookie included).
 */
export async function failedFlowTrace(req: AuthRequest, shownError: string): Promise<string | undefined> {
  const id = req.cookies[traceCookie(req).name];
  if (!isFlowId(id)) return undefined;
  const flow = visibleFlow(req, id);
  const error = flow?.record.error;
  if (!flow || !error) return undefined;
  const publicType = clientSafeErrorTypes.has(error.type) ? error.type : 'Configuration';
  if (publicType !== shownError) return undefined;
  const { formatFlowRecord } = await loadRecords();
  return `${formatFlowRecord(flow.record)}\n\ninspector: ${req.authUrl}/_inspect/${flow.record.id}`;
}
