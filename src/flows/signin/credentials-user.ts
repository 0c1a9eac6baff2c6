// Who a credentials sign-in is, in storage terms: as returned by `authorize` for JWT sessions, or, when sessions
// live in the database, the user its `credentials` account row names (created with that row on first sign-in).
import { randomUUID } from 'node:crypto';
import { createUserWithAccount } from '../../adapters/create-user.js';
import type { Adapter } from '../../core/adapter.js';
import { storedEmailOf } from '../../core/email-address.js';
import { AccountNotLinked } from '../../core/errors.js';
import type { Account, AdapterAccount, AdapterUser, User } from '../../core/types.js';
import type { CredentialsConfig } from '../../providers/credentials.js';
import type { FlowDeps as FlowServices } from '../runtime/contract.js';

/** The user a credentials sign-in stands for, and what was written to find it (for the events). */
export interface CredentialsUser {
  user: User | AdapterUser;
  /** A user row was created (emit `createUser`). */
  isNewUser: boolean;
  /** A `credentials` account row was linked (emit `linkAccount`). */
  linked: boolean;
  /** The `credentials` account the user is stored under; absent with JWT sessions. */
  account?: Account;
}

/**
 * The user a credentials sign-in stands for. With JWT sessions: the user as `authorize` returned it. With database
 * sessions (which Auth.js refuses for credentials) a stored user, found through a `credentials` account row keyed
 * by `authorize`'s id (else its e-mail, all it vouched for), so a sign-in never lands in a user it did not create:
 * 1. the owner of that account row;
 * 2. else the user holding the e-mail address, when its stored id is also `authorize`'s id (an app whose
 *    `authorize` returns the users table's own id, users made before account rows existed): the row is linked now;
 * 3. else, when another user holds the e-mail address (an OAuth, e-mail or passkey user): `AccountNotLinked`,
 *    unless the provider sets `allowDangerousEmailAccountLinking`, which links the row to that user;
 * 4. else a new user with the row, in one unit (`authorize`'s id offered as the new id, which the adapter may keep or
 *    replace, as the contract says of `createUser`).
 *
 * `authorize`'s id is the app's, not the store's: it is only ever a `providerAccountId` or compared, never looked up
 * with `getUser` or written as a user id (a typed id column refuses a foreign id; an adapter that swallows the error
 * would read it as "no such user"). A failing lookup is an error, never "not found".
 * `authorize` is the app's code: whoever signs in chooses their credentials, never the id or address returned.
 *
 * @example
 * const { user, isNewUser } = await resolveCredentialsUser(services, { id: '42', email: 'ada@example.com' })
 */
export async function resolveCredentialsUser(s: FlowServices, user: User): Promise<CredentialsUser> {
  const { adapter, session } = s.req.config;
  const id = user.id === undefined || user.id === null || user.id === '' ? undefined : String(user.id);
  if (session.strategy !== 'database' || !adapter) return { user: { ...user, id: id ?? randomUUID() }, isNewUser: false, linked: false };

  const email = user.email ? storedEmailOf(user.email) : null;
  const key = id ?? email ?? undefined;
  const accountFor = (providerAccountId: string): Account => ({ provider: s.provider.id, type: 'credentials', providerAccountId });
  const owned = async (): Promise<CredentialsUser | undefined> => {
    if (!key) return undefined;
    const owner = (await adapter.getUserByAccount({ provider: s.provider.id, providerAccountId: key })) as AdapterUser | null;
    return owner ? { user: owner, isNewUser: false, linked: false, account: { ...accountFor(key), userId: String(owner.id) } } : undefined;
  };
  // Two first sign-ins of one user at once (a double click) both find no row and both write it; the second write
  // fails on the unique key. That sign-in is the same user's: it takes the row the first one wrote.
  const firstWriteWins = async (write: () => Promise<CredentialsUser>): Promise<CredentialsUser> => {
    try {
      return await write();
    } catch (err) {
      const winner = await owned().catch(() => undefined);
      if (winner) return winner;
      throw err;
    }
  };
  const link = (owner: AdapterUser): Promise<CredentialsUser> =>
    firstWriteWins(async () => {
      const account = { ...accountFor(key!), userId: String(owner.id) };
      await adapter.linkAccount(account as AdapterAccount);
      return { user: owner, isNewUser: false, linked: true, account };
    });

  const found = await owned();
  if (found) return found;
  if (email) {
    const byEmail = (await adapter.getUserByEmail(email)) as AdapterUser | null;
    if (byEmail) {
      // The same user by both what authorize vouched for: its address and the users table's own id.
      if (id !== undefined && String(byEmail.id) === id) return link(byEmail);
      if ((s.provider as unknown as CredentialsConfig).allowDangerousEmailAccountLinking !== true) {
        throw new AccountNotLinked('Another user already has the e-mail address authorize returned.', { expected: 'an address no other user has', actual: s.provider.id });
      }
      return link(byEmail);
    }
  }
  const newId = id ?? randomUUID();
  return firstWriteWins(async () => {
    const { user: created, account } = await createUserWithAccount(
      adapter as unknown as Adapter,
      // No address is stored as NULL, not '': e-mail columns are unique, and '' would fit only one user.
      { id: newId, name: user.name ?? null, email: email as string, emailVerified: null, image: user.image ?? null } as AdapterUser,
      // Neither id nor e-mail: nothing to find this user by again, so its own id keys the row.
      accountFor(key ?? newId),
    );
    return { user: created, isNewUser: true, linked: true, account };
  });
}
