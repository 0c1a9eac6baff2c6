// The machine half of `getAccessToken` (access-token.ts): runs the token refresh machine for a signed-in user's
// account. Its own module so the OAuth client and the machine load on the first call, never at import.
import { randomUUID } from 'node:crypto';
import { AccountNotLinked, RefreshTokenError } from '../../core/errors.js';
import type { Adapter } from '../../core/adapter.js';
import type { ResolvedProvider } from '../../core/provider.js';
import { tokenRefreshMachine, type TokenRefreshOutput } from '../../flows/tokens/machine.js';
import { tokenRefreshDefaults, type TokenDeps, type TokenRefreshOptions } from '../../flows/tokens/steps.js';
import { oauthProviderFor } from '../../flows/oauth/steps.js';
import type { FlowDeps } from '../../flows/runtime/contract.js';
import { settleMachine } from '../../flows/runtime/run.js';
import type { TraceEntry } from '../../flows/runtime/trace.js';
import type { AuthRequest } from '../request.js';

/** The access token of `provider` for `userId`, refreshed when due; throws RefreshTokenError or AccountNotLinked. */
export async function refreshedAccessToken(req: AuthRequest, adapter: Adapter, provider: ResolvedProvider, userId: string, timing: TokenRefreshOptions, trace: TraceEntry[] | undefined): Promise<string> {
  const deps: TokenDeps = {
    req,
    adapter: adapter as TokenDeps['adapter'],
    provider: oauthProviderFor({ req, provider, callbackUrl: '' } as FlowDeps),
    userId,
    holder: randomUUID(),
    options: { ...tokenRefreshDefaults, ...timing },
    now: () => Date.now(),
  };
  const settled = await settleMachine(tokenRefreshMachine, { deps }, { type: 'ACCESS_TOKEN' }, undefined, trace ?? [], [], { settleTimeoutMs: deps.options.waitMs + deps.options.lockMs + 15_000, keepTrace: trace !== undefined });
  if (settled.kind === 'done') return String((settled.output as TokenRefreshOutput).account.access_token);
  if (settled.kind === 'failed') {
    if (settled.error instanceof RefreshTokenError || settled.error instanceof AccountNotLinked) throw settled.error;
    throw new RefreshTokenError(settled.error.message, { err: settled.error, state: settled.state });
  }
  throw new RefreshTokenError('The token refresh paused, which it never should.');
}
