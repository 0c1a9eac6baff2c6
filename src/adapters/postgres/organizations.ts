// The organization methods of the PostgreSQL adapter (schema version 14). A change that could remove an owner locks the
// organization's row first, in a transaction: the check "another owner remains" then reads what committed before
// it, so two concurrent demotions or removals of the last two owners leave one owner.
import type { AdapterMembership, AdapterOrganization, OrganizationAdapterMethods } from '../../core/organizations.js';
import type { Queryable, Row } from './client.js';

type Query = (sql: string, params?: readonly unknown[]) => Promise<Row[]>;
type Methods = { [K in keyof OrganizationAdapterMethods]: (...a: Parameters<OrganizationAdapterMethods[K]>) => Promise<Awaited<ReturnType<OrganizationAdapterMethods[K]>>> };

const toOrganization = (r: Row): AdapterOrganization => ({ id: r.id as string, name: r.name as string, createdAt: new Date(r.created_at as string | Date) });

const toMembership = (r: Row): AdapterMembership => ({
  organizationId: r.organization_id as string,
  userId: r.user_id as string,
  role: r.role as string,
  createdAt: new Date(r.created_at as string | Date),
});

// "Another owner remains", read after the organization's row is locked.
const ANOTHER_OWNER = `EXISTS (SELECT 1 FROM memberships o WHERE o.organization_id = $1 AND o.role = 'owner' AND o.user_id <> $2)`;

/** The organization methods over one connection; `transaction` runs a function in one transaction. */
export function organizationMethods(query: Query, transaction: <T>(fn: (q: Queryable) => Promise<T>) => Promise<T>): Methods {
  // Runs `fn` with the organization's row locked; `fn` gets a query bound to the same transaction.
  const locked = <T>(organizationId: string, fn: (tx: Query) => Promise<T>): Promise<T> =>
    transaction(async (q) => {
      const tx: Query = async (sql, params = []) => (await q.query(sql, params)).rows;
      await tx(`SELECT id FROM organizations WHERE id = $1 FOR UPDATE`, [organizationId]);
      return fn(tx);
    });
  const refused = async (tx: Query, organizationId: string, userId: string) =>
    (await tx(`SELECT 1 FROM memberships WHERE organization_id = $1 AND user_id = $2`, [organizationId, userId])).length ? ('lastOwner' as const) : null;

  return {
    async createOrganization({ id, name, ownerId }) {
      // One statement: the organization never exists without its owner.
      const rows = await query(
        `WITH org AS (INSERT INTO organizations (id, name) VALUES ($1, $2) RETURNING *),
              owner AS (INSERT INTO memberships (organization_id, user_id, role) SELECT id, $3, 'owner' FROM org)
         SELECT * FROM org`,
        [id, name, ownerId],
      );
      return toOrganization(rows[0]);
    },
    async getOrganization(id) {
      const rows = await query(`SELECT * FROM organizations WHERE id = $1`, [id]);
      return rows[0] ? toOrganization(rows[0]) : null;
    },
    async renameOrganization(id, name) {
      const rows = await query(`UPDATE organizations SET name = $2 WHERE id = $1 RETURNING *`, [id, name]);
      return rows[0] ? toOrganization(rows[0]) : null;
    },
    async deleteOrganization(id) {
      return (await query(`DELETE FROM organizations WHERE id = $1 RETURNING id`, [id])).length === 1;
    },
    async listUserOrganizations(userId) {
      const rows = await query(
        `SELECT o.*, m.role FROM memberships m JOIN organizations o ON o.id = m.organization_id
         WHERE m.user_id = $1 ORDER BY m.created_at, o.id`,
        [userId],
      );
      return rows.map((r) => ({ ...toOrganization(r), role: r.role as string }));
    },
    async getMembership(organizationId, userId) {
      // The primary key's index: this runs on every gated request that has an active organization.
      const rows = await query(`SELECT * FROM memberships WHERE organization_id = $1 AND user_id = $2`, [organizationId, userId]);
      return rows[0] ? toMembership(rows[0]) : null;
    },
    async listMembers(organizationId) {
      return (await query(`SELECT * FROM memberships WHERE organization_id = $1 ORDER BY created_at, user_id`, [organizationId])).map(toMembership);
    },
    async addMember({ organizationId, userId, role }) {
      const inserted = await query(
        `INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING *`,
        [organizationId, userId, role],
      );
      if (inserted[0]) return { membership: toMembership(inserted[0]), added: true };
      const rows = await query(`SELECT * FROM memberships WHERE organization_id = $1 AND user_id = $2`, [organizationId, userId]);
      return { membership: toMembership(rows[0]), added: false };
    },
    setMemberRole({ organizationId, userId, role }) {
      return locked(organizationId, async (tx) => {
        const rows = await tx(
          `UPDATE memberships SET role = $3 WHERE organization_id = $1 AND user_id = $2
             AND ($3 = 'owner' OR role <> 'owner' OR ${ANOTHER_OWNER}) RETURNING *`,
          [organizationId, userId, role],
        );
        return rows[0] ? toMembership(rows[0]) : refused(tx, organizationId, userId);
      });
    },
    removeMember(organizationId, userId) {
      return locked(organizationId, async (tx) => {
        const rows = await tx(
          `DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2 AND (role <> 'owner' OR ${ANOTHER_OWNER}) RETURNING *`,
          [organizationId, userId],
        );
        return rows[0] ? toMembership(rows[0]) : refused(tx, organizationId, userId);
      });
    },
  };
}
