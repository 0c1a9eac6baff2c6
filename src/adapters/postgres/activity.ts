// The activity log methods of the PostgreSQL adapter (schema version 15): records appended in one INSERT (inside the
// transaction of the outcome when called on `tx`), read newest first by a keyset cursor on (at, id), so a page costs
// the same however deep it is. Records older than the retention are deleted by prune(), nothing else deletes them.
import type { ActivityKind, ActivityPage, ActivityQuery, ActivityRecord } from '../../core/activity.js';
import { activityCursor, activityLimit, readActivityCursor } from '../../core/activity-cursor.js';
import type { Row } from './client.js';

type Query = (sql: string, params?: readonly unknown[]) => Promise<Row[]>;

const COLUMNS = ['id', 'kind', 'at', 'user_id', 'actor_id', 'organization_id', 'provider', 'method', 'machine', 'machine_version', 'transition', 'session_hash', 'ip', 'user_agent', 'correlation_id', 'reason', 'detail'] as const;

// The INSERT of n records, built once per n (an outcome writes one to three).
const inserts = new Map<number, string>();
function insertOf(n: number): string {
  let sql = inserts.get(n);
  if (sql === undefined) {
    const tuples = Array.from({ length: n }, (_, r) => `(${COLUMNS.map((_, i) => `$${r * COLUMNS.length + i + 1}`).join(', ')})`);
    sql = `INSERT INTO activity (${COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`;
    if (n <= 8) inserts.set(n, sql);
  }
  return sql;
}

/** The INSERT of `records` (placeholders from $1) and its parameters. */
export function activityInsert(records: readonly ActivityRecord[]): { sql: string; params: unknown[] } {
  return { sql: insertOf(records.length), params: records.flatMap(values) };
}

function values(r: ActivityRecord): unknown[] {
  return [
    r.id,
    r.kind,
    r.at,
    r.userId,
    r.actorId ?? null,
    r.organizationId ?? null,
    r.provider ?? null,
    r.method ?? null,
    r.flow?.machine ?? null,
    r.flow?.version ?? null,
    r.flow?.transition ?? null,
    r.sessionHash ?? null,
    r.ip ?? null,
    r.userAgent ?? null,
    r.correlationId,
    r.reason ?? null,
    r.detail ? JSON.stringify(r.detail) : null,
  ];
}

function toRecord(row: Row): ActivityRecord {
  const record: ActivityRecord = {
    id: row.id as string,
    kind: row.kind as ActivityKind,
    at: new Date(row.at as Date),
    userId: (row.user_id as string | null) ?? null,
    correlationId: row.correlation_id as string,
  };
  const optional: [keyof ActivityRecord, unknown][] = [
    ['actorId', row.actor_id],
    ['organizationId', row.organization_id],
    ['provider', row.provider],
    ['method', row.method],
    ['sessionHash', row.session_hash],
    ['ip', row.ip],
    ['userAgent', row.user_agent],
    ['reason', row.reason],
  ];
  for (const [key, value] of optional) if (value !== null && value !== undefined) (record as unknown as Record<string, unknown>)[key] = value;
  if (row.machine) record.flow = { machine: row.machine as string, version: String(row.machine_version ?? ''), transition: String(row.transition ?? '') };
  if (row.detail) record.detail = (typeof row.detail === 'string' ? JSON.parse(row.detail) : row.detail) as ActivityRecord['detail'];
  return record;
}

/** appendActivity and listActivity over one connection (or transaction). */
export function activityMethods(query: Query): {
  appendActivity(records: ActivityRecord[]): Promise<void>;
  listActivity(q: ActivityQuery): Promise<ActivityPage>;
} {
  return {
    async appendActivity(records) {
      if (records.length === 0) return;
      const insert = activityInsert(records);
      await query(insert.sql, insert.params);
    },
    async listActivity(q) {
      const where: string[] = [];
      const params: unknown[] = [];
      const param = (value: unknown) => `$${params.push(value)}`;
      if (q.userId !== undefined) where.push(`user_id = ${param(q.userId)}`);
      if (q.organizationId !== undefined) where.push(`organization_id = ${param(q.organizationId)}`);
      if (q.kinds !== undefined) where.push(`kind = ANY(${param(q.kinds)}::text[])`);
      if (q.since !== undefined) where.push(`at >= ${param(q.since)}`);
      const after = q.cursor === undefined ? undefined : readActivityCursor(q.cursor);
      if (after) where.push(`(at, id) < (${param(after.at)}::timestamptz, ${param(after.id)})`);
      const limit = activityLimit(q.limit);
      const rows = await query(
        `SELECT ${COLUMNS.join(', ')} FROM activity ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY at DESC, id DESC LIMIT ${limit + 1}`,
        params,
      );
      const records = rows.slice(0, limit).map(toRecord);
      const last = records.at(-1);
      return { records, cursor: rows.length > limit && last ? activityCursor(last) : null };
    },
  };
}
