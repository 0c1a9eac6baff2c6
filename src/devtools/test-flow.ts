// An in-process driver for a provider's flow: runs its routes through the flow runtime (entry -> restore -> send ->
// settle, then the sign-in tail and the session) without a server, one simulated browser per driver, and keeps
// every run's trace for createCoverage. What the HTTP layer adds around a run (CSRF, the throttle, the sealed
// cookie's encryption) is not exercised: the paused state is carried as the cookie would carry it (JSON).
import { resolveConfig, type InternalConfig } from '../core/config.js';
import type { AuthConfig } from '../core/options.js';
import type { AuthError } from '../core/errors.js';
import type { AnyProvider, ResolvedProvider } from '../core/provider.js';
import { flowFor, signInStages } from '../flows/registry.js';
import type { FlowResponse, FlowRoute } from '../flows/runtime/contract.js';
import { flowDeps } from '../flows/runtime/deps.js';
import { runFlow } from '../flows/runtime/flow.js';
import type { PausedFlow } from '../flows/runtime/run.js';
import type { TraceEntry } from '../flows/runtime/trace.js';
import { createAuthRequest } from '../http/request.js';
import { isSignedInFlow, type SignedInFlowDefinition } from '../flows/runtime/signed-in.js';
import { signedInDriver, type SignedInFlowDriver } from './test-signed-in-flow.js';

/** How one driven request ended. */
export type TestFlowResult =
  | { status: 'paused'; response: FlowResponse; trace: TraceEntry[] }
  | { status: 'signedIn'; userId: string; isNewUser: boolean; trace: TraceEntry[] }
  | { status: 'redirected'; url: string; trace: TraceEntry[] }
  | { status: 'failed' | 'refused'; error: AuthError; trace: TraceEntry[] }
  /** The provider's `entry` does not take this route (the HTTP layer answers UnknownAction). */
  | { status: 'unknownAction'; trace: TraceEntry[] };

/** One simulated browser driving a provider's flow. */
export interface FlowDriver {
  /** `POST signin/:id` with this form. */
  signIn(body?: Record<string, string>): Promise<TestFlowResult>;
  /** `POST callback/:id` with this form, or `GET` with `query` when `method: 'GET'`. */
  callback(body?: Record<string, string>, options?: { method?: 'GET' | 'POST'; query?: Record<string, string> }): Promise<TestFlowResult>;
  /** `GET webauthn-options/:id` with this query. */
  options(query?: Record<string, string>): Promise<TestFlowResult>;
  /** Every run's trace, in order: `for (const t of driver.traces) coverage.record(t)`. */
  readonly traces: TraceEntry[][];
  /** Whether this browser holds a paused flow of the provider. */
  readonly paused: boolean;
  /** Puts a cookie in this browser (e.g. a session token made with `encode` from authchart/jwt, for `deps.session()`). */
  setCookie(name: string, value: string): void;
  /** Another browser on the same configuration (same stores, same adapter), with no cookies. */
  browser(): FlowDriver;
  /** The resolved configuration (its `flowStore`, its adapter). */
  readonly config: InternalConfig;
}

const ORIGIN = 'http://localhost:3000';

/**
 * Drives `provider`'s flow in process, as a browser would over HTTP: the paused flow and the cookies (the session
 * once signed in, for `deps.session()`) are kept between calls.
 *
 * @example
 * const a = testFlow(DeviceApproval(), { adapter });
 * const shown = await a.signIn();
 * const coverage = createCoverage(flow.machine); for (const t of a.traces) coverage.record(t);
 */
export function testFlow(provider: AnyProvider, config?: Partial<AuthConfig>): FlowDriver;
/**
 * Drives an app's signed-in flow in process (see {@link SignedInFlowDriver}): sign the browser in as a user, then
 * `start` and `continue` the flow through the runtime's door with real sealed cookies.
 *
 * @example
 * const a = testFlow(ConfirmPhone({ send, save }), { adapter }); await a.signIn(user.id); await a.start({ phone: '+15551234567' })
 */
