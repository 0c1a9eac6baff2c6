// Benchmark 10: what the activity log costs a credentials sign-in: the log on (a memory sink; PostgreSQL on PGlite,
// the record in a transaction; or the PostgreSQL server with database sessions, the record in the session's
// transaction) against the same app with the log off. Each round is a fresh process holding both apps, which sign
// in by turns (the process, its JIT and the machine's load of the moment fall on both alike; two processes side by
// side differed by more than the log costs); each figure is the median CPU of one sign-in per side, and each round's
// ratio is on / off. Target: at most 1.10 (issue 48).
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
  /** The PostgreSQL server for the `postgres` store; without it (or unreachable) that store is skipped. */
  databaseUrl?: string;
}

const STORES = ['memory', 'pglite', 'postgres'] as const;
type Store = (typeof STORES)[number];

export interface ActivityBenchResult {
  /**
   * Per store: median CPU ms per sign-in with the log off and on (one figure per round), and on / off per round; or
   * why the store was not measured.
   */
  stores: Record<Store, { offCpuMs: Spread; onCpuMs: Spread; ratio: Spread } | { skipped: string }>;
}

/** One round: both sides in one process, alternating sign-ins. */
async function round(store: Store, options: ActivityBenchOptions): Promise<{ off: number; on: number }> {
  const args = ['--import', 'tsx', 'bench/activity-child.ts', store, String(options.flows), String(options.warmup)];
  const env = { ...process.env, ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}) };
  const { stdout } = await run(process.execPath, args, { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 1 << 24 });
  const out = JSON.parse(stdout.trim().split('\n').at(-1)!) as { records: { off: number; on: number }; offCpuMs: number; onCpuMs: number };
  if (out.records.off !== 0 || out.records.on === 0) throw new Error(`the log off kept ${out.records.off} records, on ${out.records.on} (${store})`);
  return { off: out.offCpuMs, on: out.onCpuMs };
}

/**
 * @example
 * const { stores } = await benchActivity({ rounds: 6, flows: 200, warmup: 50 })
 * stores.pglite.ratio.median // ≤ 1.10
 */
export async function benchActivity(options: ActivityBenchOptions): Promise<ActivityBenchResult> {
  const stores = {} as ActivityBenchResult['stores'];
  for (const store of STORES) {
    if (store === 'postgres' && !options.databaseUrl) {
      stores[store] = { skipped: 'no DATABASE_URL' };
      continue;
    }
    const off: number[] = [];
    const on: number[] = [];
    try {
      for (let r = 0; r < options.rounds; r += 1) {
        const { off: a, on: b } = await round(store, options);
        off.push(a);
        on.push(b);
      }
    } catch (err) {
      // Only the server can be away; the embedded stores failing is a failure of the bench.
      if (store !== 'postgres') throw err;
      stores[store] = { skipped: `PostgreSQL unreachable (${(err as Error).message.split('\n')[0]})` };
      continue;
    }
    stores[store] = { offCpuMs: spread(off), onCpuMs: spread(on), ratio: spread(on.map((v, i) => v / off[i]!)) };
  }
  return { stores };
}

/** The result as report lines (bench/report.ts and the command line). */
export function activityLines(r: ActivityBenchResult): string[] {
  const f = (s: Spread, d = 3) => `${s.median.toFixed(d)} (${s.min.toFixed(d)}–${s.max.toFixed(d)})`;
  const names: Record<Store, string> = {
    memory: 'memory sink, JWT, no adapter',
    pglite: 'PGlite (embedded: its CPU is the app\'s), JWT; the log adds an INSERT',
    postgres: 'PostgreSQL server, database sessions; the record joins the session\'s transaction',
  };
  return STORES.map((store) => {
    const s = r.stores[store];
    if ('skipped' in s) return `| ${names[store]} | – | – | – | not measured: ${s.skipped} |`;
    return `| ${names[store]} | ${f(s.offCpuMs)} | ${f(s.onCpuMs)} | ${f(s.ratio)} | ${s.ratio.median <= 1.1 ? 'yes' : 'no'} |`;
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [rounds = 6, flows = 200, warmup = 50] = process.argv.slice(2).map(Number);
  const result = await benchActivity({ rounds, flows, warmup, databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });
  console.log('| store | CPU ms / sign-in, log off | log on | on / off | ≤ 1.10 |\n|---|---|---|---|---|');
  for (const line of activityLines(result)) console.log(line);
}
