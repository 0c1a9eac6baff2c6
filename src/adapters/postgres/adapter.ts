// authchart's PostgreSQL adapter: every method of the Adapter contract as one or two SQL statements, the same SQL
// on a `pg` Pool and on embedded PGlite. Rows are mapped here between snake_case columns and the spec's models.

import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AuthMethod,
  AdapterUser,
  VerificationToken,
} from '../../core/types.js';
import type { AccountKey, Adapter, PruneOptions, PruneResult, SessionRecord } from '../../core/adapter.js';
import type { FactorAdapterMethods } from '../../core/factors.js';
import { toQueryable, type Database, type Queryable, type Row } from './client.js';
import { factorMethods } from './factors.js';
import { passwordMethods } from './passwords.js';
import { organizationMethods } from './organizations.js';
import { ssoMethods } from './sso.js';
import { webhookMethods } from './webhooks.js';
import type { WebhookAdapterMethods } from '../../core/webhook-outbox.js';
import type { AdapterMembership, OrganizationAdapterMethods } from '../../core/organizations.js';
import type { SsoAdapterMethods } from '../../sso/types.js';
import { invitationMethods } from './invitations.js';
import type { InvitationAdapterMethods } from '../../core/invitations.js';
import { flowStoreMethods } from './flow-store.js';
import { activityInsert, activityMethods } from './activity.js';
import type { ActivityAdapterMethods } from '../../core/activity.js';
import type { FlowStoreAdapterMethods } from '../../core/flow-store/store.js';
import { migrate } from './schema.js';
import { prune } from './prune.js';
import { recordProviderSession, tokenRefreshMethods } from './token-refresh.js';

/** Options of {@link PostgresAdapter}. */
export interface PostgresAdapterOptions {
  /**
   * Run `migrate()` before the first query (once per adapter object). Handy for embedded PGlite and demos;
   * for a shared server, prefer calling `migrate()` from a deploy step.
   */
  autoMigrate?: boolean;
  /**
   * How long activity records are kept, in seconds, when `prune()` is called without `activityBefore` (a cleanup
   * job of the app's); authchart's own sweep passes the `activity.retention` of the configuration. Default 90 days.
   */
  activityRetention?: number;
}

/** Default retention of activity records: 90 days. */
export const ACTIVITY_RETENTION_SECONDS = 90 * 24 * 60 * 60;

