// Runs every benchmark in order with one set of counts, and collects the figures and the conditions they were
// measured under. `npm run bench` uses FULL; the smoke test in `npm test` uses SMOKE so the harness never rots.
import { spawn } from 'node:child_process';
import { cpus, loadavg, release, totalmem, type } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchBundle, type BundleResult } from './bundle.js';
import { loadAuthjs } from './contenders.js';
import { benchDatabase, type DatabaseResult } from './database.js';
import { benchHttpLoad, type HttpLoadResult } from './http-load.js';
import { benchOidcFlow, type OidcFlowResult } from './oidc-flow.js';
import { benchOtelOff, type OtelOffOptions, type OtelOffResult } from './otel-off.js';
import { benchActivity, type ActivityBenchOptions, type ActivityBenchResult } from './activity.js';
import { benchPassword, type PasswordBenchOptions, type PasswordBenchResult } from './password.js';
import { benchSessionCheck, type SessionCheckResult } from './session-check.js';
import { benchThrottle, type ThrottleBenchResult } from './throttle.js';

/** How much of each benchmark to run. */
export interface Settings {
  name: string;
  session: { rounds: number; durationMs?: number; ops?: number; warmup: number };
  http: { rounds: number; seconds?: number; amount?: number };
  oidc: { flows: number; warmup: number };
  database: { rounds: number; durationMs?: number; ops?: number; warmup: number };
  throttle: { rounds: number; durationMs?: number; ops?: number; warmup: number };
  otel: OtelOffOptions;
  activity: ActivityBenchOptions;
  password: PasswordBenchOptions;
}

/** The real run: about three minutes on two cores. */
export const FULL: Settings = {
  name: 'full',
  session: { rounds: 9, durationMs: 300, warmup: 100 },
  http: { rounds: 3, seconds: 5 },
  oidc: { flows: 100, warmup: 200 },
  database: { rounds: 3, durationMs: 500, warmup: 50 },
  throttle: { rounds: 5, durationMs: 600, warmup: 20 },
  otel: { rounds: 12, flows: 200, warmup: 50 },
  activity: { rounds: 5, flows: 200, warmup: 50 },
  password: { rounds: 5, durationMs: 1500, warmup: 3 },
};

/** Tiny counts: proves every benchmark still runs and yields numbers, in seconds. */
export const SMOKE: Settings = {
  name: 'smoke',
  session: { rounds: 1, ops: 5, warmup: 1 },
  http: { rounds: 1, amount: 10 },
  oidc: { flows: 2, warmup: 0 },
  database: { rounds: 1, ops: 5, warmup: 1 },
  throttle: { rounds: 1, ops: 3, warmup: 1 },
  otel: { rounds: 1, flows: 3, warmup: 1 },
  activity: { rounds: 1, flows: 3, warmup: 1 },
  password: { rounds: 1, ops: 2, warmup: 1 },
};

export interface Machine {
  date: string;
  node: string;
  os: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  /** 1-minute load average when the run started and when it ended: other work on the machine skews throughput. */
  load: [number, number];
  authjsVersion?: string;
  seconds: number;
  settings: string;
  /** Whether each section ran in a process of its own (`isolate`). */
  isolated?: boolean;
}

export interface BenchResults {
  machine: Machine;
  session?: SessionCheckResult;
  http?: HttpLoadResult;
  oidc?: OidcFlowResult;
  database?: DatabaseResult;
  bundle?: BundleResult;
  throttle?: ThrottleBenchResult;
  otel?: OtelOffResult;
  activity?: ActivityBenchResult;
  password?: PasswordBenchResult;
  /** A benchmark that threw: its message, so the others still report. */
  failures: Record<string, string>;
}

export const SECTIONS = ['session', 'http', 'oidc', 'database', 'bundle', 'throttle', 'otel', 'password', 'activity'] as const;
export type Section = (typeof SECTIONS)[number];

