// Benchmark 2: the session check over real HTTP on 127.0.0.1, loaded by autocannon from a second process.
// authchart runs as its Node integration (`ServerAuth`); Auth.js gets the same Request/Response bridge it uses.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseCookies } from 'cookie';
// The floor's token opening: the sources' decodeSync (the dist's bundled copy is not exported).
import { decodeSync } from '../src/session/jwt.js';
import { node } from './built.js';
import { closeHttpServer, listenLoopback } from '../test/e2e/peers/net.js';
import {
  AUTHJS_SESSION_COOKIE,
  BENCH_SECRET,
  BENCH_USER,
  NOT_INSTALLED,
  assertSession,
  OURS_SESSION_COOKIE,
  authchartConfig,
  authjsApp,
  loadAuthjs,
  signInWithCredentials,
  type Handle,
} from './contenders.js';
import { betterAuthSide, loadBetterAuth } from './better-auth.js';
import { interleave, spreadOf, type Spread } from './measure.js';

const AUTOCANNON = join(fileURLToPath(new URL('.', import.meta.url)), 'node_modules', 'autocannon', 'autocannon.js');

export const HTTP_SIDES = ['authchart', 'authchart, token cache off', 'Auth.js', 'better-auth, cookie cache (compact)', 'floor: static JSON', 'floor: cookie + decodeSync'] as const;
export type HttpSide = (typeof HTTP_SIDES)[number];
export const CONNECTIONS = 10;

export interface HttpLoadOptions {
  rounds: number;
  /** Seconds per autocannon run; ignored when `amount` is set. */
  seconds?: number;
  /** Requests per run instead of a duration (smoke runs). */
  amount?: number;
}

export interface HttpFigures {
  requestsPerSec: Spread;
  p99Ms: Spread;
  /** Server-side CPU (this process, autocannon excluded) per request. */
  serverCpuUsPerReq: Spread;
}

export type HttpLoadResult = Record<HttpSide, HttpFigures | { skipped: string }>;

interface RunFigures {
  requestsPerSec: number;
  p99Ms: number;
  serverCpuUsPerReq: number;
}

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

async function serve(handler: NodeHandler): Promise<{ server: Server; origin: string; url: string }> {
  const server = createServer(handler);
  const origin = `http://127.0.0.1:${await listenLoopback(server)}`;
  return { server, origin, url: `${origin}/auth/session` };
}

// The bridge an app would write for a fetch-style handler; authchart ships it, and Auth.js gets the very same.
// Through the real socket, for the checks before loading.
const overHttp: Handle = (request) => fetch(request);

function bridge(handle: Handle): NodeHandler {
  return (req, res) => {
    handle(node.toWebRequest(req))
      .then((response) => node.writeWebResponse(res, response))
      .catch(() => res.writeHead(500).end());
  };
}

/** Runs autocannon in its own process against `url` and reads its JSON summary. */
function autocannon(url: string, cookie: string | undefined, options: HttpLoadOptions): Promise<{ requestsPerSec: number; p99Ms: number; total: number }> {
  const args = [AUTOCANNON, '-c', String(CONNECTIONS), '-j'];
  if (options.amount !== undefined) args.push('-a', String(options.amount));
  else args.push('-d', String(options.seconds ?? 5));
  if (cookie) args.push('-H', `cookie=${cookie}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}: ${err.slice(0, 500)}`));
      const summary = JSON.parse(out) as {
        requests: { average: number; total: number };
        latency: { p99: number };
        errors: number;
        timeouts: number;
        non2xx: number;
        duration: number;
      };
      const failed = summary.errors + summary.timeouts + summary.non2xx;
      if (failed > 0) return reject(new Error(`autocannon saw ${failed} failed requests at ${url}`));
      const total = summary.requests.total;
      resolve({ requestsPerSec: options.amount !== undefined ? total / summary.duration : summary.requests.average, p99Ms: summary.latency.p99, total });
    });
  });
}

async function loadRun(url: string, cookie: string | undefined, options: HttpLoadOptions): Promise<RunFigures> {
  const cpu0 = process.cpuUsage();
  const { requestsPerSec, p99Ms, total } = await autocannon(url, cookie, options);
  const cpu = process.cpuUsage(cpu0);
  return { requestsPerSec, p99Ms, serverCpuUsPerReq: (cpu.user + cpu.system) / total };
}