/** The adapter object: every contract method (required here), plus authchart's extensions. */
export interface PostgresAdapterInstance extends Adapter {
  createUser(user: AdapterUser): Promise<AdapterUser>;
  getUser(id: string): Promise<AdapterUser | null>;
  getUserByEmail(email: string): Promise<AdapterUser | null>;
  getUserByAccount(account: AccountKey): Promise<AdapterUser | null>;
  updateUser(user: Partial<AdapterUser> & Pick<AdapterUser, 'id'>): Promise<AdapterUser>;
  /** Deletes the user; sessions, accounts and authenticators go with it (ON DELETE CASCADE). */
  deleteUser(userId: string): Promise<AdapterUser | null>;
  linkAccount(account: AdapterAccount): Promise<AdapterAccount>;
  unlinkAccount(account: AccountKey): Promise<AdapterAccount | undefined>;
  /** Inside `withTransaction`: `SELECT … FOR UPDATE` on the user's row, held until the transaction ends. */
  lockUser(userId: string): Promise<void>;
  createSession(session: { sessionToken: string; userId: string; expires: Date }): Promise<AdapterSession>;
  getSessionAndUser(sessionToken: string): Promise<{ session: AdapterSession; user: AdapterUser; membership?: AdapterMembership | null } | null>;
  updateSession(session: Partial<AdapterSession> & Pick<AdapterSession, 'sessionToken'>): Promise<AdapterSession | null>;
  deleteSession(sessionToken: string): Promise<AdapterSession | null>;
  createVerificationToken(verificationToken: VerificationToken): Promise<VerificationToken>;
  /** Single statement `DELETE … RETURNING`: of concurrent uses of one token, exactly one gets it. */
  useVerificationToken(params: { identifier: string; token: string }): Promise<VerificationToken | null>;
  /** See {@link Adapter.getVerificationToken}: a plain read, the token stays usable. */
  getVerificationToken(params: { identifier: string; token: string }): Promise<VerificationToken | null>;
  getAccount(providerAccountId: string, provider: string): Promise<AdapterAccount | null>;
  getAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null>;
  createAuthenticator(authenticator: AdapterAuthenticator): Promise<AdapterAuthenticator>;
  listAuthenticatorsByUserId(userId: string): Promise<AdapterAuthenticator[]>;
  updateAuthenticatorCounter(credentialID: string, newCounter: number): Promise<AdapterAuthenticator>;
  /** See {@link Adapter.renameAuthenticator}: one UPDATE keyed by the user and the credential. */
  renameAuthenticator(userId: string, credentialID: string, name: string): Promise<boolean>;
  /** See {@link Adapter.deleteAuthenticator}: the authenticator and its account in one statement. */
  deleteAuthenticator(userId: string, credentialID: string): Promise<boolean>;
  /** Second factors ({@link FactorAdapterMethods}): every method, each atomic statement as the contract asks. */
  createFactor: NonNullable<Adapter['createFactor']>;
  listFactors: NonNullable<Adapter['listFactors']>;
  activateFactor: NonNullable<Adapter['activateFactor']>;
  deleteFactors: NonNullable<Adapter['deleteFactors']>;
  advanceFactorStep: NonNullable<Adapter['advanceFactorStep']>;
  useBackupCode: NonNullable<Adapter['useBackupCode']>;
  failFactorChallenge: NonNullable<Adapter['failFactorChallenge']>;
  passFactorChallenge: NonNullable<Adapter['passFactorChallenge']>;
  /** The Password provider's hashes (migration 11): see {@link Adapter.getPasswordHash}. */
  getPasswordHash: NonNullable<Adapter['getPasswordHash']>;
  /** One statement; with `expected`, written only while the stored hash is that one. */
  setPasswordHash: NonNullable<Adapter['setPasswordHash']>;
  /** Organizations and memberships (schema version 14): see {@link OrganizationAdapterMethods}. */
  createOrganization: NonNullable<Adapter['createOrganization']>;
  getOrganization: NonNullable<Adapter['getOrganization']>;
  renameOrganization: NonNullable<Adapter['renameOrganization']>;
  deleteOrganization: NonNullable<Adapter['deleteOrganization']>;
  listUserOrganizations: NonNullable<Adapter['listUserOrganizations']>;
  getMembership: NonNullable<Adapter['getMembership']>;
  listMembers: NonNullable<Adapter['listMembers']>;
  addMember: NonNullable<Adapter['addMember']>;
  /** Locks the organization's row in a transaction: the last owner is never demoted, even by two at once. */
  setMemberRole: NonNullable<Adapter['setMemberRole']>;
  /** As setMemberRole: the last owner is never removed. */
  removeMember: NonNullable<Adapter['removeMember']>;
  /** Enterprise SSO (schema version 17): connections and domain claims, every write scoped to its organization. */
  createSsoConnection: NonNullable<Adapter['createSsoConnection']>;
  getSsoConnection: NonNullable<Adapter['getSsoConnection']>;
  listSsoConnections: NonNullable<Adapter['listSsoConnections']>;
  updateSsoConnection: NonNullable<Adapter['updateSsoConnection']>;
  deleteSsoConnection: NonNullable<Adapter['deleteSsoConnection']>;
  claimDomain: NonNullable<Adapter['claimDomain']>;
  listDomains: NonNullable<Adapter['listDomains']>;
  getVerifiedDomain: NonNullable<Adapter['getVerifiedDomain']>;
  markDomainVerified: NonNullable<Adapter['markDomainVerified']>;
  setDomainConnection: NonNullable<Adapter['setDomainConnection']>;
  deleteDomain: NonNullable<Adapter['deleteDomain']>;
  /** The webhook outbox (schema version 16): see {@link WebhookAdapterMethods}; the claim uses FOR UPDATE SKIP LOCKED. */
  enqueueWebhooks: NonNullable<Adapter['enqueueWebhooks']>;
  claimWebhookDeliveries: NonNullable<Adapter['claimWebhookDeliveries']>;
  markWebhookDelivered: NonNullable<Adapter['markWebhookDelivered']>;
  markWebhookFailed: NonNullable<Adapter['markWebhookFailed']>;
  listWebhookEndpointHealth: NonNullable<Adapter['listWebhookEndpointHealth']>;
  enableWebhookEndpoint: NonNullable<Adapter['enableWebhookEndpoint']>;
  /** Invitations (schema version 18): a re-invite replaces the pending one; an answer is one conditional update. */
  createInvitation: NonNullable<Adapter['createInvitation']>;
  getInvitationByTokenHash: NonNullable<Adapter['getInvitationByTokenHash']>;
  listInvitations: NonNullable<Adapter['listInvitations']>;
  revokeInvitation: NonNullable<Adapter['revokeInvitation']>;
  answerInvitation: NonNullable<Adapter['answerInvitation']>;
  /** Sessions keep `authTime` and `amr` (columns `auth_time`, `amr`): see {@link Adapter.sessionFacts}. */
  readonly sessionFacts: true;
  /** See {@link Adapter.withTransaction}; `tx` is this adapter bound to the transaction. */
  withTransaction<T>(fn: (tx: PostgresAdapterInstance) => Promise<T>, options?: { timeout?: number }): Promise<T>;
  /** Creates or upgrades the schema; see {@link migrate}. */
  migrate(): Promise<number[]>;
  /** Deletes expired tokens, challenges, sessions and throttle counters, and activity past its retention; see {@link prune}. */
  prune(options?: PruneOptions): Promise<PruneResult>;
  /** The activity log (schema version 15): see {@link ActivityAdapterMethods}. */
  appendActivity: ActivityAdapterMethods['appendActivity'];
  createSessionWithActivity: NonNullable<ActivityAdapterMethods['createSessionWithActivity']>;
  listActivity: ActivityAdapterMethods['listActivity'];
  /** The user's unexpired sessions, newest first (stored tokens: hashes). */
  listSessions(userId: string): Promise<SessionRecord[]>;
  /** Deletes the user's sessions but the one stored as `except`; how many went. */
  deleteSessions(userId: string, options?: { except?: string }): Promise<number>;
  /** The user's "sessions valid after" time (JWT sessions started before it are refused at refresh), or null. */
  getSessionsValidAfter(userId: string): Promise<Date | null>;
  /** Sets the user's "sessions valid after" time (never back), kept until `keepUntil` (absent: kept forever). */
  setSessionsValidAfter(userId: string, at: Date, keepUntil?: Date): Promise<void>;
  /** Provider token refresh (migration 9): see {@link Adapter.claimTokenRefresh}. */
  getUserAccount: NonNullable<Adapter['getUserAccount']>;
  claimTokenRefresh: NonNullable<Adapter['claimTokenRefresh']>;
  readTokenRefresh: NonNullable<Adapter['readTokenRefresh']>;
  finishTokenRefresh: NonNullable<Adapter['finishTokenRefresh']>;
  /** Back-channel logout (migration 9): see {@link Adapter.findProviderSessionUsers}. */
  findProviderSessionUsers: NonNullable<Adapter['findProviderSessionUsers']>;
  useLogoutToken: NonNullable<Adapter['useLogoutToken']>;
  /** The flow store (`deps.store`, flow-store.ts): each method one statement, atomic across instances. */
  setFlowValue: FlowStoreAdapterMethods['setFlowValue'];
  getFlowValue: FlowStoreAdapterMethods['getFlowValue'];
  takeFlowValue: FlowStoreAdapterMethods['takeFlowValue'];
  addFlowValue: FlowStoreAdapterMethods['addFlowValue'];
  incrementFlowValue: FlowStoreAdapterMethods['incrementFlowValue'];
}

