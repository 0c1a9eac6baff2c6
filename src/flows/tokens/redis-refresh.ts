// Provider-token refresh with its lock and state in Redis, for adapters without the token-refresh methods (or whose
// database should not hold the lock): an adapter decorator. Redis holds the refresh lock, the last rotation (reuse
// window), the refusal mark, and the tokens the last refresh got (sealed with the secret): the adapter keeps what the
// sign-in stored, and a newer sign-in there wins over what Redis holds.
import { createHash } from 'node:crypto';
import type { AccountKey, Adapter, TokenRefreshOutcome, TokenRefreshState } from '../../core/adapter.js';
import { redisCommandSender } from '../../core/redis-client.js';
import type { AdapterAccount } from '../../core/types.js';
import { openProviderToken, sealProviderToken } from './sealed-tokens.js';

/** Options of {@link redisTokenRefresh}. */
export interface RedisTokenRefreshOptions {
  /** The auth secret, or secrets newest first: the tokens Redis keeps are sealed with the first, opened with any. */
  secret: string | readonly string[];
  /** Prefix of every key (default `authchart:tokens:`). */
  prefix?: string;
}

/** What Redis keeps per account, as JSON: the tokens of the last refresh and the marks the refresh machine reads. */
interface Kept {
  /** SHA-256 of the refresh token the adapter held when this chain of refreshes started: the adapter's tokens, if changed since (a new sign-in), win. */
  base: string;
  tokens: Partial<Pick<AdapterAccount, 'access_token' | 'refresh_token' | 'id_token' | 'expires_at' | 'scope' | 'token_type'>> | null;
  rotatedAt: number | null;
  previous: string | null;
  /** SHA-256 of the refresh token the provider refused, and when. */
  refused: string | null;
  failedAt: number | null;
}

// Frees the lock only for its holder (a holder whose lock lapsed must not free a newer holder's).
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

const hash = (token: unknown) => createHash('sha256').update(String(token ?? '')).digest('hex');
const TOKEN_FIELDS = ['access_token', 'refresh_token'] as const;

/**
 * Wraps an adapter that has `getUserAccount` so that `getAccessToken` takes its per-account refresh lock in Redis
 * (`SET … NX PX`), one refresh at a time across every instance on that Redis, and keeps the refreshed tokens there
 * (access and refresh token sealed with the secret). Works with ioredis and node-redis.
 *
 * @example
 * import Redis from 'ioredis';
 * adapter: redisTokenRefresh(myAdapter, new Redis(process.env.REDIS_URL!), { secret: process.env.AUTH_SECRET! })
 */
