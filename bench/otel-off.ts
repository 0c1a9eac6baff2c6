// Benchmark 8: what OpenTelemetry support costs an app that installed @opentelemetry/api but registered no tracer
// provider, against an app without the package. Two measures from the same run:
// - fresh processes (bench/otel-off-child.ts), three per round, run at the same time: the API hidden by module hooks
//   (as if not installed), the same again (the A/A control: two identical sides, whose difference is this run's
//   noise), and the API present with no provider. Each figure is the median CPU of one credentials sign-in in its process;
//   each round's ratios compare the control and the present side with the first hidden side of that round.
// - in each process, the CPU of the tracing hook a flow run calls, and its share of a sign-in in the same process.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spread, type Spread } from './measure.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

export interface OtelOffOptions {
  /** Rounds; each starts three processes (hidden, hidden again, present). */
  rounds: number;
  /** Measured sign-ins per process. */
  flows: number;
  /** Unmeasured sign-ins per process first. */
  warmup: number;
}

/** One process's figures. */
interface Side {
  /** Median CPU ms of one sign-in. */
  cpuMs: number;
  /** CPU ns of one call of the tracing hook (flowSpan). */
  hookNs: number;
}

export interface OtelOffResult {
  /** Median CPU ms per credentials sign-in, one figure per round: the API hidden, hidden again (control), present. */
  absentCpuMs: Spread;
  controlCpuMs: Spread;
  presentCpuMs: Spread;
  /** present / absent per round. */
  ratio: Spread;
  /** control / absent per round: two identical sides, what this run's noise alone makes of a ratio. */
  control: Spread;
  /** CPU ns per call of the tracing hook, the API present and no provider (one figure per present process). */
  hookNs: Spread;
  /** The same with the API absent (the hidden processes). */
  hookAbsentNs: Spread;
  /** The hook's CPU / the median CPU of a sign-in, in the same present process. */
  hookShare: Spread;
}

async function side(hidden: boolean, options: OtelOffOptions): Promise<Side> {
  const args = ['--import', 'tsx', ...(hidden ? ['--import', './test/core/fixtures/without-otel.mjs'] : []), 'bench/otel-off-child.ts', String(options.flows), String(options.warmup)];
  const { stdout } = await run(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  const out = JSON.parse(stdout.trim().split('\n').at(-1)!) as { api: string; medianCpuMs: number; hookNs: number };
  // A side that measured the wrong thing would make the ratio meaningless: the hooks must have hidden the API.
  if (out.api !== (hidden ? 'absent' : 'present')) throw new Error(`expected @opentelemetry/api ${hidden ? 'absent' : 'present'} in the child, got ${out.api}`);
  return { cpuMs: out.medianCpuMs, hookNs: out.hookNs };
}

/**
 * Runs `rounds` rounds of three processes and reports each side, the A/A control and the A/B ratio, and the hook.
 *
 * @example
 * const { ratio, control } = await benchOtelOff({ rounds: 12, flows: 200, warmup: 50 })
 */
export async function benchOtelOff(options: OtelOffOptions): Promise<OtelOffResult> {
  // The three processes of a round run at the same time, so the load other work puts on the machine, which moves
  // from second to second, falls on all three alike.
  const sides: Record<'absent' | 'control' | 'present', Side[]> = { absent: [], control: [], present: [] };
  for (let r = 0; r < options.rounds; r += 1) {
    const [a, c, p] = await Promise.all([side(true, options), side(true, options), side(false, options)]);
    sides.absent.push(a);
    sides.control.push(c);
    sides.present.push(p);
  }
  const perRound = (other: Side[]) => other.map((s, i) => s.cpuMs / sides.absent[i].cpuMs);
  return {
    absentCpuMs: spread(sides.absent.map((s) => s.cpuMs)),
    controlCpuMs: spread(sides.control.map((s) => s.cpuMs)),
    presentCpuMs: spread(sides.present.map((s) => s.cpuMs)),
    ratio: spread(perRound(sides.present)),
    control: spread(perRound(sides.control)),
    hookNs: spread(sides.present.map((s) => s.hookNs)),
    hookAbsentNs: spread([...sides.absent, ...sides.control].map((s) => s.hookNs)),
    hookShare: spread(sides.present.map((s) => s.hookNs / 1e6 / s.cpuMs)),
  };
}
