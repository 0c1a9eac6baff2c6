// Provider tokens kept inside the sealed session token (`session.providerTokens: 'in-session-cookie'`): one reserved
// claim, written by authchart only (at sign-in, and by getAccessToken's refresh), never shown to a callback, an event
// or the browser. The session JWE already encrypts it; this module says what it holds and keeps it out of sight.
import type { Account, JWT } from '../core/types.js';

/** The claim's name. Reserved: a callback neither sees nor sets it. */
export const PROVIDER_TOKENS_CLAIM = 'provider_tokens';

/** What the claim holds: the tokens of the provider the user signed in with. */
export interface ProviderTokensClaim {
  /** The provider's id. */
  provider: string;
  access_token?: string;
  refresh_token?: string;
  /** Seconds; absent: the access token does not expire. */
  expires_at?: number;
  token_type?: string;
  /**
   * `'RefreshTokenError'`: the provider refused the refresh (or none was possible); the tokens are dropped, the
   * session shows `error: 'RefreshTokenError'`, and nothing is sent to the provider again until a new sign-in.
   */
  error?: 'RefreshTokenError';
}

/** The claim of a session token, when it holds a well-formed one (anything else reads as absent). */
export function providerTokensOf(token: JWT | null | undefined): ProviderTokensClaim | undefined {
  const claim = (token as Record<string, unknown> | null | undefined)?.[PROVIDER_TOKENS_CLAIM] as Record<string, unknown> | undefined;
  if (!claim || typeof claim !== 'object' || typeof claim.provider !== 'string') return undefined;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const out: ProviderTokensClaim = { provider: claim.provider };
  if (text(claim.access_token)) out.access_token = text(claim.access_token);
  if (text(claim.refresh_token)) out.refresh_token = text(claim.refresh_token);
  if (typeof claim.expires_at === 'number' && Number.isFinite(claim.expires_at)) out.expires_at = claim.expires_at;
  if (text(claim.token_type)) out.token_type = text(claim.token_type);
  if (claim.error === 'RefreshTokenError') out.error = 'RefreshTokenError';
  return out;
}

/**
 * The claim a sign-in writes from the provider's account, or undefined (no access token: a credentials or e-mail
 * sign-in, or a provider `account()` callback that kept none).
 */
export function providerTokensFromAccount(account: Account | null | undefined): ProviderTokensClaim | undefined {
  if (!account || (account.type !== 'oauth' && account.type !== 'oidc') || typeof account.access_token !== 'string') return undefined;
  return providerTokensOf({
    [PROVIDER_TOKENS_CLAIM]: {
      provider: account.provider,
      access_token: account.access_token,
      refresh_token: account.refresh_token,
      expires_at: account.expires_at === null || account.expires_at === undefined ? undefined : Number(account.expires_at),
      token_type: account.token_type,
    },
  } as JWT);
}

/** A copy of the token without the claim: what callbacks, events and `getToken` see. */
export function withoutProviderTokens<T extends JWT | null | undefined>(token: T): T {
  if (!token || !(PROVIDER_TOKENS_CLAIM in token)) return token;
  const { [PROVIDER_TOKENS_CLAIM]: _hidden, ...rest } = token as Record<string, unknown>;
  return rest as T;
}
