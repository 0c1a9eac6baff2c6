// testFlow for an app's signed-in flow: one simulated browser holding a real session of the user it names (minted
// by the configured session strategy, as a sign-in would), driving the flow's routes through the runtime's door with
// real sealed cookies, and keeping every run's trace for createCoverage.
import type { InternalConfig } from '../core/config.js';
import type { AuthError } from '../core/errors.js';
import type { AuthMethod } from '../core/types.js';
import { step } from '../flows/registry.js';
import type { FlowResponse } from '../flows/runtime/contract.js';
import type { SignedInFlowDefinition, SignedInRoute } from '../flows/runtime/signed-in.js';
import type { TraceEntry } from '../flows/runtime/trace.js';
import { createAuthRequest } from '../http/request.js';
import type { RequestContext } from '../core/request-context.js';
import { issueSession } from '../session/issue.js';

/** How one driven request of a signed-in flow ended. */
export type SignedInTestResult =
  | { status: 'paused'; response: FlowResponse; trace: TraceEntry[] }
  /** Ended well (the outcome applied) or sent elsewhere: where the browser goes. */
  | { status: 'redirected'; url: string; trace: TraceEntry[] }
  | { status: 'failed' | 'refused'; error: AuthError; trace: TraceEntry[] }
  /** Nobody signed in, or a session below the flow's level: nothing ran. */
  | { status: 'signedOut' | 'stale'; trace: TraceEntry[] }
  /** The flow's `entry` does not take this request. */
  | { status: 'unknownAction'; trace: TraceEntry[] };

/** One simulated browser driving a signed-in flow for a signed-in user. */
export interface SignedInFlowDriver {
  /** Signs this browser in as `userId` (a session the configured strategy issues, verified now by `amr`). */
  signIn(userId: string, options?: { amr?: AuthMethod[] }): Promise<void>;
  /** `POST flows/:id/start` with this form. */
  start(body?: Record<string, string>): Promise<SignedInTestResult>;
  /** `POST flows/:id` with this form, or `GET` with `query` when `method: 'GET'`. */
  continue(body?: Record<string, string>, options?: { method?: 'GET' | 'POST'; query?: Record<string, string>; headers?: Record<string, string> }): Promise<SignedInTestResult>;
  /** Forgets this browser's session cookie (its paused flow stays). */
  signOut(): void;
  /** Every run's trace, in order: `for (const t of driver.traces) coverage.record(t)`. */
  readonly traces: TraceEntry[][];
  /** Whether this browser holds a paused run of the flow. */
  readonly paused: boolean;
  /** Another browser on the same configuration, with no cookies. */
  browser(): SignedInFlowDriver;
  readonly config: InternalConfig;
}

const ORIGIN = 'http://localhost:3000';

/** The driver of `flow`, registered in `config` (see testFlow). */
export function signedInDriver(config: InternalConfig, flow: SignedInFlowDefinition): SignedInFlowDriver {
  const traces: TraceEntry[][] = [];
  const jar = new Map<string, string>();
  // The cookie names as the runtime makes them (prefixes and configured names carry over), read from one request.
  const names = createAuthRequest(new Request(`${ORIGIN}${config.basePath}/session`), config) as RequestContext;
  const sessionToken = names.cookieOptions.sessionToken.name;
  const sessionName = () => [...jar.keys()].filter((k) => k === sessionToken || k.startsWith(`${sessionToken}.`));
  const request = (path: string, method: 'GET' | 'POST', body: Record<string, string>, query: Record<string, string> = {}, headers: Record<string, string> = {}) => {
    const url = new URL(`${ORIGIN}${config.basePath}/${path}`);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const init: RequestInit & { headers: Record<string, string> } = { method, headers: { ...headers, cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } };
    if (method === 'POST') {
      init.headers['content-type'] = 'application/x-www-form-urlencoded';
      init.body = new URLSearchParams(body).toString();
    }
    return createAuthRequest(new Request(url, init), config);
  };
  const keep = (cookies: { name: string; value: string; options: { maxAge?: number } }[]) => {
    for (const c of cookies) {
      if (c.options.maxAge === 0) jar.delete(c.name);
      else jar.set(c.name, c.value);
    }
  };
  // The flow's slot, as the runtime's cookie module names it (`<flow cookie>-signed-in.<id>`).
  const slotName = `${names.cookieOptions.flow.name}-signed-in.${flow.id}`;
  const run = async (route: SignedInRoute, method: 'GET' | 'POST', body: Record<string, string>, options: { query?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<SignedInTestResult> => {
    const req = await request(route === 'start' ? `flows/${flow.id}/start` : `flows/${flow.id}`, method, body, options.query, options.headers);
    let trace: TraceEntry[] = [];
    const answer = await step(req, { kind: 'signedIn', flow, route, callbackUrl: `${ORIGIN}/` }, undefined, { observe: (t) => (trace = t) });
    keep(req.setCookies);
    traces.push(trace);
    switch (answer.status) {
      case 'paused':
        return { status: 'paused', response: answer.response, trace };
      case 'redirected':
        return { status: 'redirected', url: answer.url, trace };
      case 'failed':
      case 'refused':
        return { status: answer.status, error: answer.error, trace };
      case 'signedOut':
      case 'stale':
        return { status: answer.status, trace };
      default:
        return { status: 'unknownAction', trace };
    }
  };
  return {
    async signIn(userId, options = {}) {
      const req = await request('callback/test', 'POST', {});
      const amr = options.amr ?? ['pwd'];
      await issueSession(req, { user: { id: userId }, account: { provider: 'test', type: 'credentials', providerAccountId: userId }, isNewUser: false }, undefined, amr);
      keep(req.setCookies);
    },
    start: (body = {}) => run('start', 'POST', body),
    continue: (body = {}, options = {}) => run('continue', options.method ?? 'POST', body, options),
    signOut() {
      for (const name of sessionName()) jar.delete(name);
    },
    traces,
    get paused() {
      return jar.has(slotName);
    },
    browser: () => signedInDriver(config, flow),
    config,
  };
}
