// Issuing the session of a sign-in that reached its level: the only place a session begins. When and how the user
// proved who they are (`auth_time`, `amr`) is recorded by authchart here, never by a callback. With an adapter that
// has transactions, the session row and the spend of a single-use token commit together, or neither does.
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import { recordProviderSessionInStore } from './provider-sessions.js';
import { spendIn, spendingAdapter, type TokenSpend } from './spend.js';
import { strategyFor, type SignInResult } from './strategy.js';
import type { IssueActivity } from './types.js';
import { signInMethods } from './verification.js';
import type { AuthMethod } from '../core/types.js';
import { signInRecords } from '../activity/outcomes.js';
import { putBack, takePending } from '../activity/run.js';
import { activityInAdapter, activityNeedsTransaction, writeActivity } from '../activity/write.js';

/**
 * Writes the session (JWT cookie or database row) for the signed-in user, verified now by the first factor of the
 * account's kind and `secondFactor` (how the second-factor check passed, if one was asked for); a database session
 * of another user this browser held is ended by the strategy once the new one is committed.
 *
 * `spend`: a magic-link token (or the token behind an e-mail code) the flow proved but left stored. It is used up in
 * the transaction that writes the session (database sessions: the row; JWT: nothing else is stored), which commits
 * only when this resolves: when it throws (a store past its deadline above all), the link is still stored, no session
 * row is left, and no session cookie is set; the flow runtime, which holds the token's claim, gives it back. Without
 * `withTransaction` the two are separate steps, as before.
 *
 * @example
 * await issueSession(req, { user, account, isNewUser: false }, 'otp')
 */
export async function issueSession(
  req: AuthRequest,
  result: Omit<SignInResult, 'verification'>,
  secondFactor?: string,
  firstFactor?: readonly AuthMethod[],
  spend?: TokenSpend,
): Promise<void> {
  const amr = signInMethods(result.account?.type, secondFactor, firstFactor);
  const verified: SignInResult = { ...result, verification: { authTime: new Date(), amr } };
  const strategy = strategyFor(req);
  const adapter = req.config.adapter;
  // JWT sessions without an adapter that keeps provider sessions: back-channel logout finds them through the store.
  // Recorded first: a record of a sign-in that then fails names a user who did sign in at the provider, and ends
  // nothing that exists, while a failure after the session is written would answer an error over a live session.
  if (result.user.id) await recordProviderSessionInStore(req, String(result.user.id), result.account);
  const cookies = [...req.setCookies];
  let afterCommit: void | (() => Promise<void>);
  // The activity log: this sign-in's records (and those its run queued, a second factor passed) are written with the
  // session, in its transaction: no session exists without its record. Built once the session cookie is written,
  // so they name the new session.
  const activity = req.config.activity !== undefined;
  const queued = activity ? takePending(req) : [];
  const records = async () => [...queued, ...(await signInRecords(req, result, secondFactor))];
  // A database session's row may carry them (createSessionWithActivity): the strategy then says what it wrote.
  const carried: IssueActivity | undefined = activity && activityInAdapter(req.config) ? { records } : undefined;
  try {
    if (adapter?.withTransaction && (spend !== undefined || req.config.session.strategy === 'database' || activityNeedsTransaction(req.config))) {
      afterCommit = await adapter.withTransaction(async (tx) => {
        if (carried) delete carried.written;
        if (spend) await spendIn(tx, spend);
        const after = await strategy.issue(req, verified, tx, carried);
        if (activity) await writeActivity(req, carried?.written ?? (await records()), { tx, stored: carried?.written !== undefined });
        return after;
      });
    } else {
      if (spend) await spendIn(spendingAdapter(req), spend);
      afterCommit = await strategy.issue(req, verified);
      if (activity) await writeActivity(req, await records(), { required: true });
    }
  } catch (err) {
    // The answer reports no session: none of the cookies the strategy queued goes out.
    req.setCookies = cookies;
    putBack(req, queued);
    throw err;
  }
  await afterCommit?.();
}
