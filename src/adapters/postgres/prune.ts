// Deleting rows that can never be used again, so tables do not grow forever: expired magic-link tokens and WebAuthn
// challenge rows (both in verification_token), expired sessions, and throttle counters whose window has passed.
import type { PruneResult } from '../../core/adapter.js';
import { toQueryable, type Database } from './client.js';
import { throttleTable } from './throttle-store.js';

/**
 * Deletes every expired row of authchart's tables as of `now`, one statement per table, and returns the counts.
 * Safe to run from several instances at once (each row is deleted once).
 *
 * @example
 * import { prune } from 'authchart/adapters/postgres';
 * setInterval(() => void prune(pool), 60 * 60 * 1000).unref();
 */
export async function prune(db: Database, now: Date = new Date()): Promise<PruneResult> {
  const q = toQueryable(db);
  const tokens = await q.query(`DELETE FROM verification_token WHERE expires <= $1`, [now]);
  const sessions = await q.query(`DELETE FROM sessions WHERE expires <= $1`, [now]);
  const throttle = await q.query(`DELETE FROM ${throttleTable} WHERE expire IS NOT NULL AND expire <= $1`, [now.getTime()]);
  return { verificationTokens: tokens.rowCount, sessions: sessions.rowCount, throttle: throttle.rowCount };
}
