// Which users signed in with a provider's session (`sid`) or account (`sub`), kept in the flow store, for
// back-channel logout of JWT sessions when no adapter keeps `provider_sessions`: recorded at sign-in, read when the
// provider's logout token names only a `sid` (or a `sub`).
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import type { Account } from '../core/types.js';
import { sidOf } from '../core/id-token-sid.js';

/** How many users one provider session or account is remembered for (a shared device signs in a few; never unbounded). */
const USERS_KEPT = 20;

const keyOf = (provider: string, kind: 'sid' | 'sub', value: string) => `backchannel:${kind}:${provider.length}:${provider}:${value}`;

/** Whether this configuration finds provider sessions in the flow store (no adapter method does it). */
export function providerSessionsInStore(req: AuthRequest): boolean {
  return !req.config.adapter?.findProviderSessionUsers;
}

async function remember(req: AuthRequest, key: string, userId: string): Promise<void> {
  const store = req.config.flowStore;
  const raw = await store.get(key);
  const users = raw ? (JSON.parse(raw) as string[]).filter((u) => u !== userId) : [];
  // As long as a session of that sign-in may live.
  await store.set(key, JSON.stringify([userId, ...users].slice(0, USERS_KEPT)), req.config.jwt.maxAge);
}

/**
 * Records, for a JWT sign-in with an OpenID provider and no adapter that keeps provider sessions, which user the
 * ID token's `sid` and the account's `sub` belong to.
 */
export async function recordProviderSessionInStore(req: AuthRequest, userId: string, account: Account | null): Promise<void> {
  if (!account || !providerSessionsInStore(req) || req.config.session.strategy !== 'jwt') return;
  if (account.type !== 'oidc' && account.type !== 'oauth') return;
  const sid = sidOf(account.id_token);
  if (sid) await remember(req, keyOf(account.provider, 'sid', sid), userId);
  if (account.providerAccountId) await remember(req, keyOf(account.provider, 'sub', account.providerAccountId), userId);
}

/** The users recorded for a provider session and/or account (both given: the users recorded for both). */
export async function usersOfProviderSession(req: AuthRequest, provider: string, match: { sid?: string; sub?: string }): Promise<string[]> {
  const read = async (kind: 'sid' | 'sub', value: string) => JSON.parse((await req.config.flowStore.get(keyOf(provider, kind, value))) ?? '[]') as string[];
  const bySid = match.sid ? await read('sid', match.sid) : undefined;
  const bySub = match.sub ? await read('sub', match.sub) : undefined;
  if (bySid && bySub) return bySid.filter((id) => bySub.includes(id));
  return bySid ?? bySub ?? [];
}

/**
 * Records a logout token's `jti` as used in the flow store; false when it was recorded before. One atomic step (the
 * store's `add`): of two copies arriving at the same instant on any instances, exactly one passes.
 */
export async function useLogoutTokenInStore(req: AuthRequest, issuer: string, jti: string, expires: Date): Promise<boolean> {
  const key = `backchannel:jti:${issuer.length}:${issuer}:${jti}`;
  return req.config.flowStore.add(key, '1', Math.max(1, Math.ceil((expires.getTime() - Date.now()) / 1000)));
}
