// The SSO methods of the PostgreSQL adapter (schema version 17): an organization's connections, its domain claims.
// Every statement that names a connection or a domain also names the organization, so an id of another tenant's
// connection matches no row; one verified claim per domain is the database's to keep (a partial unique index).
import type { OrganizationDomain, SsoAdapterMethods, SsoConnection } from '../../sso/types.js';
import type { Row } from './client.js';

type Query = (sql: string, params?: readonly unknown[]) => Promise<Row[]>;
type Methods = { [K in keyof SsoAdapterMethods]: (...a: Parameters<SsoAdapterMethods[K]>) => Promise<Awaited<ReturnType<SsoAdapterMethods[K]>>> };

const dateOf = (v: unknown) => new Date(v as string | Date);
// Settings without the fields the columns hold.
const COLUMNS = ['id', 'organizationId', 'name', 'defaultRole', 'enabled', 'createdAt', 'kind'] as const;

function settingsOf(connection: Partial<SsoConnection>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...connection };
  for (const c of COLUMNS) delete out[c];
  return out;
}

const toConnection = (r: Row): SsoConnection => {
  const settings = (typeof r.settings === 'string' ? JSON.parse(r.settings) : r.settings) as Record<string, unknown>;
  return {
    ...settings,
    id: r.id as string,
    organizationId: r.organization_id as string,
    name: r.name as string,
    defaultRole: r.default_role as string,
    enabled: r.enabled as boolean,
    createdAt: dateOf(r.created_at),
    kind: r.kind,
  } as SsoConnection;
};

const toDomain = (r: Row): OrganizationDomain => ({
  organizationId: r.organization_id as string,
  domain: r.domain as string,
  verificationToken: r.verification_token as string,
  verifiedAt: r.verified_at ? dateOf(r.verified_at) : null,
  connectionId: (r.connection_id as string | null) ?? null,
  createdAt: dateOf(r.created_at),
});

const uniqueViolation = (err: unknown) => (err as { code?: unknown } | null)?.code === '23505';

/** The SSO methods over one connection. */
export function ssoMethods(query: Query): Methods {
  return {
    async createSsoConnection(c) {
      const rows = await query(
        `INSERT INTO sso_connections (id, organization_id, name, kind, default_role, enabled, settings) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
        [c.id, c.organizationId, c.name, c.kind, c.defaultRole, c.enabled, JSON.stringify(settingsOf(c))],
      );
      return toConnection(rows[0]);
    },
    async getSsoConnection(id) {
      const rows = await query(`SELECT * FROM sso_connections WHERE id = $1`, [id]);
      return rows[0] ? toConnection(rows[0]) : null;
    },
    async listSsoConnections(organizationId) {
      return (await query(`SELECT * FROM sso_connections WHERE organization_id = $1 ORDER BY created_at, id`, [organizationId])).map(toConnection);
    },
    async updateSsoConnection(organizationId, id, update) {
      const rows = await query(`SELECT * FROM sso_connections WHERE id = $1 AND organization_id = $2`, [id, organizationId]);
      if (!rows[0]) return null;
      const next = { ...toConnection(rows[0]), ...update } as SsoConnection;
      const updated = await query(
        `UPDATE sso_connections SET name = $3, kind = $4, default_role = $5, enabled = $6, settings = $7 WHERE id = $1 AND organization_id = $2 RETURNING *`,
        [id, organizationId, next.name, next.kind, next.defaultRole, next.enabled, JSON.stringify(settingsOf(next))],
      );
      return updated[0] ? toConnection(updated[0]) : null;
    },
    async deleteSsoConnection(organizationId, id) {
      return (await query(`DELETE FROM sso_connections WHERE id = $1 AND organization_id = $2 RETURNING id`, [id, organizationId])).length === 1;
    },
    async claimDomain({ organizationId, domain, verificationToken }) {
      const inserted = await query(
        `INSERT INTO organization_domains (organization_id, domain, verification_token)
         SELECT $1, $2, $3 WHERE NOT EXISTS (SELECT 1 FROM organization_domains WHERE domain = $2 AND verified_at IS NOT NULL AND organization_id <> $1)
         ON CONFLICT (organization_id, domain) DO NOTHING RETURNING *`,
        [organizationId, domain, verificationToken],
      );
      if (inserted[0]) return toDomain(inserted[0]);
      const own = await query(`SELECT * FROM organization_domains WHERE organization_id = $1 AND domain = $2`, [organizationId, domain]);
      return own[0] ? toDomain(own[0]) : null;
    },
    async listDomains(organizationId) {
      return (await query(`SELECT * FROM organization_domains WHERE organization_id = $1 ORDER BY created_at, domain`, [organizationId])).map(toDomain);
    },
    async getVerifiedDomain(domain) {
      const rows = await query(`SELECT * FROM organization_domains WHERE domain = $1 AND verified_at IS NOT NULL`, [domain]);
      return rows[0] ? toDomain(rows[0]) : null;
    },
    async markDomainVerified(organizationId, domain) {
      try {
        const rows = await query(
          `UPDATE organization_domains SET verified_at = COALESCE(verified_at, now()) WHERE organization_id = $1 AND domain = $2 RETURNING *`,
          [organizationId, domain],
        );
        return rows[0] ? toDomain(rows[0]) : null;
      } catch (err) {
        // Another organization verified it first: the partial unique index keeps one verified claim per domain.
        if (uniqueViolation(err)) return null;
        throw err;
      }
    },
    async setDomainConnection(organizationId, domain, connectionId) {
      // Only a connection of the same organization: another tenant's id routes nothing.
      const rows = await query(
        `UPDATE organization_domains SET connection_id = $3 WHERE organization_id = $1 AND domain = $2
           AND ($3::text IS NULL OR EXISTS (SELECT 1 FROM sso_connections c WHERE c.id = $3 AND c.organization_id = $1)) RETURNING *`,
        [organizationId, domain, connectionId],
      );
      return rows[0] ? toDomain(rows[0]) : null;
    },
    async deleteDomain(organizationId, domain) {
      return (await query(`DELETE FROM organization_domains WHERE organization_id = $1 AND domain = $2 RETURNING domain`, [organizationId, domain])).length === 1;
    },
  };
}
