// Provider tokens kept in the sealed session cookie (`session.providerTokens: 'in-session-cookie'`), as the token
// refresh machine's store: the account is the one the request's cookie holds; the refresh lock, the winner's result
// (for the reuse window) and the refusal mark live in the configured flow store (its atomic `add` is the lock; Redis
// or a database: across instances and tabs), keyed by a hash of the refresh token they are about. The machine is the
// same one database sessions run.
import { createHash } from 'node:crypto';
import type { Adapter, TokenRefreshOutcome, TokenRefreshState } from '../../core/adapter.js';
import type { InternalConfig } from '../../core/config.js';
import type { FlowStore } from '../../core/flow-store/store.js';
import type { AdapterAccount } from '../../core/types.js';
import type { ProviderTokensClaim } from '../../session/provider-token-claim.js';
import { openProviderToken, sealProviderToken } from './sealed-tokens.js';
import { refreshTokenHash } from './steps.js';

const NS = 'provider-tokens:';
/** How long a refused refresh token is remembered, so other tabs holding it never send it again (seconds). */
export const REFUSAL_MEMORY_SECONDS = 3600;
/** How many rotations a stale cookie may be behind and still be brought forward (each within the reuse window). */
const MAX_HOPS = 3;
const TOKEN_FIELDS = ['access_token', 'refresh_token'] as const;

/** The winner's result, as the store keeps it under the spent refresh token's key. */
interface Rotated {
  tokens: Partial<Record<'access_token' | 'refresh_token' | 'token_type', string>> & { expires_at?: number | null };
  at: number;
}

/** The store the lock and results live in, and whether other instances share it. */
export function refreshStoreOf(config: InternalConfig): { store: FlowStore; shared: boolean } {
  return { store: config.flowStore, shared: config.flowStore.kind !== 'memory' };
}

/** The key of one refresh token of one provider (never the token itself: keys may show in Redis tools). */
export function chainKey(provider: string, refreshToken: string): string {
  return createHash('sha256').update(`${provider.length}:${provider}:${refreshToken}`).digest('hex');
}

export interface CookieTokenStoreInput {
  /** What the request's session cookie holds. */
  claim: ProviderTokensClaim | undefined;
  provider: { id: string; type: 'oauth' | 'oidc' };
  userId: string;
  store: FlowStore;
  secrets: readonly string[];
  reuseWindowMs: number;
}

/**
 * The refresh machine's adapter for tokens in the cookie: `getUserAccount`, `readTokenRefresh`, `claimTokenRefresh`
 * and `finishTokenRefresh` against the cookie's tokens and the claim store. One per call.
 */
