// The machine half of `getAccessToken` (access-token.ts): runs the token refresh machine for a signed-in user's
// account, against the adapter's tokens or (opt-in) the tokens sealed in the session cookie. Its own module so the
// OAuth client and the machine load on the first call, never at import.
import { AccountNotLinked, RefreshTokenError } from '../../core/errors.js';
import type { Adapter } from '../../core/adapter.js';
import type { ResolvedProvider } from '../../core/provider.js';
import type { AdapterAccount, JWT } from '../../core/types.js';
import { jobs, step, type TokenRefreshArgs, type TokenRefreshOptions, type TokenRefreshOutput } from '../../flows/registry.js';
import type { TraceEntry } from '../../flows/runtime/trace.js';
import { rewriteProviderTokens } from '../../session/jwt-strategy.js';
import { providerTokensOf, type ProviderTokensClaim } from '../../session/provider-token-claim.js';
import type { AuthRequest } from '../request.js';

/** The account with a usable access token, refreshed when due; or the refusal's error and the state it ended in. */
async function runRefresh(
  req: AuthRequest,
  provider: ResolvedProvider,
  args: TokenRefreshArgs,
  trace: TraceEntry[] | undefined,
): Promise<{ account: AdapterAccount } | { error: RefreshTokenError | AccountNotLinked; state: string }> {
  const answer = await step(req, { kind: 'job', job: await jobs.tokenRefresh(), provider, args, ...(trace ? { trace } : {}) }, { type: 'ACCESS_TOKEN' });
  if (answer.status === 'done') return { account: (answer.output as TokenRefreshOutput).account };
  if (answer.status === 'failed') {
    const state = answer.state ?? '';
    if (answer.error instanceof RefreshTokenError || answer.error instanceof AccountNotLinked) return { error: answer.error, state };
    return { error: new RefreshTokenError(answer.error.message, { err: answer.error, state }), state };
  }
  return { error: new RefreshTokenError('The token refresh paused, which it never should.'), state: '' };
}

/** The access token of `provider` for `userId`, refreshed when due; throws RefreshTokenError or AccountNotLinked. */
export async function refreshedAccessToken(req: AuthRequest, adapter: Adapter, provider: ResolvedProvider, userId: string, timing: TokenRefreshOptions, trace: TraceEntry[] | undefined): Promise<string> {
  const result = await runRefresh(req, provider, { userId, timing, tokens: { adapter } }, trace);
  if ('error' in result) throw result.error;
  return String(result.account.access_token);
}

/** The claim that holds `account`'s tokens. */
function claimOf(providerId: string, account: AdapterAccount): ProviderTokensClaim {
  return providerTokensOf({
    provider_tokens: { provider: providerId, access_token: account.access_token, refresh_token: account.refresh_token, expires_at: account.expires_at ?? undefined, token_type: account.token_type },
  })!;
}

const sameTokens = (a: ProviderTokensClaim | undefined, b: ProviderTokensClaim) =>
  a !== undefined && a.access_token === b.access_token && a.refresh_token === b.refresh_token && a.expires_at === b.expires_at && a.error === b.error;

/**
 * `getAccessToken` with the tokens in the sealed session cookie: the same machine, its store the cookie plus the
 * refresh lock store (cookie-tokens.ts). New tokens (this caller's refresh, or another's it was handed) rewrite the
 * session cookie on `req`; a refusal marks it (`error: 'RefreshTokenError'`, tokens dropped) so nothing is sent
 * again. The caller forwards `req`'s cookies to the response. `token` is the session token the gate opened for
 * `userId`: read and rewritten without opening the cookie again.
 */
export async function cookieAccessToken(req: AuthRequest, provider: ResolvedProvider, userId: string, token: JWT, timing: TokenRefreshOptions, trace: TraceEntry[] | undefined): Promise<string> {
  const claim = providerTokensOf(token);
  const result = await runRefresh(req, provider, { userId, timing, tokens: { cookie: claim } }, trace);
  if ('account' in result) {
    const next = claimOf(provider.id, result.account);
    if (!sameTokens(claim, next)) await rewriteProviderTokens(req, token, next);
    return String(result.account.access_token);
  }
  if (result.state === 'failed.reauthRequired' && claim?.provider === provider.id && claim.error !== 'RefreshTokenError') {
    await rewriteProviderTokens(req, token, { provider: provider.id, error: 'RefreshTokenError' });
  }
  throw result.error;
}
