// The keyset cursor of an activity page: the (at, id) of the page's last record, opaque to callers. A cursor that
// does not decode is a client's mistake (a typed InvalidRequest), never a query error.
import { InvalidRequest } from './errors.js';
import type { ActivityRecord } from './activity.js';

/** Records per page when the query names no limit, and the most a page returns. */
export const ACTIVITY_PAGE = 50;
export const ACTIVITY_PAGE_MAX = 200;

/** The cursor that continues after `record` (newest first). */
export function activityCursor(record: Pick<ActivityRecord, 'at' | 'id'>): string {
  return Buffer.from(`${record.at.getTime()}.${record.id}`, 'utf8').toString('base64url');
}

/** The (at, id) a cursor names; InvalidRequest when it is not one this module made. */
export function readActivityCursor(cursor: string): { at: Date; id: string } {
  const text = typeof cursor === 'string' && cursor.length <= 200 ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^(\d{1,15})\.(act_[A-Za-z0-9_-]{1,64})$/.exec(text);
  if (!match) throw new InvalidRequest('The activity cursor is not one a page returned.', { actual: typeof cursor === 'string' ? cursor.slice(0, 40) : typeof cursor });
  return { at: new Date(Number(match[1])), id: match[2] };
}

/** The page size a query asks for, within 1 … {@link ACTIVITY_PAGE_MAX}. */
export function activityLimit(limit: number | undefined): number {
  if (limit === undefined) return ACTIVITY_PAGE;
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidRequest('The activity page limit must be a positive whole number.', { actual: limit });
  return Math.min(limit, ACTIVITY_PAGE_MAX);
}
