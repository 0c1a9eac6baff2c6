// An in-process driver for a provider's flow: runs its routes through the flow runtime (entry -> restore -> send ->
// settle, then the sign-in tail and the session) without a server, one simulated browser per driver, and keeps
// every run's trace for createCoverage. What the HTTP layer adds around a run (CSRF, the throttle, the sealed
// cookie's encryption) is not exercised: the paused state is carried as the cookie would carry it (JSON). A browser
// may send headers of its own and start signed in: the driver mints the session itself, by the configured strategy.
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
import { strategyFor } from '../session/strategy.js';
import type { AuthMethod, User } from '../core/types.js';
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

/** Headers of one driven request (beside the browser's own, see {@link FlowDriver.setHeader}); they win over those. */
export interface TestRequestOptions {
  headers?: Record<string, string>;
}

/** How {@link FlowDriver.signInAs} verified the session it starts from. */
export interface SignInAsOptions {
  /** Fields of the user beyond its id (name, email), for a JWT session without an adapter that has the user. */
  user?: Partial<User>;
  /** The methods the session was verified with (`amr`; default `['pwd']`). */
  amr?: AuthMethod[];
  /** When it was verified (`auth_time`; default now): an earlier time makes a session too old for a recent-sign-in rule. */
  authTime?: Date;
}

/** One simulated browser driving a provider's flow. */
export interface FlowDriver {
  /** `POST signin/:id` with this form. */
  signIn(body?: Record<string, string>, options?: TestRequestOptions): Promise<TestFlowResult>;
  /** `POST callback/:id` with this form, or `GET` with `query` when `method: 'GET'`. */
  callback(body?: Record<string, string>, options?: TestRequestOptions & { method?: 'GET' | 'POST'; query?: Record<string, string> }): Promise<TestFlowResult>;
  /** `GET webauthn-options/:id` with this query. */
  options(query?: Record<string, string>, options?: TestRequestOptions): Promise<TestFlowResult>;
  /**
   * Starts this browser signed in as `userId`, as the configured session strategy would after a sign-in: a JWT
   * session cookie, or a database session row and its cookie (the user must then exist in the adapter). The flow's
   * `deps.session()` then finds this session; nothing needs to know the cookie's name.
   */
  signInAs(userId: string, options?: SignInAsOptions): Promise<void>;
  /** A header this browser sends with every later request (`null` stops sending it), e.g. `accept-language`. */
  setHeader(name: string, value: string | null): void;
  /** Every run's trace, in order: `for (const t of driver.traces) coverage.record(t)`. */
  readonly traces: TraceEntry[][];
  /** Whether this browser holds a paused flow of the provider. */
  readonly paused: boolean;
  /** Puts a cookie in this browser (a signed-in session: {@link FlowDriver.signInAs}). */
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
  const browserHeaders = new Map<string, string>();
  let paused: PausedFlow | undefined;
  const headersFor = (extra: Record<string, string> = {}): Record<string, string> => ({
    ...Object.fromEntries(browserHeaders),
    ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k.toLowerCase(), v])),
    cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
  });
  const keepCookies = (setCookies: { name: string; value: string; options: { maxAge?: number } }[]) => {
    for (const c of setCookies) {
      if (c.options.maxAge === 0) jar.delete(c.name);
      else jar.set(c.name, c.value);
    }
  };
  const run = async (route: FlowRoute, method: 'GET' | 'POST', body: Record<string, string>, query: Record<string, string>, extra?: Record<string, string>): Promise<TestFlowResult> => {
    const path = route === 'options' ? 'webauthn-options' : route;
    const url = new URL(`${ORIGIN}${config.basePath}/${path}/${encodeURIComponent(provider.id)}`);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const headers = headersFor(extra);
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
    keepCookies(req.setCookies);
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
  const signInAs = async (userId: string, options: SignInAsOptions = {}) => {
    const req = await createAuthRequest(new Request(`${ORIGIN}${config.basePath}/session`, { headers: headersFor() }), config);
    const stored = config.adapter ? await config.adapter.getUser(userId) : null;
    if (!stored && config.session.strategy === 'database') throw new Error(`testFlow: signInAs needs a user "${userId}" in the adapter for a database session.`);
    const user: User = { ...stored, ...options.user, id: userId };
    const verification = { authTime: options.authTime ?? new Date(), amr: options.amr ?? ['pwd'] };
    const afterCommit = await strategyFor(req).issue(req, { user, account: null, isNewUser: false, verification });
    await afterCommit?.();
    keepCookies(req.setCookies);
  };
  return {
    signIn: (body = {}, options = {}) => run('signin', 'POST', body, {}, options.headers),
    callback: (body = {}, options = {}) => run('callback', options.method ?? 'POST', body, options.query ?? {}, options.headers),
    options: (query = {}, options = {}) => run('options', 'GET', {}, query, options.headers),
    signInAs,
    setHeader: (name, value) => void (value === null ? browserHeaders.delete(name.toLowerCase()) : browserHeaders.set(name.toLowerCase(), value)),
    traces,
    get paused() {
      return paused !== undefined;
    },
    setCookie: (name, value) => void jar.set(name, value),
    browser: () => driver(config, provider),
    config,
  };
}
