// Benchmark 1: `GET /auth/session` with a valid JWT cookie, in process, authchart's `app.fetch` against Auth.js's
// `Auth()`, next to the floors: opening the same token with our node:crypto `decodeSync` and with jose, and h3
// answering the same JSON with no work at all.
import { H3 } from 'h3';
import { jwtDecrypt } from 'jose';
import { AuthResponse } from '../src/core/fast-response.js';
import { root } from './built.js';
import { decodeSync } from '../src/session/jwt.js';
import { deriveSessionKey } from '../src/session/keys.js';
import {
  AUTHJS_SESSION_COOKIE,
  BENCH_SECRET,
  NOT_INSTALLED,
  authchartConfig,
  ORIGIN,
  OURS_SESSION_COOKIE,
  assertSession,
  authchartApp,
  authjsApp,
  loadAuthjs,
  sessionCheck,
  signInWithCredentials,
  type Handle,
} from './contenders.js';
import { betterAuthCheck, betterAuthSide, loadBetterAuth } from './better-auth.js';
import { interleave, spreadOf, timeLoop, type LoopOptions, type Sample, type Spread } from './measure.js';

export const SESSION_SIDES = ['authchart', 'authchart, token cache off', 'authchart, throttling on', 'authchart, auth() in auth(handler)', 'Auth.js', 'better-auth, cookie cache (compact)', 'better-auth, cookie cache (jwe)', 'floor: decodeSync (node:crypto)', 'floor: jose jwtDecrypt', 'floor: h3 app.fetch, same JSON'] as const;
export type SessionSide = (typeof SESSION_SIDES)[number];
export const IN_FLIGHT = 10;

export interface SessionCheckOptions {
  rounds: number;
  /** Per timed loop; ignored when `ops` is set. */
  durationMs?: number;
  ops?: number;
  warmup: number;
}

/** Figures of one side in one mode (sequential or {@link IN_FLIGHT} in flight). */
export interface SessionFigures {
  opsPerSec: Spread;
  cpuUsPerOp: Spread;
}

export interface SessionCheckResult {
  /** Per side: figures by mode, or why the side did not run. */
  sides: Record<SessionSide, { sequential: SessionFigures; inFlight: SessionFigures } | { skipped: string }>;
  /** Length of the session cookie's value each side set at sign-in. */
  tokenChars: { authchart: number; authjs?: number; betterAuth?: number };
  authjsVersion?: string;
  betterAuthVersion?: string;
}

function figures(samples: Sample[]): SessionFigures {
  return { opsPerSec: spreadOf(samples, (s) => s.opsPerSec), cpuUsPerOp: spreadOf(samples, (s) => s.cpuUsPerOp) };
}

/**
 * The framework's share: an h3 app answering the same session JSON with the same headers, as the same kind of
 * Response (AuthResponse), and no work at all, so authchart's figure splits into this, the decryption floor, and
 * what is left for our own code.
 */
async function staticSessionApp(handle: Handle, cookie: string): Promise<Handle> {
  const sample = await handle(new Request(`${ORIGIN}/auth/session`, { headers: { cookie } }));
  const body = await sample.text();
  const headers = [...sample.headers];
  const app = new H3();
  app.get('/auth/session', () => new AuthResponse(body, { status: 200, headers }));
  return (request) => Promise.resolve(app.fetch(request));
}

/**
 * Signs in on both sides, then times the session check and the floors, sequential and with
 * {@link IN_FLIGHT} in flight, interleaved over `rounds`.
 *
 * @example
 * const result = await benchSessionCheck({ rounds: 5, durationMs: 500, warmup: 200 })
 */
