// The last-method rule held under concurrency: the count of a user's sign-in methods and the removal it allows are
// one step, so two removals at once (two unlinks, an unlink and a passkey removal) can never leave none.
import type { WrappedAdapter } from '../../core/adapter-wrap.js';
import type { RequestContext } from '../../core/request-context.js';

type Adapter = WrappedAdapter;

// Removals waiting on one user, per adapter: the fallback for adapters without `lockUser`. A lock, not shared state;
// across instances the re-count after the delete (see `keepingOne`) is what holds the rule.
const queues = new WeakMap<object, Map<string, Promise<unknown>>>();

async function oneAtATime<T>(adapter: Adapter, userId: string, fn: () => Promise<T>): Promise<T> {
  let byUser = queues.get(adapter);
  if (!byUser) queues.set(adapter, (byUser = new Map()));
  const before = byUser.get(userId) ?? Promise.resolve();
  const run = before.then(fn, fn);
  const settled = run.then(
    () => {},
    () => {},
  );
  byUser.set(userId, settled);
  void settled.then(() => {
    if (byUser.get(userId) === settled) byUser.delete(userId);
  });
  return run;
}

/**
 * Runs `remove` (which counts the user's methods on the adapter it is given, then removes one) as one step against
 * every other removal for this user:
 * - with `withTransaction` and `lockUser`: in a transaction holding the user's row (other removals wait for it);
 * - otherwise: one at a time in this process, and `recount` after it: when it says nothing is left, `restore` puts
 *   the method back and the removal is refused with what `refuse` throws.
 *
 * @example
 * await underUserLock(req, userId, (tx) => unlinkIn(tx), { recount, restore, refuse });
 */
export async function underUserLock<T>(
  req: RequestContext,
  userId: string,
  remove: (adapter: Adapter) => Promise<T>,
  fallback: { recount: (adapter: Adapter) => Promise<number>; restore: (adapter: Adapter, removed: T) => Promise<void>; refuse: () => Error },
): Promise<T> {
  const adapter = req.config.adapter as Adapter;
  if (adapter.withTransaction && adapter.lockUser) {
    return adapter.withTransaction<T>(async (tx) => {
      await tx.lockUser!(userId);
      return remove(tx);
    });
  }
  return oneAtATime(adapter, userId, async () => {
    const removed = await remove(adapter);
    if ((await fallback.recount(adapter)) < 1) {
      await fallback.restore(adapter, removed);
      throw fallback.refuse();
    }
    return removed;
  });
}
