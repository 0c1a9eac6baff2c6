// Reading the log: a query checked as a client's input (known kinds, a real date, a cursor this code made), then
// the adapter's `listActivity`. Who may read what is decided by the caller (listActivity for apps: the signed-in
// user's own records unless the app says it is an admin read; the account page: the user's own).
import { InvalidRequest, MissingAdapterMethods } from '../core/errors.js';
import type { InternalConfig } from '../core/config.js';
import { activityLimit, readActivityCursor } from '../core/activity-cursor.js';
import type { ActivityKind, ActivityPage, ActivityQuery } from './types.js';

/** Every kind of record, for checking a query's `kinds`. */
export const ACTIVITY_KINDS: readonly ActivityKind[] = [
  'signIn.succeeded',
  'signIn.failed',
  'signUp.completed',
  'secondFactor.passed',
  'secondFactor.failed',
  'factor.added',
  'factor.removed',
  'passkey.added',
  'passkey.removed',
  'session.ended',
  'account.linked',
  'account.unlinked',
  'password.changed',
  'email.changed',
  'recovery.requested',
  'recovery.completed',
  'organization.memberAdded',
  'organization.memberRemoved',
  'organization.roleChanged',
  'organization.invitationSent',
  'organization.invitationAccepted',
  'organization.invitationRevoked',
  'rateLimit.hit',
];
const known = /* @__PURE__ */ new Set<string>(ACTIVITY_KINDS);

/** The query as the adapter gets it: every field checked, nothing else carried. */
export function checkedActivityQuery(query: ActivityQuery): ActivityQuery {
  if (!query || typeof query !== 'object') throw new InvalidRequest('An activity query is an object.');
  const out: ActivityQuery = {};
  const text = (v: unknown, name: string) => {
    if (typeof v !== 'string' || v === '' || v.length > 255) throw new InvalidRequest(`activity query: ${name} must be a non-empty string.`, { actual: typeof v });
    return v;
  };
  if (query.userId !== undefined) out.userId = text(query.userId, 'userId');
  if (query.organizationId !== undefined) out.organizationId = text(query.organizationId, 'organizationId');
  if (query.kinds !== undefined) {
    if (!Array.isArray(query.kinds) || query.kinds.length > ACTIVITY_KINDS.length || query.kinds.some((k) => !known.has(k))) {
      throw new InvalidRequest('activity query: kinds must name known kinds.', { expected: ACTIVITY_KINDS, actual: Array.isArray(query.kinds) ? query.kinds.slice(0, 30).map(String) : typeof query.kinds });
    }
    out.kinds = [...query.kinds];
  }
  if (query.since !== undefined) {
    if (!(query.since instanceof Date) || Number.isNaN(query.since.getTime())) throw new InvalidRequest('activity query: since must be a valid Date.');
    out.since = query.since;
  }
  if (query.cursor !== undefined) {
    readActivityCursor(query.cursor);
    out.cursor = query.cursor;
  }
  if (query.limit !== undefined) out.limit = activityLimit(query.limit);
  return out;
}

/**
 * One page of records, newest first.
 *
 * @example
 * const { records, cursor } = await readActivity(config, { userId, kinds: ['signIn.succeeded'] })
 */
export async function readActivity(config: InternalConfig, query: ActivityQuery): Promise<ActivityPage> {
  const checked = checkedActivityQuery(query);
  const list = config.adapter?.listActivity;
  if (!list) throw new MissingAdapterMethods('Reading the activity log needs an adapter with listActivity (PostgresAdapter has it; run `npx authchart migrate`).', { missing: ['listActivity'] });
  return list(checked);
}