export function testFlow(flow: SignedInFlowDefinition, config?: Partial<AuthConfig>): SignedInFlowDriver;
export function testFlow(provider: AnyProvider | SignedInFlowDefinition, config: Partial<AuthConfig> = {}): FlowDriver | SignedInFlowDriver {
  if (isSignedInFlow(provider)) {
    const resolved = resolveConfig(
      { secret: 'authchart-test-flow-secret-0123456789', trustHost: true, ...config, providers: config.providers ?? [], flows: [provider, ...(config.flows ?? [])] } as AuthConfig,
      { env: {}, defaultBasePath: '/auth' },
    );
    return signedInDriver(resolved, provider);
  }
  const internal = resolveConfig(
    { secret: 'authchart-test-flow-secret-0123456789', trustHost: true, ...config, providers: [provider, ...(config.providers ?? [])] } as AuthConfig,
    { env: {}, defaultBasePath: '/auth' },
  );
  return driver(internal, internal.providers[0]!);
}

function driver(config: InternalConfig, provider: ResolvedProvider): FlowDriver {
  const traces: TraceEntry[][] = [];
  const jar = new Map<string, string>();
  let paused: PausedFlow | undefined;
  const run = async (route: FlowRoute, method: 'GET' | 'POST', body: Record<string, string>, query: Record<string, string>): Promise<TestFlowResult> => {
    const path = route === 'options' ? 'webauthn-options' : route;
    const url = new URL(`${ORIGIN}${config.basePath}/${path}/${encodeURIComponent(provider.id)}`);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const headers: Record<string, string> = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
    const init: RequestInit = { method, headers };
    if (method === 'POST') {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      init.body = new URLSearchParams(body).toString();
    }
    const req = await createAuthRequest(new Request(url, init), config);
    const deps = flowDeps(req, provider, `${ORIGIN}/`);
    const flow = await flowFor(provider);
    const entry = flow.entry(route, deps, paused !== undefined);
    if (!entry) {
      traces.push([]);
      return { status: 'unknownAction', trace: [] };
    }
    const from = entry.resume ? paused : undefined;
    if (entry.resume && !from) {
      traces.push([]);
      return { status: 'unknownAction', trace: [] };
    }
    const result = await runFlow(flow, deps, entry, from, { stages: await signInStages(config), keepTrace: true });
    for (const c of req.setCookies) {
      if (c.options.maxAge === 0) jar.delete(c.name);
      else jar.set(c.name, c.value);
    }
    traces.push(result.trace);
    // As over HTTP: a paused flow is sealed (here: as JSON), spent by any run that resumed it, kept when refused.
    if (result.status === 'refused') return { status: 'refused', error: result.error, trace: result.trace };
    paused = undefined;
    switch (result.status) {
      case 'paused':
        if (result.slot === 'second-factor') throw new Error('testFlow does not drive the second-factor check.');
        paused = JSON.parse(JSON.stringify(result.paused)) as PausedFlow;
        return { status: 'paused', response: result.response, trace: result.trace };
      case 'signedIn':
        return { status: 'signedIn', userId: String(result.user.id), isNewUser: result.isNewUser === true, trace: result.trace };
      case 'redirected':
        return { status: 'redirected', url: result.url, trace: result.trace };
      case 'failed':
        return { status: 'failed', error: result.error, trace: result.trace };
      default:
        throw new Error(`testFlow: a sign-in ended as ${result.status}.`);
    }
  };
  return {
    signIn: (body = {}) => run('signin', 'POST', body, {}),
    callback: (body = {}, options = {}) => run('callback', options.method ?? 'POST', body, options.query ?? {}),
    options: (query = {}) => run('options', 'GET', {}, query),
    traces,
    get paused() {
      return paused !== undefined;
    },
    setCookie: (name, value) => void jar.set(name, value),
    browser: () => driver(config, provider),
    config,
  };
}
