// The PostgreSQL schema as an append-only list of migrations, and `migrate()`, which brings any database
// (empty, or at an older version) to the latest one. A new version is one more entry at the end of `migrations`.

import { toQueryable, type Database, type Queryable } from './client.js';

/** One step of the schema. Each statement runs on its own (PGlite's `query` takes a single statement). */
export interface Migration {
  /** 1, 2, 3, ... in order, never reused. */
  version: number;
  description: string;
  statements: readonly string[];
}

/** Table that records which migrations have been applied. */
export const versionTable = 'authchart_schema_version';

/**
 * Every migration, oldest first. Applied migrations are never edited; changes go into a new entry.
 *
 * Ids are TEXT (Auth.js core proposes a random UUID for new users, and other adapters' ids may be anything);
 * cascades make `deleteUser` remove sessions, accounts and authenticators in the same statement.
 */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    description: 'users, accounts, sessions, verification tokens, authenticators',
    statements: [
      `CREATE TABLE users (
        id TEXT PRIMARY KEY DEFAULT gen_random_uuid()::text,
        name TEXT,
        email TEXT UNIQUE,
        email_verified TIMESTAMPTZ,
        image TEXT
      )`,
      `CREATE TABLE accounts (
        provider TEXT NOT NULL,
        provider_account_id TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        access_token TEXT,
        refresh_token TEXT,
        id_token TEXT,
        expires_at BIGINT,
        scope TEXT,
        token_type TEXT,
        session_state TEXT,
        extra JSONB NOT NULL DEFAULT '{}'::jsonb,
        PRIMARY KEY (provider, provider_account_id)
      )`,
      `CREATE INDEX accounts_user_id_idx ON accounts (user_id)`,
      `CREATE TABLE sessions (
        session_token TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        expires TIMESTAMPTZ NOT NULL
      )`,
      `CREATE INDEX sessions_user_id_idx ON sessions (user_id)`,
      `CREATE TABLE verification_token (
        identifier TEXT NOT NULL,
        token TEXT NOT NULL,
        expires TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (identifier, token)
      )`,
      `CREATE TABLE authenticators (
        credential_id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        provider_account_id TEXT NOT NULL,
        credential_public_key TEXT NOT NULL,
        counter BIGINT NOT NULL,
        credential_device_type TEXT NOT NULL,
        credential_backed_up BOOLEAN NOT NULL,
        transports TEXT
      )`,
      `CREATE INDEX authenticators_user_id_idx ON authenticators (user_id)`,
    ],
  },
  {
    version: 2,
    description: 'throttle counters (PostgresThrottleStore)',
    statements: [
      // The row shape rate-limiter-flexible's PostgreSQL limiter reads and writes: expire in epoch milliseconds.
      `CREATE TABLE authchart_throttle (
        key VARCHAR(255) PRIMARY KEY,
        points INTEGER NOT NULL DEFAULT 0,
        expire BIGINT
      )`,
      `CREATE INDEX authchart_throttle_expire_idx ON authchart_throttle (expire)`,
    ],
  },
  {
    version: 3,
    description: 'second factors and the attempts at pending second-factor checks',
    statements: [
      `CREATE TABLE factors (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        secret TEXT NOT NULL,
        label TEXT,
        created_at TIMESTAMPTZ NOT NULL,
        activated_at TIMESTAMPTZ,
        last_step BIGINT
      )`,
      `CREATE INDEX factors_user_id_idx ON factors (user_id)`,
      `CREATE TABLE factor_challenges (
        id TEXT PRIMARY KEY,
        failures INTEGER NOT NULL DEFAULT 0,
        passed BOOLEAN NOT NULL DEFAULT false,
        expires TIMESTAMPTZ NOT NULL
      )`,
      `CREATE INDEX factor_challenges_expires_idx ON factor_challenges (expires)`,
    ],
  },
  {
    version: 4,
    description: 'session control: session tokens stored as SHA-256, created/last-seen time, user agent, address',
    statements: [
      `ALTER TABLE sessions ADD COLUMN created_at TIMESTAMPTZ, ADD COLUMN last_seen_at TIMESTAMPTZ,
         ADD COLUMN user_agent TEXT, ADD COLUMN ip_address TEXT`,
      // Existing cookies keep working: authchart looks a cookie up by its SHA-256, which this stores in its place.
      `UPDATE sessions SET session_token = encode(sha256(convert_to(session_token, 'UTF8')), 'hex')`,
    ],
  },
  {
    version: 5,
    description: 'when and how each session was last verified (auth time, amr), for step-up',
    // Sessions from before have neither: requireRecentSignIn treats them as never verified.
    statements: [`ALTER TABLE sessions ADD COLUMN auth_time TIMESTAMPTZ, ADD COLUMN amr TEXT`],
  },
  {
    version: 6,
    description: "JWT sessions: each user's \"sessions valid after\" time, set by sign out everywhere",
    // A table, not a column of users: JWT users signed in with credentials often have no row there. No row: no JWT
    // session of that user is refused.
    statements: [`CREATE TABLE sessions_valid_after (user_id TEXT PRIMARY KEY, valid_after TIMESTAMPTZ NOT NULL)`],
  },
  {
    version: 7,
    description: 'JWT sessions: when a "sessions valid after" time may be pruned (every token it could end has expired)',
    // Rows already there keep a null keep_until and are never pruned: the JWT maxAge they were set under is unknown.
    statements: [`ALTER TABLE sessions_valid_after ADD COLUMN keep_until TIMESTAMPTZ`],
  },
  {
    version: 8,
    description: 'stored session tokens marked `sha256:`, a form no cookie has (a value read from the table is never a token)',
    // The cookies keep working: authchart now looks a cookie up as `sha256:` and its SHA-256, which this writes.
    statements: [`UPDATE sessions SET session_token = 'sha256:' || session_token WHERE session_token ~ '^[0-9a-f]{64}$'`],
  },
  {
    version: 9,
    description: 'provider tokens and logout: refresh lock and last rotation, RefreshTokenError on sessions, OP session ids (sid), used logout-token ids',
    statements: [
      `CREATE TABLE token_refresh (
        provider TEXT NOT NULL,
        provider_account_id TEXT NOT NULL,
        holder TEXT,
        locked_until TIMESTAMPTZ,
        rotated_at TIMESTAMPTZ,
        previous_refresh_hash TEXT,
        failed_at TIMESTAMPTZ,
        PRIMARY KEY (provider, provider_account_id),
        FOREIGN KEY (provider, provider_account_id) REFERENCES accounts (provider, provider_account_id) ON DELETE CASCADE ON UPDATE CASCADE
      )`,
      `ALTER TABLE sessions ADD COLUMN token_error TEXT`,
      // The OP's session id (the ID token's sid) of each sign-in, so a back-channel logout naming it finds the user.
      `CREATE TABLE provider_sessions (
        provider TEXT NOT NULL,
        sid TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (provider, sid, user_id)
      )`,
      `CREATE INDEX provider_sessions_user_id_idx ON provider_sessions (user_id)`,
      // Logout tokens already used (their jti), until they expire: a replay is refused on every instance.
      `CREATE TABLE logout_token_jti (issuer TEXT NOT NULL, jti TEXT NOT NULL, expires TIMESTAMPTZ NOT NULL, PRIMARY KEY (issuer, jti))`,
    ],
  },
  {
    version: 10,
    description: 'the flow store: short-lived JSON entries a flow keeps across requests and instances (deps.store)',
    // Keys are namespaced by the flow store (`flow:<provider>:...`); expired rows go at the next prune.
    statements: [
      `CREATE TABLE flow_store (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires TIMESTAMPTZ NOT NULL)`,
      `CREATE INDEX flow_store_expires_idx ON flow_store (expires)`,
    ],
  },
  {
    version: 11,
    description: 'password hashes of the Password provider, one per user',
    // A table, not a column of users: most users have none, and a hash is read only by the password flows.
    statements: [
      `CREATE TABLE passwords (
        user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        hash TEXT NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
    ],
  },
  {
    version: 12,
    description: 'indexes on the expiry columns the prune job deletes by (sessions, link tokens, "valid after" rows)',
    // Without them each prune read every row (a second at five million sessions, nothing expired). The cost: a
    // session's expiry is an indexed column, so its refresh is no longer a HOT update; it is written at most once
    // per `updateAge` (a day by default) per session, so the prune's saving is far larger (measured in SCALE.md).
    // On a large table already in use, create them first with CREATE INDEX CONCURRENTLY (docs/adapters.md):
    // IF NOT EXISTS then makes this step instant.
    statements: [
      `CREATE INDEX IF NOT EXISTS sessions_expires_idx ON sessions (expires)`,
      `CREATE INDEX IF NOT EXISTS verification_token_expires_idx ON verification_token (expires)`,
      `CREATE INDEX IF NOT EXISTS sessions_valid_after_keep_until_idx ON sessions_valid_after (keep_until)`,
    ],
  },
  {
    version: 13,
    description: 'passkeys on the account page: a name, when each was added and when it last signed in',
    // Rows from before have no date: the page shows none rather than a made-up one.
    statements: [
      `ALTER TABLE authenticators ADD COLUMN name TEXT`,
      `ALTER TABLE authenticators ADD COLUMN created_at TIMESTAMPTZ`,
      `ALTER TABLE authenticators ALTER COLUMN created_at SET DEFAULT now()`,
      `ALTER TABLE authenticators ADD COLUMN last_used_at TIMESTAMPTZ`,
    ],
  },
  {
    version: 14,
    description: 'organizations, memberships with roles, and the active organization of each database session',
    // memberships.user_id has no foreign key, as sessions_valid_after: JWT users signed in with credentials often
    // have no users row. The primary key (organization_id, user_id) is the index every gated read uses.
    statements: [
      `CREATE TABLE organizations (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
      `CREATE TABLE memberships (
        organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_id TEXT NOT NULL,
        role TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (organization_id, user_id)
      )`,
      `CREATE INDEX memberships_user_id_idx ON memberships (user_id)`,
      `ALTER TABLE sessions ADD COLUMN organization_id TEXT`,
    ],
  },
  {
    version: 15,
    description: 'the security activity log (append-only), by user and time and by organization and time',
    // No foreign keys: a record outlives the user, session and organization it names (an audit trail of a deleted
    // account), and a failed sign-in names nobody. Rows are never updated: the rule turns an UPDATE into nothing, and
    // only prune() deletes (records older than the retention).
    statements: [
      `CREATE TABLE activity (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        at TIMESTAMPTZ NOT NULL,
        user_id TEXT,
        actor_id TEXT,
        organization_id TEXT,
        provider TEXT,
        method TEXT,
        machine TEXT,
        machine_version TEXT,
        transition TEXT,
        session_hash TEXT,
        ip TEXT,
        user_agent TEXT,
        correlation_id TEXT NOT NULL,
        reason TEXT,
        detail JSONB
      )`,
      `CREATE INDEX activity_user_at_idx ON activity (user_id, at DESC, id DESC)`,
      `CREATE INDEX activity_organization_at_idx ON activity (organization_id, at DESC, id DESC) WHERE organization_id IS NOT NULL`,
      `CREATE INDEX activity_at_idx ON activity (at DESC, id DESC)`,
      `CREATE RULE activity_append_only AS ON UPDATE TO activity DO INSTEAD NOTHING`,
    ],
  },
  {
    version: 16,
    description: 'webhook outbox: one delivery per activity record and endpoint, and each endpoint\'s health',
    // A claim leases a row by moving next_attempt_at past the lease and setting `claim`; a deliverer that crashes
    // leaves the row due again when the lease ends. The partial index is what each claim reads: the pending rows by
    // due time. Delivered rows stay a week (then the prune job deletes them) as the record of what was sent.
    statements: [
      `CREATE TABLE webhook_outbox (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        record_id TEXT NOT NULL,
        endpoint_id TEXT NOT NULL,
        payload JSONB NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TIMESTAMPTZ NOT NULL,
        claim TEXT,
        last_error TEXT,
        created_at TIMESTAMPTZ NOT NULL,
        delivered_at TIMESTAMPTZ,
        UNIQUE (record_id, endpoint_id)
      )`,
      `CREATE INDEX webhook_outbox_due_idx ON webhook_outbox (next_attempt_at) WHERE status = 'pending'`,
      // What the prune job deletes by: delivered rows past their week.
      `CREATE INDEX webhook_outbox_delivered_idx ON webhook_outbox (delivered_at) WHERE status = 'delivered'`,
      `CREATE TABLE webhook_endpoint_health (
        endpoint_id TEXT PRIMARY KEY,
        failing_since TIMESTAMPTZ,
        disabled_at TIMESTAMPTZ,
        last_error TEXT
      )`,
    ],
  },
  {
    version: 17,
    description: 'enterprise SSO: connections of an organization to its identity provider, and the domains it claims',
    // settings: the kind's settings as JSON (an OIDC client secret sealed by authchart before it gets here). One
    // verified claim per domain across organizations (the partial unique index); claims not yet verified may be
    // many, each organization proving its own.
    statements: [
      `CREATE TABLE sso_connections (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        default_role TEXT NOT NULL,
        enabled BOOLEAN NOT NULL DEFAULT true,
        settings JSONB NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX sso_connections_organization_id_idx ON sso_connections (organization_id)`,
      `CREATE TABLE organization_domains (
        organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        domain TEXT NOT NULL,
        verification_token TEXT NOT NULL,
        verified_at TIMESTAMPTZ,
        connection_id TEXT REFERENCES sso_connections (id) ON DELETE SET NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, domain)
      )`,
      `CREATE UNIQUE INDEX organization_domains_verified_idx ON organization_domains (domain) WHERE verified_at IS NOT NULL`,
    ],
  },
  {
    version: 18,
    description: 'invitations to an organization: one pending per address and organization, the token kept only as its hash',
    // A re-invite replaces the pending row (the partial unique index is its conflict target); an answered or revoked
    // row stays as a record. token_hash is unique: the invitation page finds its row by it.
    statements: [
      `CREATE TABLE organization_invitations (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        email TEXT NOT NULL,
        role TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        invited_by TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending',
        expires TIMESTAMPTZ NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
        answered_by TEXT,
        answered_at TIMESTAMPTZ
      )`,
      `CREATE UNIQUE INDEX organization_invitations_pending_idx ON organization_invitations (organization_id, email) WHERE status = 'pending'`,
    ],
  },
  {
    version: 19,
    description: 'the account page: the AAGUID a passkey reported (its provider named), and when each account was linked',
    // Rows from before have neither: the page names no provider and no date for them rather than made-up ones (the
    // default is set after the column is added, so existing rows keep null).
    statements: [
      `ALTER TABLE authenticators ADD COLUMN aaguid TEXT`,
      `ALTER TABLE accounts ADD COLUMN created_at TIMESTAMPTZ`,
      `ALTER TABLE accounts ALTER COLUMN created_at SET DEFAULT now()`,
    ],
  },
];

