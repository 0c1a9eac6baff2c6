// `npx tsx bench/oidc-profile.ts [flows] [authchart|Auth.js] [top]`: one side of the OIDC sign-in of
// bench/oidc-flow.ts (CSRF GET, POST sign-in, GET callback against the same child-process OP), many times in a row
// under the V8 CPU profiler, then the functions that took the CPU inside each of the app's requests (self time,
// samples cut to the request's window). Add `--write DIR` to keep the .cpuprofile for a viewer.
import { writeFileSync } from 'node:fs';
import { Session, type Profiler } from 'node:inspector/promises';
import { join } from 'node:path';
import { providers, root } from './built.js';
import { AUTHJS_SESSION_COOKIE, BENCH_SECRET, OURS_SESSION_COOKIE, loadAuthjs, quiet, type Handle } from './contenders.js';
import { spreadOf } from './measure.js';
import { signInOnce, startPeer, stopPeer, type FlowRun } from './oidc-flow.js';

const args = process.argv.slice(2);
const writeAt = args.indexOf('--write');
const dir = writeAt >= 0 ? args.splice(writeAt, 2)[1] : undefined;
const plainAt = args.indexOf('--no-profile');
const profiling = plainAt < 0;
if (!profiling) args.splice(plainAt, 1);
const [flowsArg = '300', side = 'authchart', topArg = '25'] = args;
const flows = Number(flowsArg);
const PHASES = ['CSRF', 'sign-in', 'callback'];

async function handler(peer: Awaited<ReturnType<typeof startPeer>>): Promise<{ handle: Handle; cookie: string }> {
  const provider = { id: 'oidc', name: 'OIDC', issuer: peer.issuer, clientId: peer.clientId, clientSecret: peer.clientSecret, checks: ['pkce', 'state', 'nonce'] as Array<'pkce' | 'state' | 'nonce'> };
  if (side === 'Auth.js') {
    const authjs = await loadAuthjs();
    if (!authjs) throw new Error('Auth.js is not installed (npm run bench:install)');
    const config = { secret: BENCH_SECRET, trustHost: true, basePath: '/auth', logger: { ...quiet, debug() {} }, providers: [{ ...provider, type: 'oidc' as const }] };
    return { handle: (r) => authjs.Auth(r, config), cookie: AUTHJS_SESSION_COOKIE };
  }
  const auth = root.createAuth({ secret: BENCH_SECRET, trustHost: true, logger: quiet, providers: [providers.OIDC(provider)] });
  return { handle: (r) => auth.handle(r), cookie: OURS_SESSION_COOKIE };
}

/** Self time per function inside each phase's windows, in ms per flow. */
function byPhase(profile: Profiler.Profile, windows: Array<[number, bigint, bigint]>, runs: number): Array<Map<string, number>> {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const out = PHASES.map(() => new Map<string, number>());
  const spans = windows.map(([phase, a, b]) => [phase, Number(a / 1000n), Number(b / 1000n)] as const).sort((x, y) => x[1] - y[1]);
  let t = profile.startTime;
  let w = 0;
  for (let i = 0; i < profile.samples!.length; i++) {
    t += profile.timeDeltas![i];
    while (w < spans.length && spans[w][2] < t) w++;
    if (w === spans.length || spans[w][1] > t) continue;
    const f = frames.get(profile.samples![i])!;
    const where = f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench|test)\//, '$1/');
    const name = `${f.functionName || '(anonymous)'} ${where}${f.url ? `:${f.lineNumber + 1}` : ''}`;
    const phase = out[spans[w][0]];
    phase.set(name, (phase.get(name) ?? 0) + profile.timeDeltas![i] / 1000 / runs);
  }
  return out;
}

const peer = await startPeer();
try {
  const { handle, cookie } = await handler(peer);
  for (let i = 0; i < 20; i += 1) await signInOnce(handle, peer, cookie);
  const session = new Session();
  if (profiling) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
  }
  const windows: Array<[number, bigint, bigint]> = [];
  const runs: FlowRun[] = [];
  for (let i = 0; i < flows; i += 1) runs.push(await signInOnce(handle, peer, cookie, windows));
  const median = (f: (r: FlowRun) => number) => spreadOf(runs, f).median.toFixed(3);
  console.log(`${side}, ${flows} flows${profiling ? ' under the profiler' : ''}: CPU per flow median ${median((r) => r.cpuMs)} ms (${PHASES.map((p, i) => `${p} ${median((r) => r.phaseCpuMs[i])}`).join(', ')})`);
  if (!profiling) process.exit(0);
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  if (dir) {
    writeFileSync(join(dir, `oidc-${side}.cpuprofile`), JSON.stringify(profile));
    writeFileSync(join(dir, `oidc-${side}.windows.json`), JSON.stringify(windows.map(([p, a, b]) => [p, Number(a / 1000n), Number(b / 1000n)])));
  }
  byPhase(profile, windows, flows).forEach((phase, i) => {
    const total = [...phase.values()].reduce((a, b) => a + b, 0);
    console.log(`\n${PHASES[i]}: ${total.toFixed(2)} ms sampled per flow; top self time, ms per flow:`);
    for (const [name, ms] of [...phase].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg))) console.log(`${ms.toFixed(3).padStart(8)}  ${name}`);
  });
} finally {
  await stopPeer(peer);
}
