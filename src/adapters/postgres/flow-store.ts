// The flow-store methods of the PostgreSQL adapter (`deps.store` kept in the `flow_store` table). Each is one
// statement, so concurrent calls from any number of instances race safely: a take is `DELETE … RETURNING`, an add
// and an increment are `INSERT … ON CONFLICT` whose conflicting row is locked until the statement ends.
import type { FlowStoreAdapterMethods } from '../../core/flow-store/store.js';
import type { Row } from './client.js';

type Query = (sql: string, params?: readonly unknown[]) => Promise<Row[]>;

const toFlowEntry = (r: Row) => ({ value: r.value as string, expires: new Date(r.expires as Date | string) });

/** The flow-store methods over one connection. */
export function flowStoreMethods(query: Query): FlowStoreAdapterMethods {
  const one = async (sql: string, params: readonly unknown[]) => {
    const rows = await query(sql, params);
    return rows[0] ? toFlowEntry(rows[0]) : null;
  };
  return {
    async setFlowValue(key, value, expires) {
      await query(
        `INSERT INTO flow_store (key, value, expires) VALUES ($1, $2, $3)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires = EXCLUDED.expires`,
        [key, value, expires],
      );
    },
    getFlowValue: (key) => one(`SELECT value, expires FROM flow_store WHERE key = $1`, [key]),
    takeFlowValue: (key) => one(`DELETE FROM flow_store WHERE key = $1 RETURNING value, expires`, [key]),
    async addFlowValue(key, value, expires, now) {
      // A live row makes the update's WHERE false: no row comes back, and nothing changed.
      const rows = await query(
        `INSERT INTO flow_store (key, value, expires) VALUES ($1, $2, $3)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires = EXCLUDED.expires WHERE flow_store.expires <= $4
         RETURNING key`,
        [key, value, expires, now],
      );
      return rows.length === 1;
    },
    async incrementFlowValue(key, expires, now) {
      // Anything but a counter in the row fails the cast: an error, as on the other stores.
      const rows = await query(
        `INSERT INTO flow_store (key, value, expires) VALUES ($1, '1', $2)
         ON CONFLICT (key) DO UPDATE SET
           value = CASE WHEN flow_store.expires <= $3 THEN '1' ELSE (flow_store.value::bigint + 1)::text END,
           expires = CASE WHEN flow_store.expires <= $3 THEN EXCLUDED.expires ELSE flow_store.expires END
         RETURNING value`,
        [key, expires, now],
      );
      return Number(rows[0]!.value);
    },
  };
}
