// Benchmark 10: what the activity log costs a credentials sign-in: the log on (a memory sink; or PostgreSQL on
// PGlite, the record in the sign-in's transaction) against the same app with the log off. Each round starts the
// two processes of one store at the same time (the machine's load falls on both alike); each figure is the median
// CPU of one sign-in in its process, and each round's ratio is on / off. Target: at most 1.10 (issue 48).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spread, type Spread } from './measure.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

export interface ActivityBenchOptions {
  rounds: number;
  flows: number;
  warmup: number;
}

type Store = 'memory' | 'pglite';

export interface ActivityBenchResult {
  /** Per store: median CPU ms per sign-in with the log off and on (one figure per round), and on / off per round. */
  stores: Record<Store, { offCpuMs: Spread; onCpuMs: Spread; ratio: Spread }>;
}

async function side(store: Store, on: boolean, options: ActivityBenchOptions): Promise<number> {
  const args = ['--import', 'tsx', 'bench/activity-child.ts', store, on ? 'on' : 'off', String(options.flows), String(options.warmup)];
  const { stdout } = await run(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 24 });
  const out = JSON.parse(stdout.trim().split('\n').at(-1)!) as { records: number; medianCpuMs: number };
  if (on !== out.records > 0) throw new Error(`the log ${on ? 'on' : 'off'} kept ${out.records} records (${store})`);
  return out.medianCpuMs;
}

/**
 * @example
 * const { stores } = await benchActivity({ rounds: 6, flows: 200, warmup: 50 })
 * stores.pglite.ratio.median // ≤ 1.10
 */
export async function benchActivity(options: ActivityBenchOptions): Promise<ActivityBenchResult> {
  const stores = {} as ActivityBenchResult['stores'];
  for (const store of ['memory', 'pglite'] as const) {
    const off: number[] = [];
    const on: number[] = [];
    for (let r = 0; r < options.rounds; r += 1) {
      const [a, b] = await Promise.all([side(store, false, options), side(store, true, options)]);
      off.push(a);
      on.push(b);
    }
    stores[store] = { offCpuMs: spread(off), onCpuMs: spread(on), ratio: spread(on.map((v, i) => v / off[i]!)) };
  }
  return { stores };
}

/** The result as report lines (bench/report.ts and the command line). */
export function activityLines(r: ActivityBenchResult): string[] {
  const f = (s: Spread, d = 3) => `${s.median.toFixed(d)} (${s.min.toFixed(d)}–${s.max.toFixed(d)})`;
  return (['memory', 'pglite'] as const).map((store) => {
    const s = r.stores[store];
    return `| ${store === 'memory' ? 'memory sink, JWT, no adapter' : 'PostgreSQL (PGlite), record in the transaction'} | ${f(s.offCpuMs)} | ${f(s.onCpuMs)} | ${f(s.ratio)} | ${s.ratio.median <= 1.1 ? 'yes' : 'no'} |`;
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [rounds = 6, flows = 200, warmup = 50] = process.argv.slice(2).map(Number);
  const result = await benchActivity({ rounds, flows, warmup });
  console.log('| store | CPU ms / sign-in, log off | log on | on / off | ≤ 1.10 |\n|---|---|---|---|---|');
  for (const line of activityLines(result)) console.log(line);
}