export async function benchSessionCheck(options: SessionCheckOptions): Promise<SessionCheckResult> {
  const ours = await authchartApp();
  const oursCookie = await signInWithCredentials(ours, OURS_SESSION_COOKIE);
  await assertSession(ours, oursCookie);
  const token = oursCookie.slice(OURS_SESSION_COOKIE.length + 1);
  const { key } = deriveSessionKey(BENCH_SECRET, OURS_SESSION_COOKIE);
  // Both floors must accept the token, or they would be timing a failure path.
  if (decodeSync({ token, secret: BENCH_SECRET, salt: OURS_SESSION_COOKIE })?.email === undefined) throw new Error('decodeSync did not open the token');
  const joseOptions = { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256CBC-HS512'] };
  if ((await jwtDecrypt(token, key, joseOptions)).payload.email === undefined) throw new Error('jose did not open the token');

  // Every check opens the token: the figure the decodeSync floor is compared with.
  const uncached = await authchartApp({ jwt: { verifiedTokenCache: 0 } });
  const uncachedCookie = await signInWithCredentials(uncached, OURS_SESSION_COOKIE);
  await assertSession(uncached, uncachedCookie);

  // Throttling applies to the sign-in routes only: the same check with it on must cost the same.
  const throttled = await authchartApp({ throttle: { enabled: true } });
  const throttledCookie = await signInWithCredentials(throttled, OURS_SESSION_COOKIE);
  await assertSession(throttled, throttledCookie);

  // The spec's server form: a handler wrapped by auth(handler) that reads the session with auth(), through the
  // request context that form enters. It must cost what a plain check costs.
  const { auth } = root.AuthInit(authchartConfig());
  const page = auth(async () => AuthResponse.json(await auth()));
  const pageRequest = new Request(`${ORIGIN}/page`, { headers: { cookie: oursCookie } });
  const pageOnce = async () => (await page(pageRequest))!.text();
  if (!(await pageOnce()).includes('"email"')) throw new Error('auth() inside auth(handler) did not read the session');

  const ops: Partial<Record<SessionSide, () => unknown>> = {
    authchart: sessionCheck(ours, oursCookie),
    'authchart, token cache off': sessionCheck(uncached, uncachedCookie),
    'authchart, throttling on': sessionCheck(throttled, throttledCookie),
    'authchart, auth() in auth(handler)': pageOnce,
    'floor: decodeSync (node:crypto)': () => decodeSync({ token, secret: BENCH_SECRET, salt: OURS_SESSION_COOKIE }),
    'floor: jose jwtDecrypt': () => jwtDecrypt(token, key, joseOptions),
    'floor: h3 app.fetch, same JSON': sessionCheck(await staticSessionApp(ours, oursCookie), oursCookie),
  };
  const authjs = await loadAuthjs();
  let authjsToken: string | undefined;
  if (authjs) {
    const theirs = authjsApp(authjs);
    const theirCookie = await signInWithCredentials(theirs, AUTHJS_SESSION_COOKIE);
    await assertSession(theirs, theirCookie);
    authjsToken = theirCookie.slice(AUTHJS_SESSION_COOKIE.length + 1);
    ops['Auth.js'] = sessionCheck(theirs, theirCookie);
  }

  // better-auth as its docs recommend for a check that reads no database: the session cookie cache (users and
  // sessions in its memory adapter; a check within the cache's five minutes never reads them).
  const betterAuth = await loadBetterAuth();
  let betterAuthChars: number | undefined;
  if (betterAuth) {
    for (const mode of ['cookie cache (compact)', 'cookie cache (jwe)'] as const) {
      const side = await betterAuthSide(betterAuth, mode);
      if (mode === 'cookie cache (compact)') betterAuthChars = side.cookieChars;
      ops[`better-auth, ${mode}`] = betterAuthCheck(side.handle, side.cookie);
    }
  }

  const loop = (concurrency: number): LoopOptions => ({ ops: options.ops, durationMs: options.durationMs, warmup: options.warmup, concurrency });
  const contenders: Record<string, () => Promise<Sample>> = {};
  for (const [side, op] of Object.entries(ops)) {
    contenders[`${side}|seq`] = () => timeLoop(op, loop(1));
    contenders[`${side}|flight`] = () => timeLoop(op, loop(IN_FLIGHT));
  }
  const samples = await interleave(options.rounds, contenders);

  const sides = {} as SessionCheckResult['sides'];
  for (const side of SESSION_SIDES) {
    sides[side] = ops[side]
      ? { sequential: figures(samples[`${side}|seq`]), inFlight: figures(samples[`${side}|flight`]) }
      : { skipped: NOT_INSTALLED };
  }
  return { sides, tokenChars: { authchart: token.length, authjs: authjsToken?.length, betterAuth: betterAuthChars }, authjsVersion: authjs?.version, betterAuthVersion: betterAuth?.version };
}
