// The steps of the standard sign-in tail, as plain async functions on a flow's deps: who already owns the account,
// what the signIn callback says, and which user the sign-in resolves to (the linking rules).
import type { Account, AdapterUser, Profile, User } from '../../core/types.js';
import type { FlowDeps } from '../runtime/contract.js';
import { AccountNotLinked } from '../../core/errors.js';
import { resolveCredentialsUser } from './credentials-user.js';
import { findAccountOwner, linkAccount } from './linking.js';
import { resolveEmailUser, resolvePasskeyUser, type NewPasskey, type Resolution } from './resolve.js';

export type { Resolution, NewPasskey };
// The signIn callback's step lives apart (check.ts), so an app that re-exports it does not load the linking rules.
export { checkSignIn, signInAllowed, signInRedirected, type SignInDecision } from './check.js';

/** The identity a flow proved, as the tail receives it (a flow's `authenticated` output without `outcome`). */
export interface Identity {
  user: User;
  account: Account;
  profile?: Profile;
  /** Credentials flows: the submitted form, for the signIn callback. */
  credentials?: Record<string, unknown>;
  /** WebAuthn registration: the verified new passkey to store with the account. */
  passkey?: NewPasskey;
  /** The flow proved which existing user this is (`user.id`): looked up, never created or linked. */
  existingUser?: true;
}

/** The stored user this identity already belongs to, if an adapter knows one (by address for e-mail sign-ins). */
export async function findOwner(deps: FlowDeps, identity: Identity): Promise<AdapterUser | null> {
  const { adapter } = deps.req.config;
  if (!adapter) return null;
  if (identity.existingUser) return (await adapter.getUser(String(identity.user.id))) as AdapterUser | null;
  switch (identity.account.type) {
    // Found by its own rules, in resolveUser: authorize's user is what the signIn callback sees.
    case 'credentials':
      return null;
    case 'email':
      return identity.user.email ? ((await adapter.getUserByEmail(identity.user.email)) as AdapterUser | null) : null;
    // WebAuthn's required adapter methods: the account by its id, then its user.
    case 'webauthn': {
      const stored = await adapter.getAccount(identity.account.providerAccountId, identity.account.provider);
      return stored ? ((await adapter.getUser(String(stored.userId))) as AdapterUser | null) : null;
    }
    default:
      return findAccountOwner(deps, identity.account);
  }
}

/** Applies the linking rules of the identity's kind of account and returns the user the session is for. */
export async function resolveUser(deps: FlowDeps, identity: Identity, owner: AdapterUser | null): Promise<Resolution> {
  const none = { created: false, linked: false, updated: false };
  if (identity.existingUser) {
    // Named by the flow, so it must exist: a missing user is refused, never made (no adapter: nobody can be found).
    if (!owner) throw new AccountNotLinked('The flow named a user who does not exist.', { actual: identity.user.id ?? null });
    return { ...none, user: owner, isNewUser: false };
  }
  switch (identity.account.type) {
    case 'credentials': {
      const r = await resolveCredentialsUser(deps, identity.user);
      return { ...none, user: r.user, isNewUser: r.isNewUser, created: r.isNewUser, linked: r.linked, account: r.account };
    }
    case 'email':
      return resolveEmailUser(deps, identity.user.email ?? '', owner);
    case 'webauthn':
      return resolvePasskeyUser(deps, identity.account, owner, identity.passkey);
    default: {
      const provider = deps.provider as { allowDangerousEmailAccountLinking?: boolean };
      const r = await linkAccount(deps, { user: identity.user, account: identity.account, owner, allowEmailLinking: provider.allowDangerousEmailAccountLinking === true });
      return { ...none, ...r };
    }
  }
}