/** The schema version of the database (0 when authchart's tables were never created). */
export async function schemaVersion(db: Database): Promise<number> {
  const q = toQueryable(db);
  const { rows } = await q.query<{ exists: boolean }>(
    `SELECT to_regclass($1) IS NOT NULL AS exists`,
    [versionTable],
  );
  if (!rows[0]?.exists) return 0;
  const current = await q.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${versionTable}`);
  return current.rows[0]?.version ?? 0;
}

async function applyPending(tx: Queryable, list: readonly Migration[]): Promise<number[]> {
  // Serialises concurrent migrate() calls (several app instances starting at once) per schema; the lock is
  // released with the transaction. The key includes the schema so separate schemas migrate independently.
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.${versionTable}'))`);
  await tx.query(
    `CREATE TABLE IF NOT EXISTS ${versionTable} (
      version INTEGER PRIMARY KEY,
      description TEXT NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`,
  );
  const current = await schemaVersion(tx);
  const latest = list.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new Error(
      `Database schema version ${current} is newer than this authchart (${latest}); upgrade authchart.`,
    );
  }
  const applied: number[] = [];
  for (const m of list) {
    if (m.version <= current) continue;
    for (const statement of m.statements) await tx.query(statement);
    await tx.query(`INSERT INTO ${versionTable} (version, description) VALUES ($1, $2)`, [m.version, m.description]);
    applied.push(m.version);
  }
  return applied;
}

function checkOrder(list: readonly Migration[]): void {
  list.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`Migration #${i} has version ${m.version}, expected ${i + 1}`);
  });
}

/**
 * Creates authchart's tables, or upgrades them to the latest version, in one transaction. Idempotent and safe
 * to call from several processes at once; an up-to-date database costs three small queries. Tables go into the
 * connection's `current_schema()` (set `search_path` to use another schema).
 *
 * @returns the versions applied by this call (`[]` when the schema was already current).
 * @example
 * const db = await PGlite.create('.data/auth');
 * await migrate(db);                // or: await PostgresAdapter(db).migrate()
 */
export async function migrate(db: Database, list: readonly Migration[] = migrations): Promise<number[]> {
  checkOrder(list);
  return toQueryable(db).transaction((tx) => applyPending(tx, list));
}
