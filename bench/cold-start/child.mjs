// One fresh process of the cold-start bench: loads one side (authchart from the installed tarball, Auth.js from
// bench/node_modules, or nothing: bare Node/Bun), answers ONE first request and prints, as JSON, the milliseconds
// from process start (performance.now(): the runtime's time origin) at the end and when the handler was ready (the
// library imported, the handler built), and the CPU used so far. Plain ESM, so the same file runs on Node and on Bun
// without a build step.
// The bare side builds the same Web Request the others answer and nothing more: building the input is the caller's
// work (on Node it loads undici, ~20-40 ms), not the library's, so it is in the floor both libraries are measured above.
// The `start` side only starts and exits (the runtime's own floor, reported for reference).
//   argv: <side: authchart | authjs | better-auth | bare | start | xstate> <measure: session | signin | oidc>
// better-auth answers the session measure only: its compact cookie cache (its docs' choice for checks that read no
// database), users and sessions in its memory adapter; the cache alone answers the check in a fresh process.
//   env COLD_START: {"issuer","clientId","clientSecret","cookie","csrfCookie","csrfToken","sessionCookie"}
const [side, measure] = process.argv.slice(2);
const input = JSON.parse(process.env.COLD_START ?? '{}');
const ORIGIN = 'http://localhost:3000';
const SECRET = 'authchart-bench-secret-0123456789-abcdefghij';
const USER = { id: 'user-1', name: 'Alice Bench', email: 'alice@example.test' };
// Errors and warnings silenced, debug off on both sides, as the in-process benches run them (contenders.ts) and as an
// app runs in production. (A custom `debug` function would turn on authchart's flow traces: every debug message is
// the function's to keep or drop. Until 2026-11-29 this file passed one to both sides.)
const quiet = { error() {}, warn() {} };

function request(measure) {
  if (side === 'better-auth' && measure === 'session') return new Request(`${ORIGIN}/api/auth/get-session`, { headers: { cookie: input.sessionCookie } });
  if (measure === 'session') return new Request(`${ORIGIN}/auth/session`, { headers: { cookie: input.sessionCookie } });
  const path = measure === 'signin' ? '/auth/callback/credentials' : '/auth/signin/oidc';
  const form = new URLSearchParams({ csrfToken: input.csrfToken, username: 'alice', password: 'bench', callbackUrl: `${ORIGIN}/` });
  return new Request(`${ORIGIN}${path}`, { method: 'POST', body: form, headers: { cookie: input.csrfCookie, 'content-type': 'application/x-www-form-urlencoded' } });
}

const BETTER_AUTH_PASSWORD = 'bench-password-0123';

async function betterAuthHandler() {
  const { betterAuth } = await import('better-auth');
  const { memoryAdapter } = await import('better-auth/adapters/memory');
  const auth = betterAuth({
    database: memoryAdapter({ user: [], session: [], account: [], verification: [] }),
    secret: SECRET,
    baseURL: ORIGIN,
    basePath: '/api/auth',
    emailAndPassword: { enabled: true },
    session: { cookieCache: { enabled: true, maxAge: 300, strategy: 'compact' } },
    telemetry: { enabled: false },
    logger: { disabled: true },
  });
  const handle = (r) => auth.handler(r);
  handle.signUp = () => auth.api.signUpEmail({ body: { email: USER.email, password: BETTER_AUTH_PASSWORD, name: USER.name } });
  return handle;
}

async function handler() {
  if (side === 'better-auth') return betterAuthHandler();
  const oidc = { id: 'oidc', name: 'OIDC', issuer: input.issuer, clientId: input.clientId, clientSecret: input.clientSecret, checks: ['pkce', 'state', 'nonce'] };
  if (side === 'authchart') {
    const { AuthInit, Credentials } = await import('authchart');
    const providers = [Credentials({ credentials: { username: {}, password: {} }, authorize: async () => ({ ...USER }) })];
    if (input.issuer) providers.push((await import('authchart/providers/oidc')).OIDC(oidc));
    const { handlers } = AuthInit({ secret: SECRET, trustHost: true, basePath: '/auth', logger: quiet, providers });
    return (r) => handlers.POST(r);
  }
  const { Auth } = await import('@auth/core');
  const { default: Credentials } = await import('@auth/core/providers/credentials');
  const providers = [Credentials({ credentials: { username: {}, password: {} }, authorize: async () => ({ ...USER }) })];
  if (input.issuer) providers.push({ ...oidc, type: 'oidc' });
  const config = { secret: SECRET, trustHost: true, basePath: '/auth', session: { strategy: 'jwt' }, logger: quiet, providers };
  return (r) => Auth(r, config);
}

