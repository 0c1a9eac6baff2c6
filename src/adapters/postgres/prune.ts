// Deleting rows that can never be used again, so tables do not grow forever: magic-link tokens and WebAuthn
// challenge rows (both in verification_token) an hour past expiry, expired sessions, throttle counters whose window has passed, and the
// attempt counts of second-factor checks past their 10 minutes, "sessions valid after" times that can end no token,
// expired flow store entries, webhook deliveries a week after they were delivered, and activity records older than
// the retention (`activityBefore`).
import type { PruneOptions, PruneResult } from '../../core/adapter.js';
import { toQueryable, type Database } from './client.js';
import { throttleTable } from './throttle-store.js';

/** How long an expired magic-link token or challenge row is kept before it is pruned. */
export const TOKEN_GRACE_MS = 60 * 60 * 1000;

/** How long a delivered webhook stays in the outbox, as the record of what was sent. */
export const WEBHOOK_KEEP_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Deletes every expired row of authchart's tables as of `now`, one statement per table, and returns the counts.
 * Safe to run from several instances at once (each row is deleted once).
 *
 * @example
 * import { prune } from 'authchart/adapters/postgres';
 * setInterval(() => void prune(pool), 60 * 60 * 1000).unref();
 */
export async function prune(db: Database, now: Date = new Date(), options: PruneOptions = {}): Promise<PruneResult> {
  const q = toQueryable(db);
  // Tokens stay an hour past expiry: a link or code used a little late is told it expired, not that it was used.
  const tokens = await q.query(`DELETE FROM verification_token WHERE expires <= $1`, [new Date(now.getTime() - TOKEN_GRACE_MS)]);
  const sessions = await q.query(`DELETE FROM sessions WHERE expires <= $1`, [now]);
  const throttle = await q.query(`DELETE FROM ${throttleTable} WHERE expire IS NOT NULL AND expire <= $1`, [now.getTime()]);
  const challenges = await q.query(`DELETE FROM factor_challenges WHERE expires <= $1`, [now]);
  const validAfter = await q.query(`DELETE FROM sessions_valid_after WHERE keep_until <= $1`, [now]);
  const flowStore = await q.query(`DELETE FROM flow_store WHERE expires <= $1`, [now]);
  const webhooks = await q.query(`DELETE FROM webhook_outbox WHERE status = 'delivered' AND delivered_at <= $1`, [new Date(now.getTime() - WEBHOOK_KEEP_MS)]);
  // Without `activityBefore` (a caller that names no retention), the activity log is left as it is.
  const activity = options.activityBefore ? (await q.query(`DELETE FROM activity WHERE at < $1`, [options.activityBefore])).rowCount : 0;
  return { activity, verificationTokens: tokens.rowCount, sessions: sessions.rowCount, throttle: throttle.rowCount, factorChallenges: challenges.rowCount, sessionsValidAfter: validAfter.rowCount, flowStore: flowStore.rowCount, webhookDeliveries: webhooks.rowCount };
}
