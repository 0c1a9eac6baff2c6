// The activity of one run: the correlation id it shares with the flow record and the span (the flow id), the
// machine and version, the transition that settled it, and the records its stages queued. The runtime opens a run
// around every machine it drives (flows/runtime/flow.ts `recorded`); a record queued during the run is written in
// the transaction of the outcome that writes something (the session), else when the run closes.
import type { RequestContext } from '../core/request-context.js';
import { activityRecord, type ActivityFields } from './record.js';
import type { ActivityRecord, ActivityRun } from './types.js';
import { writeActivity } from './write.js';

export type { ActivityRun };

/**
 * Opens the run of a machine on this request (when the log is on) and returns a function that closes it: the
 * records still queued are written, and the request's previous run (if any) is back.
 */
export function openActivityRun(req: RequestContext, run: Omit<ActivityRun, 'pending'>): () => Promise<void> {
  if (!req.config.activity) return async () => {};
  const previous = req.activity;
  const current: ActivityRun = { ...run, pending: [] };
  req.activity = current;
  return async () => {
    req.activity = previous;
    const records = current.pending.splice(0);
    if (records.length > 0) await writeActivity(req, records);
  };
}

/** Marks the transition that settled a machine of this run, from its trace (or its final state). */
export function markTransition(req: RequestContext, trace: readonly { from: string; to: string }[], state: string | undefined): void {
  if (!req.activity) return;
  const last = trace.at(-1);
  req.activity.transition = last ? `${last.from} → ${last.to}` : state ? `→ ${state}` : req.activity.transition;
}

/**
 * Queues a record of this run (written with the outcome's transaction, or when the run closes); outside a run it
 * is written at once. Nothing when the log is off.
 */
export async function noteActivity(req: RequestContext, fields: ActivityFields): Promise<void> {
  if (!req.config.activity) return;
  const record = await activityRecord(req, fields);
  if (req.activity) req.activity.pending.push(record);
  else await writeActivity(req, [record]);
}

/** The records queued so far, taken out of the run (the outcome's transaction writes them). */
export function takePending(req: RequestContext): ActivityRecord[] {
  return req.activity?.pending.splice(0) ?? [];
}

/** Records taken for a transaction that did not commit: queued again, to be written when the run closes. */
export function putBack(req: RequestContext, records: readonly ActivityRecord[]): void {
  if (req.activity) req.activity.pending.unshift(...records);
}
