// `npm run bench:cold`: cold start of the PACKED package. `npm pack` (prepack builds the bundled dist), the tarball
// installed into a fresh app folder as a user would, then fresh processes, each answering ONE first request:
// a session check, a credentials sign-in, an OIDC sign-in's redirect to a real OpenID Provider. Auth.js (from
// bench/node_modules) and a bare process that only builds the same Web Request (the caller's input: on Node that
// loads undici) run in the same rounds, interleaved, with one that only starts and exits. Each
// figure is milliseconds (wall, and CPU) from process start; reported as the cost above bare Node/Bun, and
// authchart's cost as a ratio of Auth.js's. Writes bench/COLD-START.md. Not part of `npm run bench` or CI.
//   npm run bench:cold -- [rounds]    (default 15; at least 10)
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packAndInstall } from '../test/package/install.js';
import { spread, type Spread } from './measure.js';
import { startPeer, stopPeer } from './oidc-flow.js';

const BENCH = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(BENCH, '..');
const CHILD = join(BENCH, 'cold-start', 'child.mjs');
const BUN = join(ROOT, 'runtimes', 'node_modules', '.bin', 'bun');
const rounds = Math.max(10, Number(process.argv[2] ?? 15));

const MEASURES = ['session', 'signin', 'oidc'] as const;
type Measure = (typeof MEASURES)[number];
const MEASURE_NAMES: Record<Measure, string> = { session: 'first session check', signin: 'first credentials sign-in', oidc: 'first OIDC redirect' };
type Side = 'authchart' | 'authjs' | 'better-auth' | 'bare' | 'start' | 'xstate';
interface Run {
  ms: number;
  /** When the handler was ready (library imported, handler built): what is left to `ms` is the first request. */
  readyMs: number;
  cpuMs: number;
  outcome: string;
}

const app = mkdtempSync(join(tmpdir(), 'authchart-cold-start-'));
console.log(`Packing and installing the tarball into ${app}...`);
packAndInstall(app);
// The same child file in both places: next to the installed authchart, and in bench/ where @auth/core resolves.
copyFileSync(CHILD, join(app, 'child.mjs'));
const dirOf = (side: Side) => (side === 'authchart' ? app : join(BENCH, 'cold-start'));

/** The cold-start target per runtime (issue 50): half of Auth.js's cost on Node, parity on Bun. */
const targetOf = (runtimeName: string): number => (runtimeName === 'Bun' ? 1 : 0.5);

