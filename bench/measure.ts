// Timing loops for the benchmarks: wall time and process CPU per operation, one at a time or N in flight,
// and the min / median / max of a figure over runs that interleave the contenders.

/** One timed loop. CPU is the whole process's (`process.cpuUsage`), so nothing else should run meanwhile. */
export interface Sample {
  ops: number;
  opsPerSec: number;
  /** Microseconds of process CPU (user + system) per operation. */
  cpuUsPerOp: number;
  /** Microseconds of wall time per operation (for N in flight: elapsed / ops, not latency). */
  wallUsPerOp: number;
}

/** Smallest, middle and largest value of a figure over runs. */
export interface Spread {
  min: number;
  median: number;
  max: number;
  runs: number;
}

export interface LoopOptions {
  /** Stop after exactly this many operations (smoke runs); otherwise run for `durationMs`. */
  ops?: number;
  durationMs?: number;
  /** Operations kept in flight at once; 1 = sequential. */
  concurrency?: number;
  /** Untimed operations first, so the JIT and caches are warm. */
  warmup?: number;
}

type Op = () => unknown;

// Synchronous operations are not awaited: a microtask per call would be part of what is measured.
async function call(op: Op): Promise<void> {
  const result = op() as { then?: unknown } | undefined;
  if (result && typeof result.then === 'function') await result;
}

/**
 * Runs `op` repeatedly and reports throughput and CPU per operation.
 *
 * @example
 * const s = await timeLoop(() => app.fetch(request).then((r) => r.text()), { durationMs: 1000, concurrency: 10 })
 */
export async function timeLoop(op: Op, options: LoopOptions = {}): Promise<Sample> {
  const { ops, durationMs = 500, concurrency = 1, warmup = 0 } = options;
  for (let i = 0; i < warmup; i++) await call(op);
  let started = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  const more = ops === undefined ? () => performance.now() < deadline : () => started < ops;
  const worker = async (): Promise<void> => {
    while (more()) {
      started++;
      await call(op);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return {
    ops: started,
    opsPerSec: started / (wallMs / 1000),
    cpuUsPerOp: (cpu.user + cpu.system) / started,
    wallUsPerOp: (wallMs * 1000) / started,
  };
}

/** Min, median and max of `values` (the median of an even count is the mean of the middle two). */
export function spread(values: number[]): Spread {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return { min: NaN, median: NaN, max: NaN, runs: 0 };
  const median = n % 2 === 1 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  return { min: sorted[0], median, max: sorted[n - 1], runs: n };
}

/**
 * Runs every contender once per round, `rounds` times, rotating who goes first so no side always gets the
 * warmer (or the noisier) slot; returns each contender's results in round order.
 *
 * @example
 * const byName = await interleave(3, { ours: () => timeLoop(a), theirs: () => timeLoop(b) })
 */
export async function interleave<T>(rounds: number, contenders: Record<string, () => Promise<T>>): Promise<Record<string, T[]>> {
  const names = Object.keys(contenders);
  const out: Record<string, T[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length];
      out[name].push(await contenders[name]());
    }
  }
  return out;
}

/** The spread of one field over a contender's samples. */
export function spreadOf<T>(samples: T[], field: (s: T) => number): Spread {
  return spread(samples.map(field));
}

/** Why a side could not run, shown in the results instead of its figures. */
export const NOT_INSTALLED = 'not installed (run `npm run bench:install`)';