export function cookieTokenStore(input: CookieTokenStoreInput): Adapter {
  const { claim, provider, userId, store, secrets } = input;
  const base: AdapterAccount | null =
    claim && claim.provider === provider.id
      ? ({
          provider: provider.id,
          providerAccountId: userId,
          userId,
          type: provider.type,
          ...(claim.access_token ? { access_token: claim.access_token } : {}),
          ...(claim.refresh_token ? { refresh_token: claim.refresh_token } : {}),
          ...(claim.expires_at !== undefined ? { expires_at: claim.expires_at } : {}),
          ...(claim.token_type ? { token_type: claim.token_type } : {}),
        } as AdapterAccount)
      : null;
  const sealKey = (h: string) => ({ provider: provider.id, providerAccountId: h });
  const keyOf = (what: 'lock' | 'rotated' | 'refused', refreshToken: string) => `${NS}${what}:${chainKey(provider.id, refreshToken)}`;

  const readRotated = async (refreshToken: string): Promise<Rotated | null> => {
    const raw = await store.get(keyOf('rotated', refreshToken));
    if (raw === null) return null;
    const kept = JSON.parse(raw) as Rotated;
    const h = chainKey(provider.id, refreshToken);
    const tokens: Rotated['tokens'] = { ...kept.tokens };
    for (const f of TOKEN_FIELDS) if (typeof tokens[f] === 'string') tokens[f] = openProviderToken(secrets, sealKey(h), f, tokens[f]!);
    return { tokens, at: kept.at };
  };

  /** The state as it is now, from `start` brought forward through any rotations the store remembers. */
  const stateFrom = async (start: AdapterAccount | null): Promise<TokenRefreshState> => {
    if (!start) return { account: null, lockedUntil: null, rotatedAt: null, previousRefreshTokenHash: null, failedAt: null };
    let account = start;
    let rotatedAt: Date | null = null;
    let previous: string | null = null;
    for (let hop = 0; hop < MAX_HOPS && typeof account.refresh_token === 'string'; hop++) {
      const spent = account.refresh_token;
      const kept = await readRotated(spent);
      if (!kept) break;
      account = { ...account, ...kept.tokens, refresh_token: kept.tokens.refresh_token ?? spent } as AdapterAccount;
      rotatedAt = new Date(kept.at);
      previous = refreshTokenHash(spent);
      // A provider that does not rotate answered the same refresh token: there is no further step to follow.
      if (account.refresh_token === spent) break;
    }
    const rt = typeof account.refresh_token === 'string' ? account.refresh_token : null;
    const lock = rt ? await store.get(keyOf('lock', rt)) : null;
    const refused = rt ? await store.get(keyOf('refused', rt)) : null;
    return {
      account,
      lockedUntil: lock === null ? null : new Date(Date.now() + 1000),
      rotatedAt,
      previousRefreshTokenHash: previous,
      failedAt: refused === null ? null : new Date(Number(refused)),
    };
  };

  const release = async (refreshToken: unknown, holder: string) => {
    if (typeof refreshToken !== 'string') return;
    const key = keyOf('lock', refreshToken);
    // Only the holder frees its lock (one whose lock lapsed must not free a newer holder's); the gap between the
    // read and the take is a lapsed lock's edge case, and costs at most one early release.
    if ((await store.get(key)) === holder) await store.take(key);
  };

  return {
    async getUserAccount(_userId, providerId) {
      return providerId === provider.id ? base : null;
    },
    // loadTokens asks by account key (the cookie's tokens); a waiter asks with the account it holds.
    readTokenRefresh: (key) => stateFrom('refresh_token' in key ? (key as AdapterAccount) : base),
    async claimTokenRefresh(key, holder, until) {
      const account = key as AdapterAccount;
      const ttl = Math.max(0.001, (until.getTime() - Date.now()) / 1000);
      const claimed = typeof account.refresh_token === 'string' ? await store.add(keyOf('lock', account.refresh_token), holder, ttl) : false;
      const now = await stateFrom(account);
      return { ...now, claimed, lockedUntil: claimed ? null : now.lockedUntil };
    },
    async finishTokenRefresh(key, holder, outcome: TokenRefreshOutcome) {
      const account = key as AdapterAccount;
      const spent = account.refresh_token;
      if ('rotated' in outcome && typeof spent === 'string') {
        const h = chainKey(provider.id, spent);
        const tokens: Record<string, unknown> = {};
        for (const f of ['access_token', 'refresh_token', 'expires_at', 'token_type'] as const) if (outcome.rotated[f] !== undefined) tokens[f] = outcome.rotated[f];
        for (const f of TOKEN_FIELDS) if (typeof tokens[f] === 'string') tokens[f] = sealProviderToken(secrets, sealKey(h), f, tokens[f] as string);
        const ttl = Math.max(1, Math.ceil(input.reuseWindowMs / 1000));
        await store.set(keyOf('rotated', spent), JSON.stringify({ tokens, at: Date.now() } satisfies Rotated), ttl);
      } else if ('failed' in outcome && typeof spent === 'string') {
        await store.set(keyOf('refused', spent), String(Date.now()), REFUSAL_MEMORY_SECONDS);
      }
      await release(spent, holder);
    },
  };
}
