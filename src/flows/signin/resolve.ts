// The linking rules of e-mail and passkey sign-ins: which stored user an identity proven by a magic link or a
// WebAuthn ceremony resolves to, and what is written on the way (OAuth and credentials rules: linking.ts,
// credentials-user.ts).
import { authenticatorRecord } from '../../core/stored-authenticator.js';
import { randomUUID } from 'node:crypto';
import { claimUnverifiedAccount, isUnverifiedPasswordAccount } from '../password/unverified.js';
import type { WrappedAdapter } from '../../core/adapter-wrap.js';
import { AccountNotLinked } from '../../core/errors.js';
import type { Account, AdapterAuthenticator, AdapterUser, User } from '../../core/types.js';
import { signedInUserId } from '../../session/gate.js';
import type { FlowDeps } from '../runtime/contract.js';

/** How a sign-in resolved to a stored user, and what was written (for the events). */
export interface Resolution {
  user: User | AdapterUser;
  isNewUser: boolean;
  created: boolean;
  linked: boolean;
  updated: boolean;
  /** The account as stored, when the rules stored it under another key than the flow proposed. */
  account?: Account;
}

/** A verified new passkey: the authenticator to store, and whom its options were made for (absent: signed out). */
export interface NewPasskey {
  credential: Omit<AdapterAuthenticator, 'userId' | 'providerAccountId'>;
  forUserId?: string;
}

function adapterOf(deps: FlowDeps): WrappedAdapter {
  // Checked at start (MissingAdapter): e-mail and WebAuthn providers need an adapter.
  if (!deps.req.config.adapter) throw new Error('This sign-in needs an adapter.');
  return deps.req.config.adapter;
}

/** The id of the user signed in with this request, if any. */
export async function currentUserId(deps: FlowDeps): Promise<string | undefined> {
  return signedInUserId(deps.req);
}

/**
 * A proven address: its owner, marked verified now if it was not, or a new verified user. Proof of the address is
 * what makes it a user's: no other flow hands an address to a user without it.
 */
export async function resolveEmailUser(deps: FlowDeps, email: string, owner: AdapterUser | null): Promise<Resolution> {
  const adapter = adapterOf(deps);
  if (owner) {
    // An account a sign-up made at once, its address never proven: its owner proves it now, so the password it was
    // made with (perhaps a squatter's) is dropped and its sessions end.
    if (await isUnverifiedPasswordAccount(deps.req, owner)) await claimUnverifiedAccount(deps.req, String(owner.id));
    const user = (await adapter.updateUser({ id: owner.id, emailVerified: new Date() })) as AdapterUser;
    return { user, isNewUser: false, created: false, linked: false, updated: true };
  }
  let user: AdapterUser;
  try {
    user = (await adapter.createUser({ id: randomUUID(), email, emailVerified: new Date() })) as AdapterUser;
  } catch (err) {
    // The same link (or its code) used at the same moment elsewhere: the token is spent with the session, so two
    // uses can both get here, and the other one created the user first. It is this address's owner, verified just
    // now; which of the two sign-ins goes on is the token's spend's to decide (issue.ts), not a unique-key error.
    const created = await adapter.getUserByEmail(email).catch(() => null);
    if (!created) throw err;
    return { user: created as AdapterUser, isNewUser: false, created: false, linked: false, updated: false };
  }
  return { user, isNewUser: true, created: true, linked: false, updated: false };
}

/**
 * A passkey sign-in. Authentication: the authenticator's owner, unless someone else is signed in. Registration:
 * the passkey joins the user its options were made for, who must still be the one signed in; signed out, a new
 * user without an address (the one typed only labelled the passkey: it was never proven). User, account and
 * authenticator are written in one transaction when the adapter has them.
 */
export async function resolvePasskeyUser(deps: FlowDeps, account: Account, owner: AdapterUser | null, passkey: NewPasskey | undefined): Promise<Resolution> {
  const adapter = adapterOf(deps);
  const currentId = await currentUserId(deps);
  if (!passkey) {
    if (!owner) throw new Error(`No user owns the passkey ${account.providerAccountId}.`);
    if (currentId && currentId !== String(owner.id)) throw new AccountNotLinked('This passkey belongs to another user than the one signed in.', { expected: currentId, actual: String(owner.id) });
    return { user: owner, isNewUser: false, created: false, linked: false, updated: false };
  }
  if (currentId !== passkey.forUserId) {
    throw new AccountNotLinked('The passkey was requested for another user than the one signed in now.', { expected: passkey.forUserId ?? null, actual: currentId ?? null });
  }
  const current = currentId ? ((await adapter.getUser(currentId)) as AdapterUser | null) : null;
  if (currentId && !current) throw new AccountNotLinked('The signed-in user no longer exists.', { expected: currentId, actual: null });
  let createdId: string | undefined;
  const write = async (a: WrappedAdapter): Promise<Resolution> => {
    // No address for a new user: the one typed was never proven, and holding it would keep it from its owner.
    const user = current ?? ((await a.createUser({ id: randomUUID(), email: null, emailVerified: null } as unknown as AdapterUser)) as AdapterUser);
    if (!current) createdId = String(user.id);
    const owned = { ...account, userId: String(user.id) };
    await a.linkAccount(owned);
    await a.createAuthenticator(authenticatorRecord(a, passkey.credential, String(user.id), account.providerAccountId));
    return { user, isNewUser: !current, created: !current, linked: true, updated: false, account: owned };
  };
  if (adapter.withTransaction) return adapter.withTransaction(write);
  try {
    return await write(adapter);
  } catch (err) {
    // Without a transaction, undo the user this step created rather than leave one without a passkey.
    if (createdId) await adapter.deleteUser(createdId).catch(() => {});
    throw err;
  }
}
