// The ways a user can sign in, as storage and configuration say: linked provider accounts, passkeys, a proven
// address with an e-mail provider, a credentials account. Read by the account page and by unlink, which never
// removes the last one.
import { AccessDenied, InvalidRequest } from '../../core/errors.js';
import type { RequestContext } from '../../core/request-context.js';
import type { AdapterAccount, AdapterUser } from '../../core/types.js';
import { underUserLock } from './last-method.js';

/** A user's sign-in methods: their provider accounts, their passkey count, and whether their address signs them in. */
export interface SignInMethods {
  user: AdapterUser;
  accounts: AdapterAccount[];
  passkeys: number;
  email: boolean;
}

/** What the adapter must have to list and unlink. */
function adapterOf(adapter: RequestContext['config']['adapter']) {
  if (!adapter?.getUserAccount) throw new InvalidRequest('Linked accounts need an adapter with getUserAccount.');
  return adapter as typeof adapter & { getUserAccount: NonNullable<typeof adapter.getUserAccount> };
}

/** The sign-in methods of a stored user, one account per configured provider (the adapter's lookup). */
export async function signInMethods(req: RequestContext, userId: string): Promise<SignInMethods> {
  return methodsIn(req, adapterOf(req.config.adapter), userId);
}

/** The same, read through `adapter` (the configured one, or one bound to a transaction). */
export async function signInMethodsIn(req: RequestContext, adapter: RequestContext['config']['adapter'], userId: string): Promise<SignInMethods> {
  return methodsIn(req, adapterOf(adapter), userId);
}

async function methodsIn(req: RequestContext, adapter: ReturnType<typeof adapterOf>, userId: string): Promise<SignInMethods> {
  const user = (await adapter.getUser(userId)) as AdapterUser | null;
  if (!user) throw new AccessDenied('The signed-in user no longer exists.', { expected: userId, actual: null });
  const providers = [...req.config.providersById.values()].filter((p) => p.type !== 'email');
  const found = await Promise.all(providers.map((p) => adapter.getUserAccount(userId, p.id)));
  const accounts = found.filter((a): a is AdapterAccount => a !== null && a !== undefined);
  const passkeys = adapter.listAuthenticatorsByUserId ? (await adapter.listAuthenticatorsByUserId(userId)).length : 0;
  const hasEmailProvider = [...req.config.providersById.values()].some((p) => p.type === 'email');
  return { user, accounts, passkeys, email: hasEmailProvider && Boolean(user.email && user.emailVerified) };
}

/** How many ways to sign in remain once `removed` is gone: the other accounts, passkeys (their own rows), the address. */
export function remainingMethods(methods: SignInMethods, removed: AdapterAccount): number {
  const others = methods.accounts.filter((a) => !(a.provider === removed.provider && a.providerAccountId === removed.providerAccountId) && a.type !== 'webauthn');
  return others.length + methods.passkeys + (methods.email ? 1 : 0);
}

/** How many ways to sign in the user has now. */
export function countMethods(methods: SignInMethods): number {
  return methods.accounts.filter((a) => a.type !== 'webauthn').length + methods.passkeys + (methods.email ? 1 : 0);
}

const lastMethod = () => new AccessDenied('This is the last way to sign in; link another first.', { expected: 'another sign-in method', actual: 0 });

/**
 * Unlinks one of the user's provider accounts. Refused (AccessDenied) when it is not theirs, when it is a passkey
 * (removed with its authenticator, elsewhere) or when it is the last way they can sign in. The count and the delete
 * are one step against other removals for this user (see `underUserLock`).
 */
export async function unlinkAccount(req: RequestContext, userId: string, key: { provider: string; providerAccountId: string }): Promise<{ user: AdapterUser; account: AdapterAccount }> {
  const configured = adapterOf(req.config.adapter);
  if (!configured.unlinkAccount) throw new InvalidRequest('Unlinking needs an adapter with unlinkAccount.');
  return underUserLock(
    req,
    userId,
    async (tx) => {
      const adapter = tx as typeof configured;
      const methods = await methodsIn(req, adapter, userId);
      const account = methods.accounts.find((a) => a.provider === key.provider && a.providerAccountId === key.providerAccountId);
      if (!account) throw new AccessDenied('No such account is linked to the signed-in user.', { expected: 'an account of this user', actual: key.provider });
      if (account.type === 'webauthn') throw new AccessDenied('A passkey is removed as a passkey, not unlinked.', { actual: 'webauthn' });
      if (remainingMethods(methods, account) < 1) throw lastMethod();
      await adapter.unlinkAccount!({ provider: account.provider, providerAccountId: account.providerAccountId });
      return { user: methods.user, account };
    },
    {
      recount: async (adapter) => countMethods(await methodsIn(req, adapter as typeof configured, userId)),
      restore: async (adapter, removed) => void (await adapter.linkAccount(removed.account)),
      refuse: lastMethod,
    },
  );
}