// Columns of `accounts` that hold a TokenSet field of the same name; every other field goes to `extra`.
const tokenColumns = ['access_token', 'refresh_token', 'id_token', 'expires_at', 'scope', 'token_type', 'session_state'] as const;
const accountKeys = new Set<string>(['provider', 'providerAccountId', 'userId', 'type', ...tokenColumns]);

const toUser = (r: Row): AdapterUser => ({
  id: r.id as string,
  name: r.name as string | null,
  email: (r.email as string | null) ?? null,
  emailVerified: r.email_verified as Date | null,
  image: r.image as string | null,
});

const toSession = (r: Row): AdapterSession => ({
  sessionToken: r.session_token as string,
  userId: r.user_id as string,
  expires: r.expires as Date,
  // When and how the session was last verified (migration 5): only on rows that have it.
  ...(r.auth_time ? { authTime: r.auth_time as Date, amr: String(r.amr ?? '').split(' ').filter(Boolean) as AuthMethod[] } : {}),
  // A provider refused to refresh the user's tokens (migration 9): the session says so, as `session.error`.
  ...(r.token_error ? { error: r.token_error as string } : {}),
  // The session's active organization (schema version 14).
  ...(r.organization_id ? { organizationId: r.organization_id as string } : {}),
});

/** The membership joined to a session row with an active organization: null when the user is not a member of it. */
const toActiveMembership = (r: Row): AdapterMembership | null =>
  r.membership_role ? { organizationId: r.organization_id as string, userId: r.user_id as string, role: r.membership_role as string, createdAt: r.membership_created_at as Date } : null;

