// Benchmark 8: what OpenTelemetry support costs an app that installed @opentelemetry/api but registered no tracer
// provider, against an app without the package. Fresh processes (bench/otel-off-child.ts), alternating which side
// goes first: the API hidden by module hooks (as if not installed) vs present with no provider. Each figure is the
// median CPU of one credentials sign-in in process; each round's ratio compares the two sides of that round.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spread, type Spread } from './measure.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

/**
 * "Costs nothing measurable" (issue 32), as a number: the median ratio (API present, no provider / API absent) of
 * CPU per sign-in may exceed 1 by this much, the spread two identical processes show on a quiet machine.
 */
export const OTEL_OFF_TOLERANCE = 0.05;

export interface OtelOffOptions {
  /** Rounds; each starts one process per side. */
  rounds: number;
  /** Measured sign-ins per process. */
  flows: number;
  /** Unmeasured sign-ins per process first. */
  warmup: number;
}

export interface OtelOffResult {
  /** Median CPU ms per credentials sign-in, one figure per round. */
  absentCpuMs: Spread;
  presentCpuMs: Spread;
  /** present / absent per round. */
  ratio: Spread;
  tolerance: number;
}

async function side(hidden: boolean, options: OtelOffOptions): Promise<number> {
  const args = ['--import', 'tsx', ...(hidden ? ['--import', './test/core/fixtures/without-otel.mjs'] : []), 'bench/otel-off-child.ts', String(options.flows), String(options.warmup)];
  const { stdout } = await run(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  const out = JSON.parse(stdout.trim().split('\n').at(-1)!) as { api: string; medianCpuMs: number };
  // A side that measured the wrong thing would make the ratio meaningless: the hooks must have hidden the API.
  if (out.api !== (hidden ? 'absent' : 'present')) throw new Error(`expected @opentelemetry/api ${hidden ? 'absent' : 'present'} in the child, got ${out.api}`);
  return out.medianCpuMs;
}

/**
 * Runs `rounds` pairs of processes and reports both sides and their ratio.
 *
 * @example
 * const { ratio } = await benchOtelOff({ rounds: 5, flows: 300, warmup: 50 })
 */
export async function benchOtelOff(options: OtelOffOptions): Promise<OtelOffResult> {
  const absent: number[] = [];
  const present: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < options.rounds; r += 1) {
    // Alternate which side goes first, so a machine that slows down mid-round does not favour one.
    let a: number;
    let p: number;
    if (r % 2 === 0) {
      a = await side(true, options);
      p = await side(false, options);
    } else {
      p = await side(false, options);
      a = await side(true, options);
    }
    absent.push(a);
    present.push(p);
    ratios.push(p / a);
  }
  return { absentCpuMs: spread(absent), presentCpuMs: spread(present), ratio: spread(ratios), tolerance: OTEL_OFF_TOLERANCE };
}
