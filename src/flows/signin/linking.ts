// Who a provider sign-in is, in storage terms: the rules that link a provider account to a user.
// Without an adapter nothing is stored and the provider's user is used as it is.
import { isUnverifiedPasswordAccount } from '../password/unverified.js';
import { randomUUID } from 'node:crypto';
import { storedEmailOf } from '../../core/email-address.js';
import { OAuthAccountNotLinked } from '../../core/errors.js';
import type { Account, AdapterAccount, AdapterUser, User } from '../../core/types.js';
import type { Adapter } from '../../core/adapter.js';
import { createUserWithAccount } from '../../adapters/create-user.js';
import { signedInUserId } from '../../session/gate.js';
import type { FlowDeps as FlowServices } from '../runtime/contract.js';

export interface LinkResult {
  user: User | AdapterUser;
  isNewUser: boolean;
  /** A user row was created (emit `createUser`). */
  created: boolean;
  /** An account row was linked (emit `linkAccount`). */
  linked: boolean;
}

/** The user that already owns this provider account, if an adapter knows one. */
export async function findAccountOwner(s: FlowServices, account: Account): Promise<AdapterUser | null> {
  const adapter = s.req.config.adapter;
  if (!adapter) return null;
  return adapter.getUserByAccount({ provider: account.provider, providerAccountId: account.providerAccountId });
}

/**
 * Applies the linking rules to a verified provider sign-in.
 * - Known account: sign in as its owner, unless someone else is signed in (OAuthAccountNotLinked).
 * - Unknown account, signed in: link it to the signed-in user.
 * - Unknown account, signed out, e-mail taken: OAuthAccountNotLinked unless the provider allows
 *   dangerous e-mail linking. Otherwise: a new user with this account.
 */
export async function linkAccount(s: FlowServices, input: { user: User; account: Account; owner: AdapterUser | null; allowEmailLinking: boolean }): Promise<LinkResult> {
  const adapter = s.req.config.adapter;
  const { user, account, owner } = input;
  if (!adapter) return { user, isNewUser: false, created: false, linked: false };
  const currentUserId = await signedInUserId(s.req);

  if (owner) {
    // Ids compare as strings: some adapters (Auth.js's pg schema) hand out numeric ids.
    if (currentUserId && currentUserId !== String(owner.id)) {
      throw new OAuthAccountNotLinked('This account is linked to another user.', { expected: currentUserId, actual: owner.id });
    }
    // A new sign-in brings new provider tokens: stored, so getAccessToken never keeps using refused ones.
    if (adapter.finishTokenRefresh && account.access_token) await adapter.finishTokenRefresh(account, '', { rotated: account, previousRefreshTokenHash: null });
    return { user: owner, isNewUser: false, created: false, linked: false };
  }
  if (currentUserId) {
    const current = await adapter.getUser(currentUserId);
    if (current) {
      await adapter.linkAccount({ ...account, userId: current.id } as AdapterAccount);
      return { user: current, isNewUser: false, created: false, linked: true };
    }
  }
  // The provider's address with its domain in ASCII: the form the e-mail flow stores, so an IDN spelling finds
  // the user the other spelling made instead of becoming a second user.
  const email = user.email ? storedEmailOf(user.email) : null;
  if (email) {
    const sameEmail = await adapter.getUserByEmail(email);
    if (sameEmail) {
      // An account a sign-up made at once holds an address nobody proved: never linked to by it, whatever the option.
      if (!input.allowEmailLinking || (await isUnverifiedPasswordAccount(s.req, sameEmail as AdapterUser))) {
        throw new OAuthAccountNotLinked('Another account already uses this e-mail address.', { expected: 'an account linked to this user', actual: account.provider });
      }
      await adapter.linkAccount({ ...account, userId: sameEmail.id } as AdapterAccount);
      return { user: sameEmail, isNewUser: false, created: false, linked: true };
    }
  }
  // No e-mail is stored as NULL: '' would let only one such user exist under a unique e-mail column.
  const newUser = { ...user, id: randomUUID(), email, emailVerified: null } as unknown as AdapterUser;
  const { user: created } = await createUserWithAccount(adapter as unknown as Adapter, newUser, account);
  return { user: created, isNewUser: true, created: true, linked: true };
}