/** `amr` as stored: the method names separated by spaces. */
const storedAmr = (amr: readonly string[] | null | undefined): string | null => (amr ? amr.join(' ') : null);

const toSessionRecord = (r: Row): SessionRecord => ({
  ...toSession(r),
  createdAt: (r.created_at as Date | null) ?? null,
  lastSeenAt: (r.last_seen_at as Date | null) ?? null,
  userAgent: (r.user_agent as string | null) ?? null,
  ipAddress: (r.ip_address as string | null) ?? null,
});

const toToken = (r: Row): VerificationToken => ({
  identifier: r.identifier as string,
  token: r.token as string,
  expires: r.expires as Date,
});

// Absent token fields are omitted rather than null: a TokenSet's fields are optional, never null.
function toAccount(r: Row): AdapterAccount {
  const account: AdapterAccount = {
    ...(r.extra as Record<string, unknown>),
    provider: r.provider as string,
    providerAccountId: r.provider_account_id as string,
    userId: r.user_id as string,
    type: r.type as AdapterAccount['type'],
  };
  for (const c of tokenColumns) if (r[c] !== null && r[c] !== undefined) (account as Row)[c] = r[c];
  if (r.created_at) account.linkedAt = r.created_at as Date;
  return account;
}

const toAuthenticator = (r: Row): AdapterAuthenticator => ({
  credentialID: r.credential_id as string,
  userId: r.user_id as string,
  providerAccountId: r.provider_account_id as string,
  credentialPublicKey: r.credential_public_key as string,
  counter: r.counter as number,
  credentialDeviceType: r.credential_device_type as string,
  credentialBackedUp: r.credential_backed_up as boolean,
  transports: r.transports as string | null,
  name: (r.name as string | null | undefined) ?? null,
  createdAt: (r.created_at as Date | null | undefined) ?? null,
  lastUsedAt: (r.last_used_at as Date | null | undefined) ?? null,
  aaguid: (r.aaguid as string | null | undefined) ?? null,
});

// Columns updateUser may set; the list is fixed, so the dynamic SET clause never contains caller text.
const userColumns = { name: 'name', email: 'email', emailVerified: 'email_verified', image: 'image' } as const;

type TokenRefreshKeys = 'getUserAccount' | 'claimTokenRefresh' | 'readTokenRefresh' | 'finishTokenRefresh' | 'findProviderSessionUsers' | 'useLogoutToken';

