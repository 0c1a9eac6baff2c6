// The I/O of the provider-token refresh machine: reading the account and its refresh state, the cross-instance
// refresh lock (adapter), the refresh-token grant (oauth4webapi), and recording a refusal. Pure decisions are the
// machine's guards; these only fetch and write.
import { createHash } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import type { Adapter, TokenRefreshState } from '../../core/adapter.js';
import { AdapterError, RefreshTokenError } from '../../core/errors.js';
import type { RequestContext } from '../../core/request-context.js';
import type { AdapterAccount } from '../../core/types.js';
import type { InternalOAuthProvider } from '../../providers/oauth.js';
import { authorizationServer, clientAuthOf, clientOf, httpOptions } from '../../providers/oauth-server.js';
import { PROVIDER_REQUEST_TIMEOUT_MS } from '../../providers/provider-http.js';

/** How refreshes are timed; every field has a default (see `tokenRefreshDefaults`). */
export interface TokenRefreshOptions {
  /** Refresh when the access token expires within this many seconds (default 60). */
  skewSeconds?: number;
  /** How long one holder keeps the refresh lock before others may take it over (default 10 000 ms). */
  lockMs?: number;
  /** How long a caller waits for another's refresh before giving up (default 15 000 ms). */
  waitMs?: number;
  /** How often a waiting caller looks again (default 50 ms). */
  pollMs?: number;
  /**
   * For this long after a rotation (default 30 000 ms), a caller still holding the refresh token that rotation
   * replaced is answered the new pair, even if the new access token is already within the skew: the old refresh
   * token is never sent again (a rotating provider would read that as theft and revoke the grant).
   */
  reuseWindowMs?: number;
  /** How often a caller that saw a lock lapse (its holder gone) tries to take it over (default 2). */
  takeovers?: number;
}

export const tokenRefreshDefaults: Required<TokenRefreshOptions> = { skewSeconds: 60, lockMs: 10_000, waitMs: 15_000, pollMs: 50, reuseWindowMs: 30_000, takeovers: 2 };

/** What the refresh machine's actors work against (`input.deps`); never persisted (the machine never pauses). */
export interface TokenDeps {
  /** The request the token is for (its resolved configuration). */
  req: RequestContext;
  adapter: Adapter;
  provider: InternalOAuthProvider;
  userId: string;
  /** This caller's id in the lock. */
  holder: string;
  options: Required<TokenRefreshOptions>;
  now: () => number;
}

/** The SHA-256 of a refresh token, as the last rotation remembers the one it replaced. */
export function refreshTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function adapterFailure(method: string, err: unknown): AdapterError {
  return err instanceof AdapterError ? err : new AdapterError(err instanceof Error ? err : new Error(String(err)), { method });
}

/** The user's account with the provider and its refresh state; `account: null` when none is linked. */
export async function loadTokens(deps: TokenDeps): Promise<TokenRefreshState> {
  const { adapter, userId, provider } = deps;
  try {
    const account = await adapter.getUserAccount!(userId, provider.id);
    if (!account) return { account: null, lockedUntil: null, rotatedAt: null, previousRefreshTokenHash: null, failedAt: null };
    return await adapter.readTokenRefresh!({ provider: account.provider, providerAccountId: account.providerAccountId });
  } catch (err) {
    throw adapterFailure('readTokenRefresh', err);
  }
}

