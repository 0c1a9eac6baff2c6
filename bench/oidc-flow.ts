// Benchmarks 3 and 4: a full OpenID Connect sign-in (code + PKCE + state + nonce) against a real oidc-provider in a
// child process, authchart vs Auth.js: time and CPU per flow, and the bytes of the cookies the flow puts on the wire.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { providers, root } from './built.js';
import { createClient, type ClientResponse, type Navigation } from '../test/support/client.js';
import { AUTHJS_SESSION_COOKIE, BENCH_SECRET, NOT_INSTALLED, ORIGIN, OURS_SESSION_COOKIE, loadAuthjs, loggedErrors, quiet, type Handle } from './contenders.js';
import { interleave, spreadOf, type Spread } from './measure.js';

const PEER = fileURLToPath(new URL('./oidc-peer.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const REDIRECT_URI = `${ORIGIN}/auth/callback/oidc`;
const ACCOUNT = 'alice';
const ACCOUNT_EMAIL = 'alice@example.test';

export const FLOW_SIDES = ['authchart', 'Auth.js'] as const;
export type FlowSide = (typeof FLOW_SIDES)[number];

export interface OidcFlowOptions {
  /** Measured flows per side, alternating sides. */
  flows: number;
  /** Unmeasured flows per side first (discovery, JIT). */
  warmup: number;
}

/** Bytes of the cookies one flow moves; a Set-Cookie line counts name, value and attributes. */
export interface CookieBytes {
  /** Cookies set by the sign-in request that only exist to carry the flow to its callback. */
  flowCookieNames: string[];
  flowSetCookieBytes: number;
  /** The `cookie` header the browser sends with the callback (flow, CSRF and callback-url cookies). */
  callbackCookieHeaderBytes: number;
  /** The Set-Cookie line(s) of the session the callback creates. */
  sessionSetCookieBytes: number;
}

export interface FlowFigures {
  /** Wall time in the app's own requests (CSRF, sign-in, callback incl. its calls to the OP), per flow. */
  appMs: Spread;
  /** CPU of this process during those requests (the OP runs in another process), per flow. */
  cpuMs: Spread;
  /**
   * The part of `cpuMs` spent inside the app's handler (from the call until its Response is returned), without
   * the test client's work around it (building the Request, reading Set-Cookie into its jar). Informational: the
   * targets are judged on `cpuMs`.
   */
  handlerCpuMs: Spread;
  /** Wall time of the whole flow, the user's login at the OP included. */
  totalMs: Spread;
  /** Requests the app itself sent to the OP per flow (discovery, token, JWKS, userinfo). */
  opRequests: number;
  cookies: CookieBytes;
}

export type OidcFlowResult = Record<FlowSide, FlowFigures | { skipped: string }>;

export interface Peer {
  issuer: string;
  clientId: string;
  clientSecret: string;
  control: string;
  child: ChildProcess;
}

export async function startPeer(): Promise<Peer> {
  const child = spawn(process.execPath, ['--import', 'tsx', PEER, JSON.stringify([REDIRECT_URI])], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the OIDC peer exited (${code}) before it was ready`)));
  });
  return { ...(JSON.parse(line) as Omit<Peer, 'child'>), child };
}

export function stopPeer(peer: Peer): Promise<void> {
  return new Promise((resolve) => {
    if (peer.child.exitCode !== null) return resolve();
    peer.child.once('exit', () => resolve());
    peer.child.stdin!.end();
  });
}

const bytes = (lines: readonly string[]) => lines.reduce((n, l) => n + Buffer.byteLength(l), 0);
const cookieName = (line: string) => line.slice(0, line.indexOf('='));
const isSessionCookie = (line: string) => /session-token/.test(cookieName(line));
// What the sign-in sets besides the flow's own state: the CSRF pair and the callback URL exist without any flow.
const isFlowCookie = (line: string) => !/csrf-token|callback-url|session-token/.test(cookieName(line)) && !/Max-Age=0/i.test(line);

export interface FlowRun {
  appMs: number;
  cpuMs: number;
  handlerCpuMs: number;
  /** CPU of each of the app's requests in turn: CSRF, sign-in, callback. */
  phaseCpuMs: [number, number, number];
  totalMs: number;
  opRequests: number;
  cookies: CookieBytes;
}

/** The OP's own count of the requests it received at its back-channel endpoints (bench/oidc-peer.ts). */
async function backChannelRequests(peer: Peer): Promise<number> {
  return (await (await fetch(`${peer.control}/back-channel`)).json()) as number;
}

/**
 * One sign-in as a browser does it; throws unless it ends with the user's session. `windows` collects when each of
 * the app's requests ran (for bench/oidc-profile.ts to cut a CPU profile by phase).
 */
export async function signInOnce(handle: Handle, peer: Peer, sessionCookie: string, windows?: Array<[phase: number, startNs: bigint, endNs: bigint]>): Promise<FlowRun> {
  let handlerUs = 0;
  const timed: Handle = async (request) => {
    const c0 = process.cpuUsage();
    try {
      return await handle(request);
    } finally {
      const c = process.cpuUsage(c0);
      handlerUs += c.user + c.system;
    }
  };
  const client = createClient({ fetch: timed, baseUrl: ORIGIN });
  const opBefore = await backChannelRequests(peer);
  let appMs = 0;
  let cpuUs = 0;
  const phases: number[] = [];
  const inApp = async (work: () => Promise<ClientResponse>): Promise<ClientResponse> => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const ns0 = windows ? process.hrtime.bigint() : 0n;
    const res = await work();
    windows?.push([phases.length, ns0, process.hrtime.bigint()]);
    appMs += performance.now() - t0;
    const c = process.cpuUsage(c0);
    cpuUs += c.user + c.system;
    phases.push((c.user + c.system) / 1000);
    return res;
  };
  const t0 = performance.now();
  const csrf = await inApp(() => client.get('/auth/csrf'));
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const start = await inApp(() => client.post('/auth/signin/oidc', { csrfToken, callbackUrl: `${ORIGIN}/after` }));
  if (start.status !== 302 || !start.location) throw new Error(`sign-in answered ${start.status}; logged: ${loggedErrors()}`);
  const login = await fetch(`${peer.control}/login`, { method: 'POST', body: JSON.stringify({ url: start.location.href, account: ACCOUNT }) });
  if (!login.ok) throw new Error(`the OP login failed: ${await login.text()}`);
  const navigation = (await login.json()) as Navigation;
  const callbackCookieHeaderBytes = Buffer.byteLength(client.cookies.header(navigation.url));
  const callback = await inApp(() => client.submit(navigation));
  const totalMs = performance.now() - t0;
  if (callback.status !== 302 || callback.location?.pathname !== '/after' || !client.cookies.get(sessionCookie)) {
    throw new Error(`callback answered ${callback.status} to ${callback.location?.href}; logged: ${loggedErrors()}`);
  }
  const handlerCpuMs = handlerUs / 1000;
  const check = await handle(new Request(`${ORIGIN}/auth/session`, { headers: { cookie: client.cookies.header(ORIGIN) } }));
  const body = (await check.json()) as { user?: { email?: string } } | null;
  if (body?.user?.email !== ACCOUNT_EMAIL) throw new Error(`after the flow the session is ${JSON.stringify(body)}`);
  const flowCookies = start.setCookie.filter(isFlowCookie);
  return {
    appMs,
    cpuMs: cpuUs / 1000,
    handlerCpuMs,
    phaseCpuMs: phases as [number, number, number],
    totalMs,
    opRequests: (await backChannelRequests(peer)) - opBefore,
    cookies: {
      flowCookieNames: flowCookies.map(cookieName),
      flowSetCookieBytes: bytes(flowCookies),
      callbackCookieHeaderBytes,
      sessionSetCookieBytes: bytes(callback.setCookie.filter(isSessionCookie)),
    },
  };
}

/**
 * Starts the OP, then runs `flows` sign-ins per side, alternating, after `warmup` unmeasured ones.
 *
 * @example
 * const result = await benchOidcFlow({ flows: 30, warmup: 3 })
 */
export async function benchOidcFlow(options: OidcFlowOptions): Promise<OidcFlowResult> {
  const peer = await startPeer();
  try {
    const provider = { id: 'oidc', name: 'OIDC', issuer: peer.issuer, clientId: peer.clientId, clientSecret: peer.clientSecret, checks: ['pkce', 'state', 'nonce'] as const };
    const auth = root.createAuth({ secret: BENCH_SECRET, trustHost: true, logger: quiet, providers: [providers.OIDC({ ...provider, checks: [...provider.checks] })] });
    const flows: Partial<Record<FlowSide, () => Promise<FlowRun>>> = {
      authchart: () => signInOnce((r) => auth.handle(r), peer, OURS_SESSION_COOKIE),
    };
    const authjs = await loadAuthjs();
    if (authjs) {
      const config = {
        secret: BENCH_SECRET,
        trustHost: true,
        basePath: '/auth',
        logger: { ...quiet, debug() {} },
        providers: [{ ...provider, type: 'oidc' as const, checks: [...provider.checks] }],
      };
      flows['Auth.js'] = () => signInOnce((r) => authjs.Auth(r, config), peer, AUTHJS_SESSION_COOKIE);
    }
    const contenders = flows as Record<string, () => Promise<FlowRun>>;
    await interleave(options.warmup, contenders);
    const runs = await interleave(options.flows, contenders);
    const result = {} as OidcFlowResult;
    for (const side of FLOW_SIDES) {
      const r = runs[side];
      result[side] = r
        ? { appMs: spreadOf(r, (x) => x.appMs), cpuMs: spreadOf(r, (x) => x.cpuMs), handlerCpuMs: spreadOf(r, (x) => x.handlerCpuMs), totalMs: spreadOf(r, (x) => x.totalMs), opRequests: r[r.length - 1].opRequests, cookies: r[r.length - 1].cookies }
        : { skipped: NOT_INSTALLED };
    }
    return result;
  } finally {
    await stopPeer(peer);
  }
}