function methods(q: Queryable, ready: () => Promise<void>): Omit<PostgresAdapterInstance, 'sessionFacts' | 'withTransaction' | 'migrate' | 'prune' | 'appendActivity' | 'createSessionWithActivity' | 'listActivity' | TokenRefreshKeys | 'getPasswordHash' | 'setPasswordHash' | keyof FactorAdapterMethods | keyof FlowStoreAdapterMethods | keyof OrganizationAdapterMethods | keyof SsoAdapterMethods | keyof WebhookAdapterMethods | keyof InvitationAdapterMethods> {
  const query = async (sql: string, params: readonly unknown[] = []): Promise<Row[]> => {
    await ready();
    return (await q.query(sql, params)).rows;
  };
  const one = async <T>(map: (r: Row) => T, sql: string, params: readonly unknown[]): Promise<T | null> => {
    const rows = await query(sql, params);
    return rows[0] ? map(rows[0]) : null;
  };

  return {
    async createUser(user) {
      const row = await one(
        toUser,
        `INSERT INTO users (id, name, email, email_verified, image)
         VALUES (COALESCE($1, gen_random_uuid()::text), $2, $3, $4, $5) RETURNING *`,
        [user.id ?? null, user.name ?? null, user.email ?? null, user.emailVerified ?? null, user.image ?? null],
      );
      return row!;
    },

    getUser: (id) => one(toUser, `SELECT * FROM users WHERE id = $1`, [id]),

    getUserByEmail: (email) => one(toUser, `SELECT * FROM users WHERE email = $1`, [email]),

    getUserByAccount: ({ provider, providerAccountId }) =>
      one(
        toUser,
        `SELECT u.* FROM users u JOIN accounts a ON a.user_id = u.id
         WHERE a.provider = $1 AND a.provider_account_id = $2`,
        [provider, providerAccountId],
      ),

    async updateUser(user) {
      const keys = (Object.keys(userColumns) as (keyof typeof userColumns)[]).filter((k) => user[k] !== undefined);
      const set = keys.map((k, i) => `${userColumns[k]} = $${i + 2}`);
      const sql = set.length
        ? `UPDATE users SET ${set.join(', ')} WHERE id = $1 RETURNING *`
        : `SELECT * FROM users WHERE id = $1`;
      const updated = await one(toUser, sql, [user.id, ...keys.map((k) => user[k])]);
      if (!updated) throw new Error(`updateUser: no user with id ${JSON.stringify(user.id)}`);
      return updated;
    },

    deleteUser: (userId) => one(toUser, `DELETE FROM users WHERE id = $1 RETURNING *`, [userId]),

    async linkAccount(account) {
      const extra = Object.fromEntries(
        Object.entries(account).filter(([k, v]) => !accountKeys.has(k) && v !== undefined),
      );
      const row = await one(
        toAccount,
        `INSERT INTO accounts (provider, provider_account_id, user_id, type, ${tokenColumns.join(', ')}, extra)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb) RETURNING *`,
        [
          account.provider,
          account.providerAccountId,
          account.userId,
          account.type,
          ...tokenColumns.map((c) => account[c] ?? null),
          JSON.stringify(extra),
        ],
      );
      // The OP session this sign-in belongs to (the ID token's sid), for back-channel logout.
      await recordProviderSession(q, account.provider, account.userId, account.id_token);
      return row!;
    },

    async unlinkAccount({ provider, providerAccountId }) {
      const row = await one(
        toAccount,
        `DELETE FROM accounts WHERE provider = $1 AND provider_account_id = $2 RETURNING *`,
        [provider, providerAccountId],
      );
      return row ?? undefined;
    },

    // Removals of a user's sign-in methods queue here, one after another, until the holder commits.
    async lockUser(userId) {
      await query(`SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, [userId]);
    },

    // Session control's fields (createdAt, userAgent, ipAddress) arrive beside the contract's three.
    async createSession(session) {
      const insert = sessionInsert(session);
      return (await one(toSession, insert.sql, insert.params))!;
    },

    // One round trip: this runs on every session read. With an active organization, the user's membership in it
    // comes in the same statement (the primary key of memberships), so the organization gate reads none of its own.
    getSessionAndUser: (sessionToken) =>
      one(
        (r) => ({ session: toSession(r), user: toUser(r), ...(r.organization_id ? { membership: toActiveMembership(r) } : {}) }),
        `SELECT s.session_token, s.user_id, s.expires, s.auth_time, s.amr, s.token_error, s.organization_id, u.id, u.name, u.email, u.email_verified, u.image,
                m.role AS membership_role, m.created_at AS membership_created_at
         FROM sessions s JOIN users u ON u.id = s.user_id
         LEFT JOIN memberships m ON m.organization_id = s.organization_id AND m.user_id = s.user_id
         WHERE s.session_token = $1`,
        [sessionToken],
      ),

    updateSession: (session) => {
      const { sessionToken, expires, userId, lastSeenAt, authTime, amr, organizationId } = session as Partial<SessionRecord> & Pick<SessionRecord, 'sessionToken'>;
      // The active organization changes only when the key is there (null clears it).
      return one(
        toSession,
        `UPDATE sessions SET expires = COALESCE($2, expires), user_id = COALESCE($3, user_id),
           last_seen_at = COALESCE($4, last_seen_at), auth_time = COALESCE($5, auth_time), amr = COALESCE($6, amr),
           organization_id = CASE WHEN $8 THEN $7 ELSE organization_id END
         WHERE session_token = $1 RETURNING *`,
        [sessionToken, expires ?? null, userId ?? null, lastSeenAt ?? null, authTime ?? null, storedAmr(amr), organizationId ?? null, organizationId !== undefined],
      );
    },

    async listSessions(userId) {
      const rows = await query(
        `SELECT * FROM sessions WHERE user_id = $1 AND expires > now() ORDER BY created_at DESC NULLS LAST, session_token`,
        [userId],
      );
      return rows.map(toSessionRecord);
    },

    async deleteSessions(userId, options = {}) {
      const rows = await query(
        `DELETE FROM sessions WHERE user_id = $1 AND ($2::text IS NULL OR session_token <> $2) RETURNING session_token`,
        [userId, options.except ?? null],
      );
      return rows.length;
    },

    async getSessionsValidAfter(userId) {
      const rows = await query(`SELECT valid_after FROM sessions_valid_after WHERE user_id = $1`, [String(userId)]);
      return (rows[0]?.valid_after as Date | undefined) ?? null;
    },

    async setSessionsValidAfter(userId, at, keepUntil) {
      // Never moved back: two "sign out everywhere" at once keep the later time, and the later keep-until (a null
      // keep_until, from before schema version 7 or a caller without one, means kept forever).
      await query(
        `INSERT INTO sessions_valid_after (user_id, valid_after, keep_until) VALUES ($1, $2, $3)
         ON CONFLICT (user_id) DO UPDATE SET valid_after = GREATEST(sessions_valid_after.valid_after, EXCLUDED.valid_after),
           keep_until = CASE WHEN sessions_valid_after.keep_until IS NULL OR EXCLUDED.keep_until IS NULL THEN NULL
                             ELSE GREATEST(sessions_valid_after.keep_until, EXCLUDED.keep_until) END`,
        [String(userId), at, keepUntil ?? null],
      );
    },

    deleteSession: (sessionToken) =>
      one(toSession, `DELETE FROM sessions WHERE session_token = $1 RETURNING *`, [sessionToken]),

    async createVerificationToken({ identifier, token, expires }) {
      const row = await one(
        toToken,
        `INSERT INTO verification_token (identifier, token, expires) VALUES ($1, $2, $3) RETURNING *`,
        [identifier, token, expires],
      );
      return row!;
    },

    // The row lock taken by DELETE makes a concurrent second DELETE wait, then find nothing: single use
    // without a separate read. Expiry is core's check, so an expired token is still returned (and gone).
    useVerificationToken: ({ identifier, token }) =>
      one(
        toToken,
        `DELETE FROM verification_token WHERE identifier = $1 AND token = $2 RETURNING *`,
        [identifier, token],
      ),

    getVerificationToken: ({ identifier, token }) =>
      one(toToken, `SELECT * FROM verification_token WHERE identifier = $1 AND token = $2`, [identifier, token]),

    getAccount: (providerAccountId, provider) =>
      one(
        toAccount,
        `SELECT * FROM accounts WHERE provider = $1 AND provider_account_id = $2`,
        [provider, providerAccountId],
      ),

    getAuthenticator: (credentialID) =>
      one(toAuthenticator, `SELECT * FROM authenticators WHERE credential_id = $1`, [credentialID]),

    async createAuthenticator(a) {
      const row = await one(
        toAuthenticator,
        `INSERT INTO authenticators (credential_id, user_id, provider_account_id, credential_public_key, counter,
           credential_device_type, credential_backed_up, transports, aaguid)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
        [
          a.credentialID,
          a.userId,
          a.providerAccountId,
          a.credentialPublicKey,
          a.counter,
          a.credentialDeviceType,
          a.credentialBackedUp,
          a.transports ?? null,
          a.aaguid ?? null,
        ],
      );
      return row!;
    },

    async listAuthenticatorsByUserId(userId) {
      const rows = await query(`SELECT * FROM authenticators WHERE user_id = $1 ORDER BY created_at NULLS FIRST, credential_id`, [userId]);
      return rows.map(toAuthenticator);
    },

    async updateAuthenticatorCounter(credentialID, newCounter) {
      const row = await one(
        toAuthenticator,
        `UPDATE authenticators SET counter = $2, last_used_at = now() WHERE credential_id = $1 RETURNING *`,
        [credentialID, newCounter],
      );
      if (!row) throw new Error(`updateAuthenticatorCounter: no authenticator ${JSON.stringify(credentialID)}`);
      return row;
    },

    async renameAuthenticator(userId, credentialID, name) {
      const rows = await query(`UPDATE authenticators SET name = $3 WHERE user_id = $1 AND credential_id = $2 RETURNING credential_id`, [userId, credentialID, name]);
      return rows.length > 0;
    },

    async deleteAuthenticator(userId, credentialID) {
      const rows = await query(
        `WITH gone AS (DELETE FROM authenticators WHERE user_id = $1 AND credential_id = $2 RETURNING credential_id, provider_account_id)
         , account AS (DELETE FROM accounts a USING gone WHERE a.user_id = $1 AND a.type = 'webauthn' AND a.provider_account_id = gone.credential_id RETURNING a.provider_account_id)
         SELECT credential_id FROM gone`,
        [userId, credentialID],
      );
      return rows.length > 0;
    },
  };
}

