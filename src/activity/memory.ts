// The activity log in this process's memory: appendActivity and listActivity for an adapter of the app's own (or a
// test), with the same order, filters and cursor as PostgreSQL's. Bounded: past `max` records the oldest go.
import { activityCursor, activityLimit, readActivityCursor } from '../core/activity-cursor.js';
import type { ActivityAdapterMethods, ActivityRecord } from './types.js';

/** A record no caller can change in the store (or the store in the caller's hands): its nested parts copied too. */
function copyOf(r: ActivityRecord): ActivityRecord {
  const copy: ActivityRecord = { ...r, at: new Date(r.at.getTime()) };
  if (r.flow) copy.flow = { ...r.flow };
  if (r.detail) copy.detail = structuredClone(r.detail);
  return copy;
}

/**
 * An in-memory activity store. Not shared between processes and lost on restart: for development and tests.
 *
 * @example
 * const adapter = { ...myAdapter, ...memoryActivity() }
 */
export function memoryActivity(options: { max?: number } = {}): ActivityAdapterMethods & { readonly records: readonly ActivityRecord[]; prune(before: Date): number } {
  const max = options.max ?? 100_000;
  let records: ActivityRecord[] = [];
  // Newest first by (at, id), as the PostgreSQL index orders them.
  const newer = (a: ActivityRecord, b: ActivityRecord) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
  return {
    get records() {
      return records;
    },
    appendActivity(batch) {
      for (const r of batch) records.push(copyOf(r));
      if (records.length > max) records.splice(0, records.length - max);
    },
    listActivity(q) {
      const after = q.cursor === undefined ? undefined : readActivityCursor(q.cursor);
      const limit = activityLimit(q.limit);
      const found = records
        .filter(
          (r) =>
            (q.userId === undefined || r.userId === q.userId) &&
            (q.organizationId === undefined || r.organizationId === q.organizationId) &&
            (q.kinds === undefined || q.kinds.includes(r.kind)) &&
            (q.since === undefined || r.at >= q.since) &&
            (after === undefined || r.at.getTime() < after.at.getTime() || (r.at.getTime() === after.at.getTime() && r.id < after.id)),
        )
        .sort(newer);
      const page = found.slice(0, limit).map(copyOf);
      const last = page.at(-1);
      return { records: page, cursor: found.length > limit && last ? activityCursor(last) : null };
    },
    prune(before) {
      const kept = records.filter((r) => r.at >= before);
      const removed = records.length - kept.length;
      records = kept;
      return removed;
    },
  };
}
