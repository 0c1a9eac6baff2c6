// The password methods of the PostgreSQL adapter (the Password provider): one hash per user in `passwords`
// (migration 11), gone with the user. A conditional write is one statement, so it races safely with a change.
import type { Row } from './client.js';

type Query = (sql: string, params?: readonly unknown[]) => Promise<Row[]>;

/** getPasswordHash and setPasswordHash over one connection (or transaction). */
export function passwordMethods(query: Query): {
  getPasswordHash(userId: string): Promise<string | null>;
  setPasswordHash(userId: string, hash: string, expected?: string): Promise<boolean>;
} {
  return {
    async getPasswordHash(userId) {
      const rows = await query(`SELECT hash FROM passwords WHERE user_id = $1`, [userId]);
      return rows[0] ? (rows[0].hash as string) : null;
    },
    async setPasswordHash(userId, hash, expected) {
      const rows =
        expected === undefined
          ? await query(
              `INSERT INTO passwords (user_id, hash, updated_at) VALUES ($1, $2, now())
               ON CONFLICT (user_id) DO UPDATE SET hash = EXCLUDED.hash, updated_at = EXCLUDED.updated_at RETURNING user_id`,
              [userId, hash],
            )
          : await query(`UPDATE passwords SET hash = $2, updated_at = now() WHERE user_id = $1 AND hash = $3 RETURNING user_id`, [userId, hash, expected]);
      return rows.length === 1;
    },
  };
}
