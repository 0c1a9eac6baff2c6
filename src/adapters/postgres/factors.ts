// The second-factor methods of the PostgreSQL adapter: factors per user, and the attempt counts of pending
// second-factor checks. Each "atomic" method of the contract is one statement, so concurrent calls race safely.
import type { AdapterFactor, FactorAdapterMethods, FactorKind } from '../../core/factors.js';
import type { Row } from './client.js';

type Query = (sql: string, params?: readonly unknown[]) => Promise<Row[]>;

const toFactor = (r: Row): AdapterFactor => ({
  id: r.id as string,
  userId: r.user_id as string,
  kind: r.kind as FactorKind,
  secret: r.secret as string,
  label: (r.label as string | null) ?? null,
  createdAt: new Date(r.created_at as string | Date),
  activatedAt: r.activated_at ? new Date(r.activated_at as string | Date) : null,
  lastStep: r.last_step === null || r.last_step === undefined ? null : Number(r.last_step),
});

const COLUMNS = 'id, user_id, kind, secret, label, created_at, activated_at, last_step';

/** The factor methods over one connection (or transaction). */
export function factorMethods(query: Query): { [K in keyof FactorAdapterMethods]: (...a: Parameters<FactorAdapterMethods[K]>) => Promise<Awaited<ReturnType<FactorAdapterMethods[K]>>> } {
  return {
    async createFactor(f) {
      const rows = await query(
        `INSERT INTO factors (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
        [f.id, f.userId, f.kind, f.secret, f.label ?? null, f.createdAt, f.activatedAt, f.lastStep ?? null],
      );
      return toFactor(rows[0]);
    },
    async listFactors(userId) {
      return (await query(`SELECT ${COLUMNS} FROM factors WHERE user_id = $1 ORDER BY created_at, id`, [userId])).map(toFactor);
    },
    async activateFactor({ id, userId, activatedAt }) {
      const rows = await query(`UPDATE factors SET activated_at = $3 WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`, [id, userId, activatedAt]);
      return rows[0] ? toFactor(rows[0]) : null;
    },
    async deleteFactors({ userId, id, kind }) {
      if (id === undefined && kind === undefined) throw new Error('deleteFactors needs an id or a kind.');
      const rows = await query(
        `DELETE FROM factors WHERE user_id = $1 AND ($2::text IS NULL OR id = $2) AND ($3::text IS NULL OR kind = $3) RETURNING id`,
        [userId, id ?? null, kind ?? null],
      );
      return rows.length;
    },
    async advanceFactorStep({ id, step }) {
      const rows = await query(`UPDATE factors SET last_step = $2 WHERE id = $1 AND (last_step IS NULL OR last_step < $2) RETURNING id`, [id, step]);
      return rows.length === 1;
    },
    async useBackupCode({ userId, secret }) {
      const rows = await query(`DELETE FROM factors WHERE user_id = $1 AND kind = 'backup' AND secret = $2 AND activated_at IS NOT NULL RETURNING id`, [userId, secret]);
      return rows.length === 1;
    },
    async failFactorChallenge({ id, expires }) {
      const rows = await query(
        `INSERT INTO factor_challenges (id, failures, expires) VALUES ($1, 1, $2)
         ON CONFLICT (id) DO UPDATE SET failures = factor_challenges.failures + 1
         RETURNING failures, passed`,
        [id, expires],
      );
      return rows[0].passed ? Infinity : Number(rows[0].failures);
    },
    async passFactorChallenge({ id, expires, maxFailures }) {
      // Inserted passed, or flipped to passed only from "not passed, under the limit": of two concurrent passes one wins.
      const rows = await query(
        `INSERT INTO factor_challenges (id, failures, passed, expires) VALUES ($1, 0, true, $2)
         ON CONFLICT (id) DO UPDATE SET passed = true
           WHERE factor_challenges.passed = false AND factor_challenges.failures < $3
         RETURNING id`,
        [id, expires, maxFailures],
      );
      return rows.length === 1;
    },
  };
}