/** The INSERT of a session row (placeholders from `$first`) and its parameters. */
function sessionInsert(session: { sessionToken: string; userId: string; expires: Date }, first = 1): { sql: string; params: unknown[] } {
  const { sessionToken, userId, expires, createdAt, userAgent, ipAddress, authTime, amr } = session as SessionRecord;
  const $ = (i: number) => `$${first + i}`;
  return {
    sql: `INSERT INTO sessions (session_token, user_id, expires, created_at, user_agent, ip_address, auth_time, amr)
         VALUES (${$(0)}, ${$(1)}, ${$(2)}, COALESCE(${$(3)}, now()), ${$(4)}, ${$(5)}, ${$(6)}, ${$(7)}) RETURNING *`,
    params: [sessionToken, userId, expires, createdAt ?? null, userAgent ?? null, ipAddress ?? null, authTime ?? null, storedAmr(amr)],
  };
}

function bind(q: Queryable, ready: () => Promise<void>, retention: number): PostgresAdapterInstance {
  const rows = async (sql: string, params: readonly unknown[] = []) => {
    await ready();
    return (await q.query(sql, params)).rows;
  };
  const adapter: PostgresAdapterInstance = {
    sessionFacts: true,
    ...methods(q, ready),
    ...factorMethods(rows),
    ...passwordMethods(rows),
    ...flowStoreMethods(rows),
    ...ssoMethods(rows),
    ...activityMethods(rows),
    // The session and its sign-in's records in one statement: the records' INSERT runs as a data-modifying CTE.
    async createSessionWithActivity(session, records) {
      if (records.length === 0) return adapter.createSession(session);
      const logged = activityInsert(records);
      const insert = sessionInsert(session, logged.params.length + 1);
      const [row] = await rows(`WITH logged AS (${logged.sql}) ${insert.sql}`, [...logged.params, ...insert.params]);
      return toSession(row!);
    },
    ...organizationMethods(rows, async (fn) => {
      await ready();
      return q.transaction(fn);
    }),
    ...invitationMethods(rows, async (fn) => {
      await ready();
      return q.transaction(fn);
    }),
    ...webhookMethods(rows, async (fn) => {
      await ready();
      return q.transaction(fn);
    }),
    ...tokenRefreshMethods(
      rows,
      async (fn) => {
        await ready();
        return q.transaction(fn);
      },
      toAccount,
    ),
    async withTransaction(fn, options) {
      await ready();
      // Inside the transaction the schema is known to be ready; don't re-enter the migration lock.
      return q.transaction((tx) => fn(bind(tx, async () => {}, retention)), options);
    },
    async migrate() {
      return migrate(q);
    },
    async prune(options) {
      await ready();
      return prune(q, new Date(), { activityBefore: options?.activityBefore ?? new Date(Date.now() - retention * 1000) });
    },
  };
  return adapter;
}

/**
 * The PostgreSQL adapter, on a `pg` Pool (a PostgreSQL server) or an embedded PGlite instance.
 * Create the tables once with `adapter.migrate()` (idempotent), or pass `{ autoMigrate: true }`.
 *
 * @example
 * import pg from 'pg';
 * const adapter = PostgresAdapter(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 * await adapter.migrate();
 *
 * import { PGlite } from '@electric-sql/pglite';
 * const local = PostgresAdapter(await PGlite.create('.data/auth'), { autoMigrate: true });
 */
export function PostgresAdapter(db: Database, options: PostgresAdapterOptions = {}): PostgresAdapterInstance {
  const q = toQueryable(db);
  let migrated: Promise<unknown> | undefined;
  const ready = options.autoMigrate
    ? async () => {
        // A failed migration is retried by the next call instead of failing forever.
        migrated ??= migrate(q).catch((e: unknown) => {
          migrated = undefined;
          throw e;
        });
        await migrated;
      }
    : async () => {};
  return bind(q, ready, options.activityRetention ?? ACTIVITY_RETENTION_SECONDS);
}
