// Provider-token refresh in PostgreSQL: the per-account refresh lock (one refresh at a time across instances), the
// record of the last rotation (the reuse window), and the failure mark sessions show as `RefreshTokenError`.
import type { AdapterAccount } from '../../core/types.js';
import type { AccountKey, Adapter, TokenRefreshState } from '../../core/adapter.js';
import type { Queryable, Row } from './client.js';
import { sidOf } from '../../core/id-token-sid.js';

type Query = (sql: string, params?: readonly unknown[]) => Promise<Row[]>;
type Methods = Required<Pick<Adapter, 'getUserAccount' | 'claimTokenRefresh' | 'readTokenRefresh' | 'finishTokenRefresh' | 'findProviderSessionUsers' | 'useLogoutToken'>>;

/** Records the OP session of a stored ID token for the account's user (back-channel logout by sid). */
export async function recordProviderSession(q: Pick<Queryable, 'query'>, provider: string, userId: string, idToken: unknown): Promise<void> {
  const sid = sidOf(idToken);
  if (!sid) return;
  await q.query(`INSERT INTO provider_sessions (provider, sid, user_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [provider, sid, userId]);
  // Bounded: the user's latest OP sessions with this provider are kept, older ones (long ended at the OP) go.
  await q.query(
    `DELETE FROM provider_sessions WHERE provider = $1 AND user_id = $2 AND sid NOT IN
       (SELECT sid FROM provider_sessions WHERE provider = $1 AND user_id = $2 ORDER BY created_at DESC, sid LIMIT ${PROVIDER_SESSIONS_KEPT})`,
    [provider, userId],
  );
}

/** How many OP sessions (sids) per user and provider back-channel logout can match. */
export const PROVIDER_SESSIONS_KEPT = 20;

const STATE_SELECT = `SELECT a.*, t.locked_until AS t_locked_until, t.rotated_at AS t_rotated_at,
  t.previous_refresh_hash AS t_previous_refresh_hash, t.failed_at AS t_failed_at
  FROM accounts a LEFT JOIN token_refresh t ON t.provider = a.provider AND t.provider_account_id = a.provider_account_id
  WHERE a.provider = $1 AND a.provider_account_id = $2`;

function stateOf(r: Row | undefined, toAccount: (r: Row) => AdapterAccount): TokenRefreshState {
  if (!r) return { account: null, lockedUntil: null, rotatedAt: null, previousRefreshTokenHash: null, failedAt: null };
  const date = (v: unknown) => (v instanceof Date ? v : v === null || v === undefined ? null : new Date(String(v)));
  // A lapsed lock is no lock: its holder is gone.
  const until = date(r.t_locked_until);
  return {
    account: toAccount(r),
    lockedUntil: until && until.getTime() > Date.now() ? until : null,
    rotatedAt: date(r.t_rotated_at),
    previousRefreshTokenHash: (r.t_previous_refresh_hash as string | null) ?? null,
    failedAt: date(r.t_failed_at),
  };
}

/** The token-refresh methods of the PostgreSQL adapter (migration 9). */
export function tokenRefreshMethods(query: Query, transaction: <T>(fn: (tx: Queryable) => Promise<T>) => Promise<T>, toAccount: (r: Row) => AdapterAccount): Methods {
  const read = async ({ provider, providerAccountId }: AccountKey) => stateOf((await query(STATE_SELECT, [provider, providerAccountId]))[0], toAccount);
  return {
    async getUserAccount(userId, provider) {
      const [row] = await query(`SELECT * FROM accounts WHERE user_id = $1 AND provider = $2 ORDER BY provider_account_id LIMIT 1`, [userId, provider]);
      return row ? toAccount(row) : null;
    },
    async claimTokenRefresh(key, holder, until) {
      // One statement: of concurrent claims on a free (or lapsed) lock exactly one gets a row back. The lapse is
      // judged by the database's clock, the same for every instance.
      const taken = await query(
        `INSERT INTO token_refresh (provider, provider_account_id, holder, locked_until)
         SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM accounts WHERE provider = $1 AND provider_account_id = $2)
         ON CONFLICT (provider, provider_account_id) DO UPDATE SET holder = EXCLUDED.holder, locked_until = EXCLUDED.locked_until
           WHERE token_refresh.locked_until IS NULL OR token_refresh.locked_until < now()
         RETURNING holder`,
        [key.provider, key.providerAccountId, holder, until],
      );
      const state = await read(key);
      return { ...state, claimed: taken.length === 1, lockedUntil: taken.length === 1 ? null : state.lockedUntil };
    },
    readTokenRefresh: read,
    async findProviderSessionUsers(provider, { sid, sub }) {
      if (!sid && !sub) return [];
      const bySid = sid ? (await query(`SELECT DISTINCT user_id FROM provider_sessions WHERE provider = $1 AND sid = $2`, [provider, sid])).map((r) => String(r.user_id)) : undefined;
      const bySub = sub ? (await query(`SELECT user_id FROM accounts WHERE provider = $1 AND provider_account_id = $2`, [provider, sub])).map((r) => String(r.user_id)) : undefined;
      if (bySid && bySub) return bySid.filter((id) => bySub.includes(id));
      return bySid ?? bySub ?? [];
    },
    async useLogoutToken(issuer, jti, expires) {
      await query(`DELETE FROM logout_token_jti WHERE expires < now()`);
      const rows = await query(`INSERT INTO logout_token_jti (issuer, jti, expires) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING jti`, [issuer, jti, expires]);
      return rows.length === 1;
    },
    async finishTokenRefresh(key, holder, outcome) {
      const params = [key.provider, key.providerAccountId];
      await transaction(async (tx) => {
        if ('released' in outcome) {
          await tx.query(`UPDATE token_refresh SET holder = NULL, locked_until = NULL WHERE provider = $1 AND provider_account_id = $2 AND holder = $3`, [...params, holder]);
          return;
        }
        if ('failed' in outcome) {
          await tx.query(`UPDATE token_refresh SET holder = NULL, locked_until = NULL, failed_at = now() WHERE provider = $1 AND provider_account_id = $2`, params);
          await tx.query(`UPDATE sessions SET token_error = 'RefreshTokenError' WHERE user_id = $1`, [outcome.userId]);
          return;
        }
        const t = outcome.rotated;
        if (t.id_token) {
          const [owner] = (await tx.query(`SELECT user_id FROM accounts WHERE provider = $1 AND provider_account_id = $2`, params)).rows;
          if (owner) await recordProviderSession(tx, key.provider, owner.user_id as string, t.id_token);
        }
        // A provider that does not rotate sends no new refresh token (or ID token): the stored one stays.
        await tx.query(
          `UPDATE accounts SET access_token = $3, refresh_token = COALESCE($4, refresh_token), id_token = COALESCE($5, id_token),
             expires_at = $6, scope = COALESCE($7, scope), token_type = COALESCE($8, token_type)
           WHERE provider = $1 AND provider_account_id = $2`,
          [...params, t.access_token ?? null, t.refresh_token ?? null, t.id_token ?? null, t.expires_at ?? null, t.scope ?? null, t.token_type ?? null],
        );
        // Released only if still ours: a holder whose lock lapsed must not free a newer holder's.
        await tx.query(
          `UPDATE token_refresh SET rotated_at = now(), previous_refresh_hash = $4, failed_at = NULL,
             holder = CASE WHEN holder = $3 THEN NULL ELSE holder END,
             locked_until = CASE WHEN holder = $3 THEN NULL ELSE locked_until END
           WHERE provider = $1 AND provider_account_id = $2`,
          [...params, holder, outcome.previousRefreshTokenHash],
        );
      });
    },
  };
}