/** Tries to take the account's refresh lock; the state as it is now either way. */
export async function claimRefresh(deps: TokenDeps, account: AdapterAccount): Promise<TokenRefreshState & { claimed: boolean }> {
  try {
    return await deps.adapter.claimTokenRefresh!(account, deps.holder, new Date(deps.now() + deps.options.lockMs));
  } catch (err) {
    throw adapterFailure('claimTokenRefresh', err);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until nobody holds the account's refresh lock (its holder finished, or the lock lapsed); that state. */
export async function awaitRelease(deps: TokenDeps, account: AdapterAccount): Promise<TokenRefreshState> {
  const deadline = Date.now() + deps.options.waitMs;
  for (;;) {
    let state: TokenRefreshState;
    try {
      state = await deps.adapter.readTokenRefresh!(account);
    } catch (err) {
      throw adapterFailure('readTokenRefresh', err);
    }
    if (!state.lockedUntil) return state;
    if (Date.now() >= deadline) {
      throw new RefreshTokenError(`Another refresh of the "${account.provider}" tokens did not finish within ${deps.options.waitMs} ms.`, { expected: 'the lock released', actual: state.lockedUntil.toISOString() });
    }
    await sleep(deps.options.pollMs);
  }
}

/** A refresh the provider refused (invalid_grant: revoked, expired or reused refresh token). */
export class RefreshRefused extends RefreshTokenError {}

/**
 * Sends the refresh-token grant and stores what comes back, releasing the lock. The provider refusing the grant
 * is a `RefreshRefused` (the lock is released by recording it); anything else (unreachable, misconfigured)
 * releases the lock and is a `RefreshTokenError`.
 */
export async function refreshGrant(deps: TokenDeps, account: AdapterAccount): Promise<AdapterAccount> {
  const { provider, adapter, holder } = deps;
  const refreshToken = String(account.refresh_token);
  let rotated: NonNullable<Extract<Parameters<NonNullable<Adapter['finishTokenRefresh']>>[2], { rotated: unknown }>['rotated']>;
  try {
    const as = await authorizationServer(provider);
    const client = clientOf(provider);
    const response = await oauth.refreshTokenGrantRequest(as, client, await clientAuthOf(provider, as), refreshToken, {
      ...httpOptions(as.token_endpoint),
      signal: AbortSignal.timeout(PROVIDER_REQUEST_TIMEOUT_MS),
    });
    const tokens = await oauth.processRefreshTokenResponse(as, client, response);
    rotated = {
      access_token: tokens.access_token,
      token_type: tokens.token_type,
      expires_at: typeof tokens.expires_in === 'number' ? Math.floor(deps.now() / 1000) + tokens.expires_in : null,
      ...(tokens.refresh_token ? { refresh_token: tokens.refresh_token } : {}),
      ...(tokens.id_token ? { id_token: tokens.id_token } : {}),
      ...(tokens.scope ? { scope: tokens.scope } : {}),
    } as typeof rotated;
  } catch (err) {
    // Sorted by oauth4webapi's error class and the OAuth error code, never by message text.
    if (err instanceof oauth.ResponseBodyError && err.error === 'invalid_grant') {
      throw new RefreshRefused(`The provider refused the refresh token (invalid_grant${err.error_description ? `: ${err.error_description}` : ''}).`, { err, expected: 'a live grant', actual: err.error });
    }
    await Promise.resolve(adapter.finishTokenRefresh!(account, holder, { released: true })).catch(() => undefined);
    throw new RefreshTokenError(`The refresh of the "${provider.id}" tokens failed: ${(err as Error).message}`, { err: err as Error, actual: (err as { error?: string }).error ?? (err as { code?: string }).code });
  }
  try {
    await adapter.finishTokenRefresh!(account, holder, { rotated, previousRefreshTokenHash: refreshTokenHash(refreshToken) });
  } catch (err) {
    throw adapterFailure('finishTokenRefresh', err);
  }
  return { ...account, ...rotated, refresh_token: rotated.refresh_token ?? account.refresh_token } as AdapterAccount;
}

/** Records that the provider refused (or there is nothing to refresh with): sessions of the user show `RefreshTokenError`. */
export async function recordRefusal(deps: TokenDeps, account: AdapterAccount): Promise<void> {
  try {
    await deps.adapter.finishTokenRefresh!(account, deps.holder, { failed: true, userId: deps.userId });
  } catch (err) {
    throw adapterFailure('finishTokenRefresh', err);
  }
}

/** Gives the refresh lock back without changing anything. */
export async function releaseLock(deps: TokenDeps, account: AdapterAccount): Promise<void> {
  try {
    await deps.adapter.finishTokenRefresh!(account, deps.holder, { released: true });
  } catch (err) {
    throw adapterFailure('finishTokenRefresh', err);
  }
}