/**
 * Serves each side on 127.0.0.1 and loads it with autocannon (`CONNECTIONS` connections), rounds interleaved.
 *
 * @example
 * const result = await benchHttpLoad({ rounds: 3, seconds: 5 })
 */
export async function benchHttpLoad(options: HttpLoadOptions): Promise<HttpLoadResult> {
  if (!existsSync(AUTOCANNON)) return Object.fromEntries(HTTP_SIDES.map((s) => [s, { skipped: `autocannon ${NOT_INSTALLED}` }])) as HttpLoadResult;
  const servers: Server[] = [];
  const runs: Partial<Record<HttpSide, () => Promise<RunFigures>>> = {};
  try {
    const middleware = node.ServerAuth(authchartConfig());
    const ours = await serve((req, res) => void middleware(req, res));
    servers.push(ours.server);
    const oursCookie = await signInWithCredentials(undefined, OURS_SESSION_COOKIE, ours.origin);
    await assertSession(overHttp, oursCookie, ours.origin);
    runs.authchart = () => loadRun(ours.url, oursCookie, options);

    // Every check opens the token: what the cache saves, and what the decrypt floor below is compared with.
    const uncachedMiddleware = node.ServerAuth(authchartConfig({ jwt: { verifiedTokenCache: 0 } }));
    const uncached = await serve((req, res) => void uncachedMiddleware(req, res));
    servers.push(uncached.server);
    const uncachedCookie = await signInWithCredentials(undefined, OURS_SESSION_COOKIE, uncached.origin);
    await assertSession(overHttp, uncachedCookie, uncached.origin);
    runs['authchart, token cache off'] = () => loadRun(uncached.url, uncachedCookie, options);

    const authjs = await loadAuthjs();
    if (authjs) {
      const theirs = await serve(bridge(authjsApp(authjs)));
      servers.push(theirs.server);
      const theirCookie = await signInWithCredentials(undefined, AUTHJS_SESSION_COOKIE, theirs.origin);
      await assertSession(overHttp, theirCookie, theirs.origin);
      runs['Auth.js'] = () => loadRun(theirs.url, theirCookie, options);
    }

    // better-auth as its docs serve it on Node (better-auth/node's toNodeHandler), with its compact cookie cache.
    const betterAuth = await loadBetterAuth();
    if (betterAuth) {
      const side = await betterAuthSide(betterAuth, 'cookie cache (compact)');
      const peer = await serve(betterAuth.toNodeHandler(side.auth) as NodeHandler);
      servers.push(peer.server);
      const url = `${peer.origin}/api/auth/get-session`;
      const read = (await (await fetch(url, { headers: { cookie: side.cookie } })).json()) as { user?: { email?: string } } | null;
      if (read?.user?.email !== BENCH_USER.email) throw new Error('better-auth over HTTP did not read its session');
      runs['better-auth, cookie cache (compact)'] = () => loadRun(url, side.cookie, options);
    }

    const body = JSON.stringify({ user: { name: BENCH_USER.name, email: BENCH_USER.email }, expires: new Date().toISOString() });
    const floor = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    servers.push(floor.server);
    runs['floor: static JSON'] = () => loadRun(floor.url, undefined, options);

    // The least a session check over node:http can do: read the cookie, open the token (decodeSync), answer JSON.
    const decrypting = await serve((req, res) => {
      const token = parseCookies(req.headers.cookie ?? '')[OURS_SESSION_COOKIE];
      const claims = decodeSync({ token, secret: BENCH_SECRET, salt: OURS_SESSION_COOKIE });
      const session = claims ? { user: { name: claims.name, email: claims.email, image: claims.picture }, expires: new Date((claims.exp ?? 0) * 1000).toISOString() } : null;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(session));
    });
    servers.push(decrypting.server);
    runs['floor: cookie + decodeSync'] = () => loadRun(decrypting.url, oursCookie, options);

    const samples = await interleave(options.rounds, runs as Record<string, () => Promise<RunFigures>>);
    const result = {} as HttpLoadResult;
    for (const side of HTTP_SIDES) {
      const s = samples[side];
      result[side] = s
        ? { requestsPerSec: spreadOf(s, (r) => r.requestsPerSec), p99Ms: spreadOf(s, (r) => r.p99Ms), serverCpuUsPerReq: spreadOf(s, (r) => r.serverCpuUsPerReq) }
        : { skipped: NOT_INSTALLED };
    }
    return result;
  } finally {
    await Promise.all(servers.map((s) => closeHttpServer(s)));
  }
}
