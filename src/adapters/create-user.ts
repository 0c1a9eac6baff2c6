// Creating a user and linking its first account as one unit, so a failure never leaves a user without its account.

import { MissingAdapterMethods } from '../core/errors.js';
import type { Account, AdapterAccount, AdapterUser } from '../core/types.js';
import type { Adapter } from '../core/adapter.js';

/**
 * Creates `user` and links `account` to it. With an adapter that has `withTransaction` (authchart's own) both
 * writes share one transaction; with any other adapter (e.g. an Auth.js one) a failed link is compensated by
 * `deleteUser`, when the adapter has it. The error of the failed step is rethrown either way.
 *
 * Pass the wrapped adapter, so the calls are logged and failures are `AdapterError`s.
 *
 * @example
 * const { user } = await createUserWithAccount(adapter, { id: crypto.randomUUID(), email, emailVerified: null },
 *   { provider: 'github', providerAccountId: profile.id, type: 'oauth', access_token });
 */
export async function createUserWithAccount(
  adapter: Adapter,
  user: AdapterUser,
  account: Account,
): Promise<{ user: AdapterUser; account: AdapterAccount }> {
  const run = async (a: Adapter, inTransaction: boolean): Promise<{ user: AdapterUser; account: AdapterAccount }> => {
    if (typeof a.createUser !== 'function' || typeof a.linkAccount !== 'function') {
      throw new MissingAdapterMethods('createUserWithAccount needs createUser and linkAccount', {
        missing: ['createUser', 'linkAccount'].filter((m) => typeof a[m as keyof Adapter] !== 'function'),
      });
    }
    const created = await a.createUser(user);
    const toLink: AdapterAccount = { ...account, userId: created.id };
    try {
      const linked = await a.linkAccount(toLink);
      return { user: created, account: linked ?? toLink };
    } catch (e) {
      // Inside a transaction the rollback undoes createUser; outside one this is the only undo there is.
      if (!inTransaction) await Promise.resolve(a.deleteUser?.(created.id)).catch(() => {});
      throw e;
    }
  };
  return adapter.withTransaction ? adapter.withTransaction((tx) => run(tx, true)) : run(adapter, false);
}
