// The steps of linking a provider account to the user who is signed in: who that user is now, who already owns the
// account, and the write. Plain async functions on a flow's deps; the link machine (link-machine.ts) orders them.
import { authenticatorRecord } from '../../core/stored-authenticator.js';
import { AccountNotLinked, OAuthAccountNotLinked } from '../../core/errors.js';
import type { Account, AdapterAccount, AdapterUser } from '../../core/types.js';
import { signedInUserId } from '../../session/gate.js';
import type { FlowDeps } from '../runtime/contract.js';
import type { Identity } from '../signin/steps.js';

/** Kinds of account a link never adds: a password and an address are not provider accounts one links. */
const UNLINKABLE = new Set(['credentials', 'email']);

/**
 * Whether the identity a flow proved is a provider account one can link (not a password, an address or a named
 * user). A new passkey is linkable only to the user its options were made for: never one made for a new user or
 * for somebody else.
 */
export function linkable(identity: Identity, userId: string): boolean {
  if (identity.existingUser || UNLINKABLE.has(identity.account.type)) return false;
  return identity.passkey === undefined || identity.passkey.forUserId === userId;
}

/**
 * The user the link is for, still signed in with this request: the one the link started for. Anyone else (signed
 * out meanwhile, another user in the same browser) is refused, never linked.
 */
export async function linkingUser(deps: FlowDeps, userId: string): Promise<AdapterUser> {
  const adapter = deps.req.config.adapter;
  if (!adapter) throw new AccountNotLinked('Linking needs an adapter.');
  const current = await signedInUserId(deps.req);
  if (current !== userId) throw new AccountNotLinked('The user signed in now is not the one the link was started for.', { expected: userId, actual: current ?? null });
  const user = (await adapter.getUser(userId)) as AdapterUser | null;
  if (!user) throw new AccountNotLinked('The signed-in user no longer exists.', { expected: userId, actual: null });
  return user;
}

/** Who owns the account now: nobody, the linking user (nothing to do), or another user (refused). */
export type Ownership = 'none' | 'self' | 'other';

/** Looks up the account's owner; another user's account is refused with OAuthAccountNotLinked, its owner kept out of the message. */
export async function ownershipOf(deps: FlowDeps, account: Account, userId: string): Promise<Ownership> {
  const adapter = deps.req.config.adapter!;
  const owner = await adapter.getUserByAccount({ provider: account.provider, providerAccountId: account.providerAccountId });
  if (!owner) return 'none';
  // Ids compare as strings: some adapters (Auth.js's pg schema) hand out numeric ids.
  if (String(owner.id) === userId) return 'self';
  throw new OAuthAccountNotLinked('This account is already linked to another user.', { expected: userId, actual: 'another user' });
}

/** Writes the account (and a new passkey's authenticator) under the user, in one transaction when the adapter has them. */
export async function writeLink(deps: FlowDeps, identity: Identity, userId: string): Promise<Account> {
  const adapter = deps.req.config.adapter!;
  const owned = { ...identity.account, userId } as AdapterAccount;
  const passkey = identity.passkey;
  const write = async (a: typeof adapter): Promise<Account> => {
    await a.linkAccount(owned);
    if (passkey) await a.createAuthenticator(authenticatorRecord(a, passkey.credential, userId, owned.providerAccountId));
    return owned;
  };
  return adapter.withTransaction ? adapter.withTransaction(write) : write(adapter);
}