export function redisTokenRefresh<A extends Adapter>(adapter: A, client: unknown, options: RedisTokenRefreshOptions): A {
  if (typeof adapter.getUserAccount !== 'function') throw new TypeError('redisTokenRefresh needs an adapter with getUserAccount (it reads the account the tokens belong to).');
  const send = redisCommandSender(client, 'redisTokenRefresh');
  const prefix = options.prefix ?? 'authchart:tokens:';
  const secrets = typeof options.secret === 'string' ? [options.secret] : [...options.secret];
  const keyOf = (k: AccountKey) => `${prefix}${k.provider.length}:${k.provider}:${k.providerAccountId}`;
  const getUserAccount = adapter.getUserAccount.bind(adapter);

  const readKept = async (k: AccountKey): Promise<Kept | null> => {
    const raw = await send(['GET', `${keyOf(k)}:state`]);
    return raw === null || raw === undefined ? null : (JSON.parse(String(raw)) as Kept);
  };
  const writeKept = async (k: AccountKey, kept: Kept) => {
    await send(['SET', `${keyOf(k)}:state`, JSON.stringify(kept)]);
  };
  /** The account as the adapter stores it, with Redis's newer tokens laid over it while they belong to the same sign-in. */
  const merge = (stored: AdapterAccount, kept: Kept | null): { account: AdapterAccount; kept: Kept | null } => {
    if (!kept || kept.base !== hash(stored.refresh_token)) return { account: stored, kept: null };
    const tokens: Record<string, unknown> = { ...kept.tokens };
    for (const f of TOKEN_FIELDS) if (typeof tokens[f] === 'string') tokens[f] = openProviderToken(secrets, stored, f, tokens[f] as string);
    return { account: { ...stored, ...tokens } as AdapterAccount, kept };
  };
  const state = async (k: AccountKey): Promise<TokenRefreshState> => {
    const userId = await send(['GET', `${keyOf(k)}:user`]);
    const stored = userId === null || userId === undefined ? null : await getUserAccount(String(userId), k.provider);
    if (!stored || stored.providerAccountId !== k.providerAccountId) return { account: null, lockedUntil: null, rotatedAt: null, previousRefreshTokenHash: null, failedAt: null };
    const { account, kept } = merge(stored, await readKept(k));
    const ttl = Number(await send(['PTTL', `${keyOf(k)}:lock`]));
    return {
      account,
      lockedUntil: ttl > 0 ? new Date(Date.now() + ttl) : null,
      rotatedAt: kept?.rotatedAt ? new Date(kept.rotatedAt) : null,
      previousRefreshTokenHash: kept?.previous ?? null,
      // A refusal marks only the refresh token it was about: a rotation or sign-in since clears it.
      failedAt: kept?.failedAt && kept.refused === hash(account.refresh_token) ? new Date(kept.failedAt) : null,
    };
  };

  const wrapped: Partial<Adapter> = {
    async getUserAccount(userId, provider) {
      const stored = await getUserAccount(userId, provider);
      if (!stored) return null;
      // Remembered so that reads by account key find the user's account again.
      await send(['SET', `${keyOf(stored)}:user`, userId]);
      return stored;
    },
    readTokenRefresh: state,
    async claimTokenRefresh(k, holder, until) {
      const ms = Math.max(1, until.getTime() - Date.now());
      const taken = await send(['SET', `${keyOf(k)}:lock`, holder, 'NX', 'PX', String(ms)]);
      const now = await state(k);
      const claimed = taken !== null && taken !== undefined;
      return { ...now, claimed, lockedUntil: claimed ? null : now.lockedUntil };
    },
    async finishTokenRefresh(k, holder, outcome: TokenRefreshOutcome) {
      if ('rotated' in outcome && outcome.previousRefreshTokenHash === null) {
        // A sign-in stored new tokens in the adapter: what Redis kept belongs to the sign-in before.
        await send(['DEL', `${keyOf(k)}:state`]);
      } else {
        // What Redis kept continues only if it belongs to the adapter's current sign-in.
        const current = await state(k);
        const userId = await send(['GET', `${keyOf(k)}:user`]);
        const stored = userId === null || userId === undefined ? null : await getUserAccount(String(userId), k.provider);
        const kept = stored ? merge(stored, await readKept(k)).kept : null;
        const base = kept?.base ?? hash(stored?.refresh_token);
        if ('rotated' in outcome) {
          const tokens: Record<string, unknown> = { ...current.account, ...outcome.rotated };
          const keep: Record<string, unknown> = {};
          for (const f of ['access_token', 'refresh_token', 'id_token', 'expires_at', 'scope', 'token_type'] as const) if (tokens[f] !== undefined) keep[f] = tokens[f];
          for (const f of TOKEN_FIELDS) if (typeof keep[f] === 'string') keep[f] = sealProviderToken(secrets, k, f, keep[f] as string);
          await writeKept(k, { base, tokens: keep as Kept['tokens'], rotatedAt: Date.now(), previous: outcome.previousRefreshTokenHash, refused: null, failedAt: null });
        } else if ('failed' in outcome) {
          await writeKept(k, { base, tokens: kept?.tokens ?? null, rotatedAt: kept?.rotatedAt ?? null, previous: kept?.previous ?? null, refused: hash(current.account?.refresh_token), failedAt: Date.now() });
        }
      }
      await send(['EVAL', RELEASE, '1', `${keyOf(k)}:lock`, holder]);
    },
  };
  return new Proxy(adapter, {
    get: (target, name, receiver) => (Object.hasOwn(wrapped, name) ? wrapped[name as keyof Adapter] : Reflect.get(target, name, receiver)),
  });
}
