// The invitation methods of the PostgreSQL adapter (schema version 18). Re-inviting is one upsert on the partial
// unique index of pending rows; an answer is one conditional update (pending, unexpired, the token's hash) in the
// transaction that adds the member, so of two answers, or an answer and a revocation, exactly one takes the row.
import type { AdapterInvitation, InvitationAdapterMethods } from '../../core/invitations.js';
import type { AdapterMembership } from '../../core/organizations.js';
import type { Queryable, Row } from './client.js';

type Query = (sql: string, params?: readonly unknown[]) => Promise<Row[]>;
type Methods = { [K in keyof InvitationAdapterMethods]: (...a: Parameters<InvitationAdapterMethods[K]>) => Promise<Awaited<ReturnType<InvitationAdapterMethods[K]>>> };

const toInvitation = (r: Row): AdapterInvitation => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  email: r.email as string,
  role: r.role as string,
  tokenHash: r.token_hash as string,
  invitedBy: r.invited_by as string,
  status: r.status as AdapterInvitation['status'],
  expires: new Date(r.expires as string | Date),
  createdAt: new Date(r.created_at as string | Date),
  answeredBy: (r.answered_by as string | null) ?? null,
});

const toMembership = (r: Row): AdapterMembership => ({
  organizationId: r.organization_id as string,
  userId: r.user_id as string,
  role: r.role as string,
  createdAt: new Date(r.created_at as string | Date),
});

/** The invitation methods over one connection; `transaction` runs a function in one transaction. */
export function invitationMethods(query: Query, transaction: <T>(fn: (q: Queryable) => Promise<T>) => Promise<T>): Methods {
  return {
    async createInvitation({ id, organizationId, email, role, tokenHash, invitedBy, expires }) {
      const rows = await query(
        `INSERT INTO organization_invitations (id, organization_id, email, role, token_hash, invited_by, expires)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (organization_id, email) WHERE status = 'pending'
         DO UPDATE SET id = EXCLUDED.id, role = EXCLUDED.role, token_hash = EXCLUDED.token_hash, invited_by = EXCLUDED.invited_by,
                       expires = EXCLUDED.expires, created_at = clock_timestamp()
         RETURNING *`,
        [id, organizationId, email, role, tokenHash, invitedBy, expires],
      );
      return toInvitation(rows[0]);
    },
    async getInvitationByTokenHash(tokenHash) {
      const rows = await query(`SELECT * FROM organization_invitations WHERE token_hash = $1`, [tokenHash]);
      return rows[0] ? toInvitation(rows[0]) : null;
    },
    async listInvitations(organizationId) {
      const rows = await query(`SELECT * FROM organization_invitations WHERE organization_id = $1 AND status = 'pending' ORDER BY created_at DESC, id`, [organizationId]);
      return rows.map(toInvitation);
    },
    async revokeInvitation(organizationId, id) {
      const rows = await query(
        `UPDATE organization_invitations SET status = 'revoked', answered_at = now() WHERE organization_id = $1 AND id = $2 AND status = 'pending' RETURNING *`,
        [organizationId, id],
      );
      return rows[0] ? toInvitation(rows[0]) : null;
    },
    answerInvitation({ id, tokenHash, userId, accept }) {
      return transaction(async (q) => {
        const tx: Query = async (sql, params = []) => (await q.query(sql, params)).rows;
        const taken = await tx(
          `UPDATE organization_invitations SET status = $4, answered_by = $3, answered_at = now()
           WHERE id = $1 AND token_hash = $2 AND status = 'pending' AND expires > now() RETURNING *`,
          [id, tokenHash, userId, accept ? 'accepted' : 'declined'],
        );
        if (!taken[0]) {
          const now = await tx(`SELECT status, expires > now() AS live FROM organization_invitations WHERE id = $1 AND token_hash = $2`, [id, tokenHash]);
          return now[0]?.status === 'pending' && now[0].live === false ? ('expired' as const) : ('gone' as const);
        }
        const invitation = toInvitation(taken[0]);
        if (!accept) return { invitation, membership: null, added: false };
        const inserted = await tx(
          `INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING *`,
          [invitation.organizationId, userId, invitation.role],
        );
        if (inserted[0]) return { invitation, membership: toMembership(inserted[0]), added: true };
        const rows = await tx(`SELECT * FROM memberships WHERE organization_id = $1 AND user_id = $2`, [invitation.organizationId, userId]);
        return { invitation, membership: toMembership(rows[0]), added: false };
      });
    },
  };
}
