// Benchmark 9: what one Password sign-in costs beside the hash it cannot avoid. A sign-in of a known account with the
// right password, one with a wrong password, and one for an address with no account (checked against the dummy hash
// at the same cost), each `POST /auth/callback/password` in process with a JWT session, next to argon2id's `verify`
// of the same hash alone: the difference is what authchart adds (CSRF, the form, the flow, the session cookie).
import type { Adapter } from '../src/core/adapter.js';
import { root } from './built.js';
import { BENCH_USER, NOT_INSTALLED, ORIGIN, authchartApp, type Handle } from './contenders.js';
import { BETTER_AUTH_PASSWORD, betterAuthSide, loadBetterAuth } from './better-auth.js';
import { interleave, spreadOf, timeLoop, type Sample, type Spread } from './measure.js';

export const PASSWORD_SIDES = ['argon2id verify alone', 'sign-in, right password', 'sign-in, wrong password', 'sign-in, unknown address', 'better-auth sign-in, right password (same argon2id)'] as const;
export type PasswordSide = (typeof PASSWORD_SIDES)[number];

export interface PasswordBenchOptions {
  rounds: number;
  durationMs?: number;
  ops?: number;
  warmup: number;
}

export interface PasswordBenchResult {
  /** The hash parameters both sides use (OWASP's argon2id: memory KiB, passes, lanes). */
  parameters: string;
  sides: Record<PasswordSide, { msPerOp: Spread; cpuMsPerOp: Spread } | { skipped: string }>;
  betterAuthVersion?: string;
}

const EMAIL = BENCH_USER.email;
const PASSWORD = 'correct horse battery staple';

/** The fewest adapter methods a Password sign-in with JWT sessions reads: one user and their hash, in memory. */
function oneUserAdapter(hash: string): Adapter {
  const user = { id: 'user-1', name: 'Alice Bench', email: EMAIL, emailVerified: new Date(0) };
  return {
    createUser: async (u) => ({ ...u, id: 'user-new' }),
    getUser: async (id) => (id === user.id ? { ...user } : null),
    getUserByEmail: async (email) => (email === EMAIL ? { ...user } : null),
    getUserByAccount: async () => null,
    updateUser: async (u) => ({ ...user, ...u }),
    linkAccount: async () => undefined,
    getPasswordHash: async (id) => (id === user.id ? hash : null),
    setPasswordHash: async () => true,
  } as Adapter;
}

/** One sign-in as a timed operation: one CSRF pair, the form posted each time, the answer checked. */
async function signInOp(handle: Handle, email: string, password: string, signsIn: boolean): Promise<() => Promise<void>> {
  const csrf = await handle(new Request(`${ORIGIN}/auth/csrf`));
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookie = csrf.headers.getSetCookie().map((c) => c.split(';', 1)[0]).join('; ');
  const body = new URLSearchParams({ csrfToken, email, password, callbackUrl: `${ORIGIN}/` }).toString();
  return async () => {
    const res = await handle(new Request(`${ORIGIN}/auth/callback/password`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body }));
    await res.arrayBuffer();
    const session = res.headers.getSetCookie().some((c) => c.startsWith('authchart.session-token='));
    const location = res.headers.get('location') ?? '';
    if (res.status !== 302 || session !== signsIn || (!signsIn && !location.includes('error='))) {
      throw new Error(`password sign-in answered ${res.status} ${location}, expected ${signsIn ? 'a session' : 'an error'}`);
    }
  };
}

/**
 * Times a Password sign-in (known, wrong, unknown) against argon2id's verify of the same hash, sequentially.
 *
 * @example
 * const result = await benchPassword({ rounds: 3, durationMs: 1500, warmup: 2 })
 */
export async function benchPassword(options: PasswordBenchOptions): Promise<PasswordBenchResult> {
  const hasher = root.argon2id();
  const hash = await hasher.hash(PASSWORD);
  const handle = await authchartApp({ adapter: oneUserAdapter(hash), session: { strategy: 'jwt' }, providers: [root.Password({ hasher })], throttle: { enabled: false } });
  const loop = { ops: options.ops, durationMs: options.durationMs, warmup: options.warmup, concurrency: 1 };
  const verify = async () => {
    if (!(await hasher.verify(hash, PASSWORD))) throw new Error('argon2id verify failed');
  };
  // better-auth with the same hash (its `emailAndPassword.password` hooks given this argon2id), memory adapter,
  // its compact cookie cache as in the session bench: one e-mail and password sign-in per operation.
  const peer = await loadBetterAuth();
  let peerSignIn: (() => Promise<void>) | undefined;
  if (peer) {
    const side = await betterAuthSide(peer, 'cookie cache (compact)', undefined, { hash: (p) => hasher.hash(p), verify: ({ hash: h, password }) => hasher.verify(h, password) });
    const body = JSON.stringify({ email: BENCH_USER.email, password: BETTER_AUTH_PASSWORD });
    peerSignIn = async () => {
      const res = await side.handle(new Request(`${ORIGIN}/api/auth/sign-in/email`, { method: 'POST', headers: { 'content-type': 'application/json', origin: ORIGIN }, body }));
      await res.arrayBuffer();
      if (res.status !== 200 || !res.headers.getSetCookie().some((c) => c.startsWith('better-auth.session_token='))) throw new Error(`better-auth sign-in answered ${res.status}`);
    };
  }
  const ops: Partial<Record<PasswordSide, () => Promise<void>>> = {
    'argon2id verify alone': verify,
    'sign-in, right password': await signInOp(handle, EMAIL, PASSWORD, true),
    'sign-in, wrong password': await signInOp(handle, EMAIL, 'not the password at all', false),
    'sign-in, unknown address': await signInOp(handle, 'nobody@example.test', PASSWORD, false),
    ...(peerSignIn ? { 'better-auth sign-in, right password (same argon2id)': peerSignIn } : {}),
  };
  const contenders = Object.fromEntries(Object.entries(ops).map(([side, op]) => [side, () => timeLoop(op, loop)])) as Record<string, () => Promise<Sample>>;
  const samples = await interleave(options.rounds, contenders);
  const sides = {} as PasswordBenchResult['sides'];
  for (const side of PASSWORD_SIDES) {
    const s = samples[side];
    sides[side] = s ? { msPerOp: spreadOf(s, (x) => x.wallUsPerOp / 1000), cpuMsPerOp: spreadOf(s, (x) => x.cpuUsPerOp / 1000) } : { skipped: NOT_INSTALLED };
  }
  const p = /m=(\d+),t=(\d+),p=(\d+)/.exec(hash);
  return { parameters: p ? `argon2id m=${p[1]} KiB, t=${p[2]}, p=${p[3]}` : 'argon2id', sides, betterAuthVersion: peer?.version };
}
