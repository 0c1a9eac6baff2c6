// The provider-token refresh as a job of the runtime's door: its input built from the request, the provider and
// where the tokens live (the adapter's accounts, or the sealed session cookie with the shared refresh lock).
import { randomUUID } from 'node:crypto';
import type { Adapter } from '../../core/adapter.js';
import type { ProviderTokensClaim } from '../../session/provider-token-claim.js';
import { defineJob } from '../runtime/job.js';
import { oauthProviderOf } from '../oauth/steps.js';
import { cookieTokenStore, refreshStoreOf } from './cookie-tokens.js';
import { tokenRefreshMachine } from './machine.js';
import { tokenRefreshDefaults, type TokenDeps, type TokenRefreshOptions } from './steps.js';

/** What one refresh is for: the user, the timing, and where the tokens live. */
export interface TokenRefreshArgs {
  userId: string;
  timing: TokenRefreshOptions;
  /** The adapter's accounts, or the claim in the session cookie (`in-session-cookie`). */
  tokens: { adapter: Adapter } | { cookie: ProviderTokensClaim | undefined };
}

const optionsOf = (timing: TokenRefreshOptions): Required<TokenRefreshOptions> => ({ ...tokenRefreshDefaults, ...timing });

/** `getAccessToken`'s machine as a job (event `ACCESS_TOKEN`). */
export const tokenRefreshJob = /* @__PURE__ */ defineJob({
  machine: tokenRefreshMachine,
  version: 1,
  input: (req, provider, args: TokenRefreshArgs) => {
    const options = optionsOf(args.timing);
    const adapter =
      'adapter' in args.tokens
        ? args.tokens.adapter
        : cookieTokenStore({
            claim: args.tokens.cookie,
            provider: { id: provider.id, type: provider.type as 'oauth' | 'oidc' },
            userId: args.userId,
            store: refreshStoreOf(req.config).store,
            secrets: req.config.secrets,
            reuseWindowMs: options.reuseWindowMs,
          });
    const deps: TokenDeps = { req, adapter: adapter as TokenDeps['adapter'], provider: oauthProviderOf(req, provider), userId: args.userId, holder: randomUUID(), options, now: () => Date.now() };
    return { deps };
  },
  settleTimeoutMs: (args) => {
    const options = optionsOf(args.timing);
    return options.waitMs + options.lockMs + 15_000;
  },
});