function run(runtime: string, side: Side, measure: Measure | 'prepare', input: Record<string, unknown>): string {
  const args = runtime.endsWith('bun') ? ['run', 'child.mjs', side, measure] : ['child.mjs', side, measure];
  const done = spawnSync(runtime, args, { cwd: dirOf(side), encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', COLD_START: JSON.stringify(input) } });
  if (done.status !== 0) throw new Error(`${runtime} ${side} ${measure} failed (${done.status}): ${done.stderr}`);
  return done.stdout.trim().split('\n').pop()!;
}

const peer = await startPeer();
const runtimes = [{ name: `Node ${process.version}`, bin: process.execPath }];
if (existsSync(BUN)) runtimes.push({ name: `Bun ${execFileSync(BUN, ['--version'], { encoding: 'utf8' }).trim()}`, bin: BUN });
else console.log('Bun is not installed (npm --prefix runtimes ci): Node only.');

const loadStart = loadavg()[0];
const started = Date.now();
const sections: string[] = [];
const summary: string[] = [];
try {
  for (const runtime of runtimes) {
    const inputs = Object.fromEntries(
      (['authchart', 'authjs', 'better-auth'] as const).map((side) => [side, JSON.parse(run(runtime.bin, side, 'prepare', {})) as Record<string, unknown>]),
    ) as Record<'authchart' | 'authjs' | 'better-auth', Record<string, unknown>>;
    const oidc = { issuer: peer.issuer, clientId: peer.clientId, clientSecret: peer.clientSecret };
    const jobs: { key: string; side: Side; measure: Measure }[] = [{ key: 'start', side: 'start', measure: 'session' }];
    for (const measure of MEASURES) for (const side of ['bare', 'authchart', 'authjs'] as const) jobs.push({ key: `${side}/${measure}`, side, measure });
    // better-auth: the first session check (its cookie cache), the measure the issue compares it on.
    jobs.push({ key: 'better-auth/session', side: 'better-auth', measure: 'session' });
    // xstate alone, beside the first sign-in: the floor of a flow engine that runs its flows as XState machines.
    jobs.push({ key: 'xstate/signin', side: 'xstate', measure: 'signin' });
    const runs: Record<string, Run[]> = Object.fromEntries(jobs.map((j) => [j.key, []]));
    console.log(`${runtime.name}: ${rounds} rounds of ${jobs.length} fresh processes...`);
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < jobs.length; i++) {
        const job = jobs[(i + round) % jobs.length];
        const input = job.side === 'start' ? {} : job.side === 'bare' || job.side === 'xstate' ? inputs.authchart : { ...inputs[job.side], ...(job.measure === 'oidc' ? oidc : {}) };
        const result = JSON.parse(run(runtime.bin, job.side, job.measure, input)) as Run;
        const expected = job.side === 'bare' || job.side === 'start' || job.side === 'xstate' ? new RegExp(`^${job.side}$`) : job.measure === 'session' ? /^200 +user$/ : job.measure === 'signin' ? /^302 http:\/\/localhost:3000\/$/ : /^302 http:\/\/(127\.0\.0\.1|localhost):\d+\/\S*auth\S*\?/;
        // A process that answered wrongly measured nothing: no figure for a broken setup.
        if (!expected.test(result.outcome)) throw new Error(`${runtime.name} ${job.key}: unexpected answer "${result.outcome}"`);
        runs[job.key].push(result);
      }
    }
    const f = (s: Spread) => `${s.min.toFixed(0)} / **${s.median.toFixed(0)}** / ${s.max.toFixed(0)}`;
    const floorOf = (key: string) => ({ ms: spread(runs[key].map((r) => r.ms)), cpu: spread(runs[key].map((r) => r.cpuMs)) });
    const start = floorOf('start');
    const runtimeName = runtime.name.split(' ')[0];
    const rows = [`| ${runtimeName}, start and exit | – | ${f(start.ms)} | ${f(start.cpu)} | – | – | – |`];
    const ratios: string[] = [];
    for (const measure of MEASURES) {
      const bare = floorOf(`bare/${measure}`);
      rows.push(`| bare ${runtimeName}: builds the request | ${MEASURE_NAMES[measure]} | ${f(bare.ms)} | ${f(bare.cpu)} | – | – | – |`);
      const cost: Record<string, { ms: number; cpu: number }> = {};
      for (const side of ['authchart', 'authjs'] as const) {
        const ms = spread(runs[`${side}/${measure}`].map((r) => r.ms));
        const cpu = spread(runs[`${side}/${measure}`].map((r) => r.cpuMs));
        cost[side] = { ms: ms.median - bare.ms.median, cpu: cpu.median - bare.cpu.median };
        const ready = spread(runs[`${side}/${measure}`].map((r) => r.readyMs)).median;
        rows.push(`| ${side === 'authchart' ? 'authchart' : 'Auth.js'} | ${MEASURE_NAMES[measure]} | ${f(ms)} | ${f(cpu)} | ${cost[side].ms.toFixed(0)} | ${cost[side].cpu.toFixed(0)} | ${ready.toFixed(0)} |`);
      }
      if (measure === 'session') {
        const key = 'better-auth/session';
        const ms = spread(runs[key].map((r) => r.ms));
        const cpu = spread(runs[key].map((r) => r.cpuMs));
        const peer = { ms: ms.median - bare.ms.median, cpu: cpu.median - bare.cpu.median };
        rows.push(`| better-auth (compact cookie cache) | ${MEASURE_NAMES[measure]} | ${f(ms)} | ${f(cpu)} | ${peer.ms.toFixed(0)} | ${peer.cpu.toFixed(0)} | ${spread(runs[key].map((r) => r.readyMs)).median.toFixed(0)} |`);
        const vs = cost.authchart.ms / peer.ms;
        ratios.push(`- ${MEASURE_NAMES[measure]} against better-auth: authchart's cost above bare ${runtimeName} is **${vs.toFixed(2)}×** better-auth's in wall time (${cost.authchart.ms.toFixed(0)} / ${peer.ms.toFixed(0)} ms), ${(cost.authchart.cpu / peer.cpu).toFixed(2)}× in CPU (ahead: ${vs < 1 ? 'yes' : 'no'}).`);
        summary.push(`| ${runtime.name} | ${MEASURE_NAMES[measure]}, against better-auth | ${vs.toFixed(2)}× | ${(cost.authchart.cpu / peer.cpu).toFixed(2)}× | ${vs < 1 ? 'ahead' : 'behind'} |`);
      }
      const wall = cost.authchart.ms / cost.authjs.ms;
      const cpu = cost.authchart.cpu / cost.authjs.cpu;
      const goal = targetOf(runtimeName);
      if (measure === 'signin') {
        // No library: xstate's import, two small machines built and run once (bench/cold-start/child.mjs).
        const key = 'xstate/signin';
        const ms = spread(runs[key].map((r) => r.ms));
        const cpu = spread(runs[key].map((r) => r.cpuMs));
        const floor = { ms: ms.median - bare.ms.median, cpu: cpu.median - bare.cpu.median };
        rows.push(`| xstate alone: imported, two machines run once | ${MEASURE_NAMES[measure]} (no library) | ${f(ms)} | ${f(cpu)} | ${floor.ms.toFixed(0)} | ${floor.cpu.toFixed(0)} | – |`);
        ratios.push(`- xstate alone, the floor of any sign-in whose flows are XState machines, costs **${(floor.ms / cost.authjs.ms).toFixed(2)}×** Auth.js's whole first credentials sign-in above bare ${runtimeName} in wall time (${floor.ms.toFixed(0)} / ${cost.authjs.ms.toFixed(0)} ms), ${(floor.cpu / cost.authjs.cpu).toFixed(2)}× in CPU; it is ${(floor.ms / cost.authchart.ms).toFixed(2)}× authchart's.`);
      }
      // The same figures above start-and-exit, where building the request counts as each library's cost.
      const input = Math.max(0, bare.ms.median - start.ms.median);
      const fromStart = (cost.authchart.ms + input) / (cost.authjs.ms + input);
      ratios.push(`- ${MEASURE_NAMES[measure]}: authchart's cost above bare ${runtimeName} is **${wall.toFixed(2)}×** Auth.js's in wall time (${cost.authchart.ms.toFixed(0)} / ${cost.authjs.ms.toFixed(0)} ms), ${cpu.toFixed(2)}× in CPU (target ≤ ${goal}×: ${wall <= goal ? 'met' : 'not met'}). Counting the ${input.toFixed(0)} ms of building the request as the library's: ${fromStart.toFixed(2)}×.`);
      summary.push(`| ${runtime.name} | ${MEASURE_NAMES[measure]} | ${wall.toFixed(2)}× | ${cpu.toFixed(2)}× | ≤ ${goal}×: ${wall <= goal ? 'yes' : 'no'} |`);
    }
    sections.push(
      [
        `## ${runtime.name}`,
        '',
        `Milliseconds from process start (the runtime's \`performance.now()\`, CPU from \`process.cpuUsage()\`), min / **median** / max over ${rounds} fresh processes each. "Above bare" subtracts the median of the bare process that builds the same request. "Handler ready at": median wall time when the library was imported and the handler built; the rest is the first request.`,
        '',
        '| side | first request | wall ms | CPU ms | wall ms above bare | CPU ms above bare | handler ready at, ms |',
        '|---|---|---|---|---|---|---|',
        ...rows,
        '',
        ...ratios,
      ].join('\n'),
    );
  }
} finally {
  await stopPeer(peer);
  rmSync(app, { recursive: true, force: true });
}

