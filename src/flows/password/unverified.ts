// An account made by a sign-up that created it at once (`createAccount: 'at-once'`) holds an address nobody proved.
// Whoever proves that address later is its owner: the password the unverified account was made with is dropped and
// every session it has ends, so a squatter who signed up first keeps nothing. Nor is such an account ever linked to
// another by its address.
import type { AdapterUser } from '../../core/types.js';
import type { RequestContext } from '../../core/request-context.js';
import { noteActivity } from '../../activity/run.js';
import { endSessionsBefore, keepsValidAfter } from '../../session/valid-after.js';

/** The stored hash of a password dropped this way: no hasher makes it, and sign-in treats it as no password at all. */
export const DROPPED_PASSWORD = '!dropped';

/** Whether `user` is an unproven account with a password: made by a sign-up, its address never proven. */
export async function isUnverifiedPasswordAccount(req: RequestContext, user: Pick<AdapterUser, 'id' | 'emailVerified'> | null): Promise<boolean> {
  const get = req.config.adapter?.getPasswordHash;
  if (!user || user.emailVerified || !get) return false;
  const hash = await get(String(user.id));
  return typeof hash === 'string' && hash !== DROPPED_PASSWORD;
}

/**
 * The address of `user` was just proven by its owner: the unverified account's password (unless `hash`, the owner's
 * own, replaces it) is dropped and every session it had ends (database rows, and JWTs issued before now).
 *
 * @example
 * if (await isUnverifiedPasswordAccount(req, owner)) await claimUnverifiedAccount(req, owner.id)
 */
export async function claimUnverifiedAccount(req: RequestContext, userId: string, hash: string = DROPPED_PASSWORD): Promise<void> {
  const adapter = req.config.adapter;
  await adapter?.setPasswordHash?.(userId, hash);
  if (adapter?.deleteSessions) await adapter.deleteSessions(userId);
  if (keepsValidAfter(req)) await endSessionsBefore(req, userId, new Date());
  // On record, with the run that proved the address: the squatter's password gone and their sessions ended.
  await noteActivity(req, { kind: 'password.changed', userId, method: 'password', reason: 'takenOver', detail: { dropped: hash === DROPPED_PASSWORD } });
  await noteActivity(req, { kind: 'session.ended', userId, reason: 'takenOver' });
}