// The `xstate` side: what xstate alone costs a first sign-in, the floor of any flow engine run on it. It imports
// xstate's ESM build (the one authchart's dist bundles), builds two small machines shaped like a credentials sign-in
// (the provider's flow: one invoked check; the sign-in tail: two invoked steps) and runs each once to its final state.
// No authchart code: it answers no request, it only runs what any machine-driven sign-in must run.
async function xstateAlone() {
  const { setup, createActor, fromPromise, assign } = await import(new URL('../../node_modules/xstate/dist/xstate.esm.js', import.meta.url).href);
  const step = fromPromise(async ({ input }) => ({ ...input, steps: input.steps + 1 }));
  const machine = (id, steps) =>
    setup({ actors: { step }, guards: { ok: ({ event }) => event.output.steps > 0 } }).createMachine({
      id,
      context: { steps: 0 },
      initial: steps[0],
      output: ({ context }) => context,
      states: Object.fromEntries([
        ...steps.map((name, i) => [name, { invoke: { src: 'step', input: ({ context }) => context, onDone: [{ guard: 'ok', target: steps[i + 1] ?? 'done', actions: assign(({ event }) => event.output) }, { target: 'failed' }], onError: 'failed' } }]),
        ['done', { type: 'final' }],
        ['failed', { type: 'final' }],
      ]),
    });
  const run = (m) =>
    new Promise((resolve) => {
      const actor = createActor(m);
      actor.subscribe({ complete: () => resolve(actor.getSnapshot().output), error: () => resolve(undefined) });
      actor.start();
    });
  const flow = await run(machine('credentials', ['authorizing']));
  const tail = await run(machine('signin', ['checking', 'issuing']));
  return flow?.steps === 1 && tail?.steps === 2 ? 'xstate' : 'xstate failed';
}

// Not timed: the CSRF pair and a session cookie that the timed processes send, obtained through the side's own routes.
async function prepare(handle) {
  const cookiesOf = (res) => res.headers.getSetCookie().map((line) => line.split(';')[0]);
  if (side === 'better-auth') {
    await handle.signUp();
    const body = JSON.stringify({ email: USER.email, password: BETTER_AUTH_PASSWORD });
    const signIn = await handle(new Request(`${ORIGIN}/api/auth/sign-in/email`, { method: 'POST', headers: { 'content-type': 'application/json', origin: ORIGIN }, body }));
    const cookies = cookiesOf(signIn);
    if (signIn.status !== 200 || !cookies.some((c) => c.startsWith('better-auth.session_data='))) throw new Error(`better-auth: the sign-in answered ${signIn.status} without its cookie cache`);
    return { sessionCookie: cookies.join('; ') };
  }
  const csrf = await handle(new Request(`${ORIGIN}/auth/csrf`));
  Object.assign(input, { csrfToken: (await csrf.json()).csrfToken, csrfCookie: cookiesOf(csrf).join('; ') });
  const signIn = await handle(request('signin'));
  const sessionCookie = cookiesOf(signIn).find((c) => c.includes('session-token'));
  if (signIn.status !== 302 || !sessionCookie) throw new Error(`${side}: the sign-in answered ${signIn.status} without a session cookie`);
  return { csrfToken: input.csrfToken, csrfCookie: input.csrfCookie, sessionCookie };
}

if (measure === 'prepare') {
  process.stdout.write(`${JSON.stringify(await prepare(await handler()))}\n`);
} else {
  let outcome = side;
  let ready = performance.now();
  if (side === 'bare') {
    // Built, not read: how to read the body is the library's work.
    request(measure);
  } else if (side === 'xstate') {
    request(measure);
    outcome = await xstateAlone();
  } else if (side !== 'start') {
    const handle = await handler();
    ready = performance.now();
    const res = await handle(request(measure));
    const text = await res.text();
    outcome = `${res.status} ${res.headers.get('location') ?? ''}`;
    // A session check that answered without the user measured a failure: say so, so the parent refuses the figure.
    if (measure === 'session') outcome += text.includes(USER.email) ? ' user' : ' no user';
  }
  const ms = performance.now();
  const cpu = process.cpuUsage();
  process.stdout.write(`${JSON.stringify({ ms, readyMs: ready, cpuMs: (cpu.user + cpu.system) / 1000, outcome })}\n`);
}