const markdown = [
  '# Cold start from the packed build',
  '',
  `Written by \`npm run bench:cold\` on ${new Date().toISOString()}, in ${Math.round((Date.now() - started) / 1000)} s: \`npm pack\` (prepack builds the bundled dist), the tarball installed into a fresh app folder, then ${rounds} rounds in which every side and measure runs in a fresh process, in rotating order.`,
  '',
  `- Machine: ${cpus().length} cores (${cpus()[0]?.model.trim()}), 1-minute load average ${loadStart.toFixed(2)} at the start, ${loadavg()[0].toFixed(2)} at the end (other work shares the cores; compare ratios within this run, not across runs).`,
  '- Each process imports its library, builds its handler and answers one request: `GET /auth/session` with a valid session cookie, `POST /auth/callback/credentials` with a CSRF pair, or `POST /auth/signin/oidc` (discovery from a real oidc-provider in another process, then the redirect). Session and credentials: a credentials-only configuration; OIDC: credentials plus the OIDC provider (authchart: `OIDC` imported from `authchart/providers/oidc`, as an app that signs in only with its own OpenID Provider would write: the full `authchart/providers` barrel also loads the catalogue presets, the e-mail senders and WebAuthn; Auth.js: a plain `type: "oidc"` object, which needs no import). Same secret, same provider options on both sides; the same logger, silencing errors and warnings with debug off, as the in-process benches configure both (until 2026-11-29 this bench also passed a no-op `debug` function, which turns on authchart\'s flow traces).',
  '- authchart: the installed tarball. Auth.js: `@auth/core` from bench/node_modules. Bare: the same script, importing nothing; it builds the same Web `Request` the libraries are handed (on Node the first `Request` loads undici, 20-40 ms), because building the input is the caller\'s work, not the library\'s. Reading the body is left to each library. Until 2026-11-26 the floor was a process that only starts and exits; each measure also gives the ratio against that floor.',
  '- xstate alone (beside the first credentials sign-in): a process that builds the same request, imports xstate\'s ESM build (the one authchart\'s dist bundles) and runs two small machines shaped like a sign-in (one invoked check; then two invoked steps) once each, importing no library. It is what any first sign-in run by XState machines pays, the floor under authchart\'s design (DESIGN: every flow is an XState machine).',
  '- Ratio: (authchart − bare) / (Auth.js − bare), on medians. Below 1 is better; the targets (issue 50) are ≤ 0.5× on Node and parity, ≤ 1×, on Bun.',
  '',
  '## Summary',
  '',
  '| runtime | measure | authchart / Auth.js above bare, wall | CPU | target |',
  '|---|---|---|---|---|',
  ...summary,
  '',
  ...sections.flatMap((s) => [s, '']),
].join('\n');
writeFileSync(join(BENCH, 'COLD-START.md'), markdown);
console.log(markdown);
