// Where finished flow records go: `logger.debug` whenever debug output is wanted, and, only with `debug: true`
// outside production, a bounded in-memory log per configuration that the inspector and the error page read. Each
// logged flow remembers the browsers that ran it, so those pages can show a browser its own flows only.
import type { AnyStateMachine } from 'xstate';
import type { InternalConfig } from '../../core/config.js';
import { runtimeEnv } from '../../core/env.js';
import { newFlowId } from './flow-id.js';
import type { FlowRecord, FlowRun } from './record.js';

/** How many flows the development log keeps per configuration; the oldest is dropped first. */
export const FLOW_LOG_SIZE = 100;

/**
 * True when flows may be kept in memory and shown in pages: `debug: true` and not production. Production is
 * checked twice, as resolved (`config.production`, from the configured env) and in the live process env, so a
 * config resolved against a test env can never open the inspector on a production process.
 */
export function tracesKept(config: InternalConfig): boolean {
  return config.debug && !config.production && runtimeEnv().NODE_ENV !== 'production';
}

/** True when someone reads this configuration's flow records: debug output, or the development log (above). */
export function recordsRead(config: InternalConfig): boolean {
  return config.logger.debugEnabled || tracesKept(config);
}

// The record code (the redacted evidence of a failure, the text form) is loaded the first time a record will be
// read, so an app without debug output does not load it at start. Kept once loaded; a failed load is retried.
type RecordModule = typeof import('./record.js');
let recordModule: RecordModule | undefined;
let loadingRecords: Promise<RecordModule> | undefined;

/** The record module, loaded on first use. */
export function loadRecords(): Promise<RecordModule> {
  loadingRecords ??= import('./record.js').then(
    (m) => (recordModule = m),
    (error: unknown) => {
      loadingRecords = undefined;
      throw error;
    },
  );
  return loadingRecords;
}

/**
 * The record of a finished run: `flowRecord` when someone reads records ({@link recordsRead}); otherwise the
 * same record without the evidence of its error, which nobody would see.
 */
export async function recordFor(config: InternalConfig, run: FlowRun): Promise<FlowRecord> {
  if (recordsRead(config)) {
    try {
      return (recordModule ?? (await loadRecords())).flowRecord(run);
    } catch (error) {
      // Recording is for people reading logs; the sign-in it describes has already happened and must not fail.
      // The record goes out without its evidence, and the reason is logged.
      safely(() => config.logger.error(new Error('Could not record a flow', { cause: error })));
    }
  }
  return bareRecord(run);
}

/** A record without the evidence of its error. */
function bareRecord(run: FlowRun): FlowRecord {
  const { error: _unread, ...rest } = run;
  return { ...rest, durationMs: Math.round(run.durationMs * 10) / 10, trace: [...run.trace] };
}

function safely(action: () => void): void {
  try {
    action();
  } catch {
    // A logger that throws is the application's to fix; a sign-in never fails for it.
  }
}

/** One flow in the log: every run (request) it took, merged, and the machine that drew it. */
export interface LoggedFlow {
  /** The runs merged: first run's start, summed durations, the traces in order, the last run's status and error. */
  record: FlowRecord;
  /** Each request's own record, oldest first. */
  runs: FlowRecord[];
  /** The machine the flow ran, kept so a custom provider's machine can be drawn too. */
  machine: AnyStateMachine;
  /**
   * The ids of the browsers whose requests ran it (the HTTP layer's random per-browser id). Never part of the
   * record: `logger.debug` does not get them.
   */
  browsers: ReadonlySet<string>;
}

// A flow is a handful of requests; a bound on one flow keeps a looping client from growing an entry forever.
const MAX_RUNS = 20;

/**
 * A ring buffer of the last `capacity` flows, newest last. A run with the id of a logged flow (a callback
 * resuming a paused sign-in) joins that flow and makes it the newest; the browser that ran it, when known, joins
 * the flow's browsers.
 *
 * @example
 * const log = new FlowLog(100); log.add(record, machine, browserId); log.get(record.id)?.browsers.has(browserId) // true
 */
export class FlowLog {
  readonly #flows = new Map<string, LoggedFlow>();

  constructor(readonly capacity: number = FLOW_LOG_SIZE) {}

  add(run: FlowRecord, machine: AnyStateMachine, browser?: string): LoggedFlow {
    const previous = this.#flows.get(run.id);
    const joins = previous !== undefined && previous.record.machine === run.machine;
    const runs = joins ? [...previous.runs, run].slice(-MAX_RUNS) : [run];
    const browsers = new Set(joins ? previous.browsers : []);
    if (browser !== undefined) browsers.add(browser);
    const flow: LoggedFlow = { record: merge(runs), runs, machine, browsers };
    this.#flows.delete(run.id);
    this.#flows.set(run.id, flow);
    for (const id of this.#flows.keys()) {
      if (this.#flows.size <= this.capacity) break;
      this.#flows.delete(id);
    }
    return flow;
  }

  get(id: string): LoggedFlow | undefined {
    return this.#flows.get(id);
  }

  /** Every logged flow, newest first. */
  list(): LoggedFlow[] {
    return [...this.#flows.values()].reverse();
  }

  get size(): number {
    return this.#flows.size;
  }
}

function merge(runs: FlowRecord[]): FlowRecord {
  const first = runs[0];
  const last = runs[runs.length - 1];
  const merged: FlowRecord = {
    ...last,
    startedAt: first.startedAt,
    durationMs: Math.round(runs.reduce((sum, r) => sum + r.durationMs, 0) * 10) / 10,
    trace: runs.flatMap((r) => r.trace),
  };
  return merged;
}

const logs = new WeakMap<InternalConfig, FlowLog>();

/** The flow log of a configuration, or undefined when flows are not kept (see {@link tracesKept}). */
export function flowLogFor(config: InternalConfig): FlowLog | undefined {
  if (!tracesKept(config)) return undefined;
  let log = logs.get(config);
  if (!log) logs.set(config, (log = new FlowLog()));
  return log;
}

/**
 * Hands a finished run to its consumers: `logger.debug('flow <machine> <status>', record)` when debug output
 * is wanted (the record carries `provider` and `trace` at its top level), and the development log when kept,
 * as run by `browser` (an opaque id the HTTP layer gives each browser; absent when it has none).
 */
export function completeFlow(config: InternalConfig, record: FlowRecord, machine: AnyStateMachine, browser?: string): void {
  if (config.logger.debugEnabled) safely(() => config.logger.debug(`flow ${record.machine} ${record.status}`, record));
  safely(() => flowLogFor(config)?.add(record, machine, browser));
}

/**
 * Records a flow that failed before its machine could run (the flow cookie was missing, tampered with or
 * from another version): an empty trace and the error's evidence, so the inspector lists it with the rest.
 */
export async function recordRejectedFlow(config: InternalConfig, provider: string, machine: AnyStateMachine, error: unknown, browser?: string): Promise<FlowRecord> {
  const record = await recordFor(config, { id: newFlowId(), provider, machine: machine.id, startedAt: Date.now(), durationMs: 0, status: 'failed', trace: [], error });
  completeFlow(config, record, machine, browser);
  return record;
}