const SECTION_CHILD = fileURLToPath(new URL('./section-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One section in a fresh process (bench/section-child.ts, under tsx): its figures, or why it failed. Its progress lines go to `log`. */
function runIsolated<K extends Section>(section: K, settings: Settings, log: (line: string) => void, databaseUrl?: string): Promise<BenchResults[K]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SECTION_CHILD, section, settings.name], {
      cwd: ROOT,
      env: { ...process.env, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    // Progress lines, whole: a chunk of output may end inside one.
    let pending = '';
    child.stderr.on('data', (d: Buffer) => {
      const lines = (pending + String(d)).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) log(`  ${line}`);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (pending.trim()) log(`  ${pending}`);
      const last = out.trim().split('\n').pop() ?? '';
      let parsed: { figures: BenchResults[K] | null; failure: string | null };
      try {
        parsed = JSON.parse(last) as typeof parsed;
      } catch {
        return reject(new Error(`the ${section} process exited with ${code} without figures`));
      }
      if (parsed.failure || !parsed.figures) reject(new Error(parsed.failure ?? `the ${section} process gave no figures`));
      else resolve(parsed.figures);
    });
  });
}

/**
 * Runs the benchmarks (all, or `only`), logging progress through `log`. With `isolate`, each section runs in a
 * process of its own (what `npm run bench` does), so no section measures code another one warmed or deoptimised.
 *
 * @example
 * const results = await runBenchmarks(FULL, { log: console.log, databaseUrl: process.env.DATABASE_URL, isolate: true })
 */
export async function runBenchmarks(settings: Settings, options: { log?: (line: string) => void; databaseUrl?: string; only?: Section[]; isolate?: boolean } = {}): Promise<BenchResults> {
  const log = options.log ?? (() => {});
  const wanted = new Set(options.only ?? SECTIONS);
  const started = performance.now();
  const loadBefore = loadavg()[0];
  const results: BenchResults = { machine: undefined as unknown as Machine, failures: {} };
  const step = async <K extends Section>(section: K, title: string, run: () => Promise<BenchResults[K]>): Promise<void> => {
    if (!wanted.has(section)) return;
    log(`${title}...`);
    const t0 = performance.now();
    try {
      (results as unknown as Record<Section, unknown>)[section] = options.isolate ? await runIsolated(section, settings, log, options.databaseUrl) : await run();
    } catch (err) {
      results.failures[section] = err instanceof Error ? `${err.message}` : String(err);
      log(`  failed: ${results.failures[section]}`);
    }
    log(`  ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  };
  await step('session', '1. session check in process', () => benchSessionCheck(settings.session));
  await step('http', '2. session check over HTTP (autocannon)', () => benchHttpLoad(settings.http));
  await step('oidc', '3-4. OIDC sign-in and its cookies', () => benchOidcFlow(settings.oidc));
  await step('database', '5. database session check', () => benchDatabase({ ...settings.database, databaseUrl: options.databaseUrl }));
  await step('bundle', '6. bundle size', () => benchBundle());
  await step('throttle', '7. throttled sign-in per store', () => benchThrottle({ ...settings.throttle, databaseUrl: options.databaseUrl, redisUrl: process.env.REDIS_URL }));
  await step('otel', '8. OpenTelemetry installed without a tracer provider', () => benchOtelOff(settings.otel));
  await step('password', '9. Password sign-in beside the hash alone', () => benchPassword(settings.password));
  await step('activity', '10. the activity log on a credentials sign-in', () => benchActivity({ ...settings.activity, databaseUrl: options.databaseUrl }));
  const cpu = cpus();
  results.machine = {
    date: new Date().toISOString(),
    node: process.version,
    os: `${type()} ${release()} ${process.arch}`,
    cpu: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    load: [loadBefore, loadavg()[0]],
    authjsVersion: (await loadAuthjs())?.version,
    seconds: (performance.now() - started) / 1000,
    settings: settings.name,
    isolated: options.isolate === true,
  };
  return results;
}
