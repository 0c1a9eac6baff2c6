// One side of bench/otel-off.ts (args: flows, warmup): credentials sign-ins in process, CPU per sign-in (median), and
// the CPU of the tracing hook a flow run calls (flowSpan), as one JSON line. Run with or without the hooks that hide
// @opentelemetry/api; no tracer provider is registered either way.
import { flowSpan } from '../src/flows/runtime/spans.js';
import { createAuth } from '../src/http/auth.js';
import { Credentials } from '../src/providers/credentials.js';
import { createClient } from '../test/support/client.js';

const [flows = 300, warmup = 50] = process.argv.slice(2).map(Number);
const HOOK_CALLS = 200_000;
const auth = createAuth(
  {
    secret: 'a-secret-that-is-long-enough-for-the-bench-0123',
    trustHost: true,
    logger: { error() {}, warn() {} },
    providers: [Credentials({ credentials: { username: {}, password: {} }, authorize: (c) => (c.password === 'pw' ? { id: 'u1', name: 'Ada' } : null) })],
  },
  { defaultBasePath: '/auth' },
);
const handle = (request: Request) => auth.handle(request);

async function signIn(): Promise<number> {
  const client = createClient({ fetch: handle, baseUrl: 'http://localhost:3000' });
  const { csrfToken } = (await (await client.get('/auth/csrf')).json()) as { csrfToken: string };
  const c0 = process.cpuUsage();
  const res = await client.post('/auth/callback/credentials', { csrfToken, username: 'ada', password: 'pw' });
  const c = process.cpuUsage(c0);
  if (res.status !== 302) throw new Error(`sign-in answered ${res.status}`);
  return (c.user + c.system) / 1000;
}

/**
 * Nanoseconds of CPU per call of the hook every flow run makes before it starts (the span, or none), called as the
 * runtime calls it once the sign-ins above have loaded (or failed to load) the API. A call that answers anything but
 * "no span" would mean the hook measured is not the one a run without a provider takes.
 */
function hookNs(): number {
  const call = () => {
    if (flowSpan('credentials', 'credentials', 1) !== undefined) throw new Error('flowSpan answered a span (or a promise of one) with no tracer provider');
  };
  for (let i = 0; i < HOOK_CALLS / 10; i += 1) call();
  const c0 = process.cpuUsage();
  for (let i = 0; i < HOOK_CALLS; i += 1) call();
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) * 1000) / HOOK_CALLS;
}

for (let i = 0; i < warmup; i += 1) await signIn();
const cpu: number[] = [];
for (let i = 0; i < flows; i += 1) cpu.push(await signIn());
cpu.sort((a, b) => a - b);
const api = await import('@opentelemetry/api').then(() => 'present', () => 'absent');
console.log(JSON.stringify({ api, medianCpuMs: cpu[Math.floor(cpu.length / 2)], hookNs: hookNs() }));
