// Where records go: the adapter's `appendActivity` (on the transaction's adapter `tx` when the outcome has one, so
// the record commits with it), then every configured sink (a transactional one inside the transaction, the others
// once it has committed). The anonymous-flood gate (limit.ts) runs first. A sink
// that fails is logged and never fails the request, except a transactional one (the outbox) inside a transaction; the adapter failing inside a transaction fails the transaction
// (no sign-in without its record), and outside one is logged (the outcome has already happened).
import type { WrappedAdapter } from '../core/adapter-wrap.js';
import type { InternalConfig } from '../core/config.js';
import type { RequestContext } from '../core/request-context.js';
import { floodGate, type FloodGate } from './limit.js';
import type { ActivityRecord, ActivitySink } from './types.js';

const gates = new WeakMap<InternalConfig, FloodGate>();

function gateOf(config: InternalConfig): FloodGate {
  let gate = gates.get(config);
  if (!gate) gates.set(config, (gate = floodGate(config.activity!.anonymousPerMinute)));
  return gate;
}

/** True when the log is on and something keeps records in the adapter: outcomes then write them in a transaction. */
export function activityInAdapter(config: InternalConfig): boolean {
  return config.activity !== undefined && typeof config.adapter?.appendActivity === 'function';
}

/**
 * True when a sign-in's records alone call for a transaction: they go to the adapter and a sink writes through it
 * too (the webhook outbox), so the two must commit together. A record that is the sign-in's only write (a JWT
 * session) is one statement, and a failure of it fails the sign-in without one.
 */
export function activityNeedsTransaction(config: InternalConfig): boolean {
  return activityInAdapter(config) && config.activity!.sinks.some((sink) => sink.transactional === true);
}

export interface WriteOptions {
  /** The transaction's adapter: the records commit with the outcome (a failure fails the transaction). */
  tx?: WrappedAdapter;
  /** Outside a transaction: throw when the adapter cannot write (the caller undoes the outcome). */
  required?: boolean;
  /**
   * The records were admitted (admitActivity) and the adapter has them already, written with the session row
   * (`createSessionWithActivity`): only the sinks are left.
   */
  stored?: boolean;
}

/** The records the anonymous-flood gate lets through (a warning once a client passes its limit). */
export function admitActivity(req: Pick<RequestContext, 'config'>, records: readonly ActivityRecord[]): ActivityRecord[] {
  const { config } = req;
  if (!config.activity || records.length === 0) return [];
  const { records: admitted, warn } = gateOf(config).admit(records);
  if (warn) config.logger.warn('activity-flood', `Activity records of one client address passed ${config.activity.anonymousPerMinute} a minute; more are dropped until the minute ends.`);
  return admitted;
}

/**
 * Writes `records` to the adapter and the sinks. Nothing when the log is off.
 *
 * @example
 * await adapter.withTransaction(async (tx) => { await tx.createSession(row); await writeActivity(req, records, { tx }) })
 */
export async function writeActivity(req: Pick<RequestContext, 'config'>, records: readonly ActivityRecord[], options: WriteOptions = {}): Promise<void> {
  const { config } = req;
  if (!config.activity || records.length === 0) return;
  const admitted = options.stored ? [...records] : admitActivity(req, records);
  if (admitted.length === 0) return;
  const { tx } = options;
  // Stored: the adapter wrote them with the session row; only the sinks are left.
  if (!options.stored && tx?.appendActivity) {
    await tx.appendActivity(admitted);
  } else if (!options.stored && config.adapter?.appendActivity) {
    try {
      await config.adapter.appendActivity(admitted);
    } catch (err) {
      if (options.required) throw err;
      config.logger.error(err instanceof Error ? err : new Error(String(err)));
    }
  }
  for (const sink of config.activity.sinks) {
    // A sink that only tells the world (a stream, notice mails) inside a transaction waits for its commit: a record
    // whose outcome rolls back never reaches it.
    if (tx?.afterCommit && !sink.transactional) {
      tx.afterCommit(() => writeSink(req, sink, admitted));
      continue;
    }
    try {
      await sink.write(admitted, tx);
    } catch (err) {
      // A sink writing into the outcome's transaction fails it: logging and going on would commit a transaction the
      // database has already aborted (PostgreSQL turns that COMMIT into a rollback, silently), and a JWT sign-in
      // would then be granted with neither its record nor its webhook.
      if (tx && sink.transactional) throw err;
      config.logger.error(new Error(`Activity sink "${sink.name}" failed`, { cause: err }));
    }
  }
}

/** A sink written outside any transaction: its failure is logged. */
async function writeSink(req: Pick<RequestContext, 'config'>, sink: ActivitySink, records: readonly ActivityRecord[]): Promise<void> {
  try {
    await sink.write(records);
  } catch (err) {
    req.config.logger.error(new Error(`Activity sink "${sink.name}" failed`, { cause: err }));
  }
}
