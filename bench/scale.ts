// `npm run bench:scale`: how the cost of the request paths grows with the data. PostgreSQL is seeded at each size
// (users, five sessions each with an active organization, an account, a password, ten activity records, one
// organization per ten users, link tokens, "valid after" rows, delivered webhooks), then each path is timed against
// random users, the sizes taking turns, and every statement those paths sent is explained at the largest size: a
// missing index shows up only there. Writes bench/SCALE.md.
//   npm run bench:scale                         10k, 100k and 1M users
//   npm run bench:scale -- --sizes 1000,10000   other sizes (nothing written unless they are the default ones)
import { randomInt } from 'node:crypto';
import { cpus, loadavg, release, totalmem, type } from 'node:os';
import pg from 'pg';
import { postgres as adapters, providers, root } from './built.js';
// The stored form of a seeded session's token (setup only): the sources' function, the dist's algorithm.
import { isStoredSessionToken, storedSessionToken } from '../src/session/session-token.js';
import { createClient } from '../test/support/client.js';
import { BENCH_SECRET, ORIGIN, loggedErrors, quiet, type Handle } from './contenders.js';
import { spread, type Spread } from './measure.js';
import { queryView } from './query-view.js';

export const DEFAULT_SIZES = [10_000, 100_000, 1_000_000];
const SESSIONS_PER_USER = 5;
const ACTIVITY_PER_USER = 10;
/** Users per organization: the first of each ten owns it, the other nine are members. */
const USERS_PER_ORGANIZATION = 10;
/** One pending invitation for every this many organizations. */
const ORGANIZATIONS_PER_INVITATION = 10;
/** One delivered webhook (kept a week for the record) for every this many users. */
const USERS_PER_WEBHOOK = 2;
/** The activity log's retention in the configuration, and what the prune job is given (as authchart's sweep does). */
const RETENTION_DAYS = 90;
const DAY_MS = 86_400_000;
const PASSWORD = 'scale-bench-password';
// A cheap argon2id, so a sign-in's time is the database's and the flow's, not the hash's (section 9 of RESULTS.md
// measures the hash at OWASP's parameters).
const HASHER = root.argon2id({ memoryCost: 64, timeCost: 1, parallelism: 1 });

export const PATHS = [
  'database session check',
  'org-gated session check (requireOrganization)',
  'password sign-in',
  'list a user’s sessions',
  'end a user’s other sessions',
  'link sign-in (request + callback)',
  'list a user’s activity (first page)',
  'list an organization’s members',
  'throttle on PostgreSQL (one consume)',
  'prune job (nothing expired)',
] as const;
export type ScalePath = (typeof PATHS)[number];
/** The paths of several requests, with a password hash: the others are cheap, and get CHEAP_FACTOR times the ops. */
const HEAVY: ReadonlySet<ScalePath> = new Set<ScalePath>(['password sign-in', 'link sign-in (request + callback)']);
const CHEAP_FACTOR = 4;
/** Ends each picked user's sessions once: needs a user not picked before at every operation. */
const ONCE_PER_USER: ScalePath = 'end a user’s other sessions';

export interface ScaleOptions {
  databaseUrl: string;
  sizes: number[];
  /** Timed operations per path and size (after `warmup`), in all rounds together; the cheap paths get four times as many. */
  ops: number;
  warmup: number;
  /** Rounds: each round times every path at every size, the sizes in a rotated order (default 5). */
  rounds?: number;
  log?: (line: string) => void;
}

/** One explained statement: its text, whether its plan reads a whole table, and the plan's first lines. */
export interface ExplainedStatement {
  path: ScalePath;
  sql: string;
  seqScan: boolean;
  plan: string;
}

/** What one DELETE of a user's other sessions does at a size (EXPLAIN ANALYZE, BUFFERS, WAL; rolled back): medians. */
export interface DeleteCost {
  ms: number;
  sharedHit: number;
  sharedRead: number;
  walRecords: number;
  walFpi: number;
  walBytes: number;
  samples: number;
}

/** What one session check's statement reads at a size (EXPLAIN ANALYZE, BUFFERS): medians over random users. */
export interface ReadCost {
  ms: number;
  sharedHit: number;
  sharedRead: number;
  samples: number;
}

/** A table or index that the session check reads, at a size: its size on disk. */
export interface RelationSize {
  name: string;
  bytes: number;
}

export interface ScaleResult {
  sizes: number[];
  /** Per path, per size: milliseconds per operation (min / median / max over the timed operations). */
  paths: Record<ScalePath, Spread[]>;
  /** Timed operations per path and size. */
  ops: Record<ScalePath, number>;
  rounds: number;
  seedSeconds: number[];
  explained: ExplainedStatement[];
  /** Per size: the DELETE of "end a user's other sessions", explained with ANALYZE. */
  deleteCost: DeleteCost[];
  /** Per size: the database session check's statement for random users, explained with ANALYZE and BUFFERS. */
  checkCost: ReadCost[];
  /** Per size: the tables and indexes the session check reads, and PostgreSQL's shared buffers. */
  relations: RelationSize[][];
  sharedBuffers: string;
  /** At the largest size, with and without the index on sessions.expires: a session refresh and the prune job. */
  expiresIndex: { refresh: { with: Spread; without: Spread }; prune: { with: Spread; without: Spread } };
  machine: { date: string; node: string; postgres: string; os: string; cpu: string; cores: number; memoryGiB: number; load: [number, number] };
}

/** A pool view that records each statement's text and parameters (the last seen for each text). */
function recording(pool: pg.Pool): { db: pg.Pool; take(): Map<string, unknown[]> } {
  let seen = new Map<string, unknown[]>();
  const record = (args: unknown[]) => {
    const [text, values] = args as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
    if (typeof text === 'string') seen.set(text, values ?? []);
    else if (text && typeof text === 'object' && typeof text.text === 'string') seen.set(text.text, text.values ?? []);
  };
  return {
    db: queryView(pool, record),
    take() {
      const out = seen;
      seen = new Map();
      return out;
    },
  };
}

/**
 * Runs `load` on `table` without its indexes and constraints, then puts them back as they were (same names and
 * definitions, read from the catalogue): a sorted build is far cheaper than millions of random index inserts. Only
 * for a table no foreign key points at.
 */
async function withoutIndexes(c: pg.PoolClient, table: string, load: () => Promise<unknown>): Promise<void> {
  const referenced = await c.query(`SELECT 1 FROM pg_constraint WHERE confrelid = $1::regclass`, [table]);
  if (referenced.rowCount) throw new Error(`${table} is referenced by a foreign key: load it with its indexes`);
  const constraints = (await c.query<{ name: string; def: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = $1::regclass AND contype IN ('p', 'u', 'f') ORDER BY contype DESC`,
    [table],
  )).rows;
  const indexes = (await c.query<{ name: string; def: string }>(
    `SELECT i.relname AS name, pg_get_indexdef(i.oid) AS def FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
     WHERE x.indrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.oid AND k.conrelid = x.indrelid)`,
    [table],
  )).rows;
  for (const i of indexes) await c.query(`DROP INDEX ${i.name}`);
  for (const k of constraints) await c.query(`ALTER TABLE ${table} DROP CONSTRAINT ${k.name}`);
  await load();
  for (const k of [...constraints].reverse()) await c.query(`ALTER TABLE ${table} ADD CONSTRAINT ${k.name} ${k.def}`);
  for (const i of indexes) await c.query(i.def);
}

/** The organization of user `i` (1-based), as the seed made it. */
const organizationOf = (i: number) => `org${Math.floor((i - 1) / USERS_PER_ORGANIZATION) + 1}`;
const ORG_OF_I = `'org' || ((i - 1) / ${USERS_PER_ORGANIZATION} + 1)`;

/** Seeds `users` users set-based inside PostgreSQL (INSERT … SELECT generate_series: no row crosses the wire). */
async function seed(pool: pg.Pool, users: number, hash: string): Promise<void> {
  const c = await pool.connect();
  try {
    const q = (sql: string, params: unknown[] = []) => c.query(sql, params);
    // The index builds after the bulk loads sort in memory.
    await q(`SET maintenance_work_mem = '256MB'`);
    await q(`INSERT INTO users (id, name, email, email_verified) SELECT 'u' || i, 'User ' || i, 'u' || i || '@example.com', now() FROM generate_series(1, $1) AS i`, [users]);
    await q(`INSERT INTO passwords (user_id, hash) SELECT 'u' || i, $2 FROM generate_series(1, $1) AS i`, [users, hash]);
    await q(
      `INSERT INTO accounts (user_id, type, provider, provider_account_id) SELECT 'u' || i, 'oidc', 'example', 'sub-' || i FROM generate_series(1, $1) AS i`,
      [users],
    );
    // One organization per ten users: the first of the ten owns it, the nine others are members.
    await q(`INSERT INTO organizations (id, name, created_at) SELECT 'org' || g, 'Organization ' || g, now() - interval '120 days' FROM generate_series(1, ($1 + ${USERS_PER_ORGANIZATION} - 1) / ${USERS_PER_ORGANIZATION}) AS g`, [users]);
    await q(
      `INSERT INTO memberships (organization_id, user_id, role, created_at)
       SELECT ${ORG_OF_I}, 'u' || i, CASE WHEN (i - 1) % ${USERS_PER_ORGANIZATION} = 0 THEN 'owner' ELSE 'member' END, now() - interval '120 days' + i * interval '1 ms'
       FROM generate_series(1, $1) AS i`,
      [users],
    );
    // A few invitations waiting for an answer: one for every tenth organization, sent by its owner.
    await q(
      `INSERT INTO organization_invitations (id, organization_id, email, role, token_hash, invited_by, expires)
       SELECT 'inv' || g, 'org' || g, 'invitee' || g || '@example.net', 'member', encode(sha256(('inv-' || g)::bytea), 'hex'), 'u' || ((g - 1) * ${USERS_PER_ORGANIZATION} + 1), now() + interval '7 days'
       FROM generate_series(1, ($1 + ${USERS_PER_ORGANIZATION} - 1) / ${USERS_PER_ORGANIZATION}, ${ORGANIZATIONS_PER_INVITATION}) AS g`,
      [users],
    );
    // Five sessions per user, stored as authchart stores them (the token's SHA-256), each with the user's
    // organization active.
    await withoutIndexes(c, 'sessions', () =>
      q(
        `INSERT INTO sessions (session_token, user_id, expires, created_at, organization_id)
         SELECT 'sha256:' || encode(sha256(('s-' || i || '-' || k)::bytea), 'hex'), 'u' || i, now() + interval '30 days', now() - k * interval '1 day', ${ORG_OF_I}
         FROM generate_series(1, $1) AS i, generate_series(1, ${SESSIONS_PER_USER}) AS k`,
        [users],
      ),
    );
    // Ten records per user over the last 89 days (inside the 90-day retention: the prune finds nothing to delete),
    // of the kinds a user's own log holds: sign-ins (one failed), sessions ended, a password change, joining the
    // organization (that record also names it, so the organization's log has one per member).
    await withoutIndexes(c, 'activity', () =>
      q(
        `INSERT INTO activity (id, kind, at, user_id, actor_id, organization_id, provider, method, session_hash, ip, user_agent, correlation_id, reason)
         SELECT 'act_' || substr(encode(sha256(('a-' || i || '-' || j)::bytea), 'base64'), 1, 22),
                kinds[j], now() - (random() * 89 * 86400) * interval '1 second', 'u' || i, 'u' || i,
                CASE WHEN kinds[j] = 'organization.memberAdded' THEN ${ORG_OF_I} END,
                CASE WHEN kinds[j] LIKE 'signIn.%' THEN (CASE WHEN j % 3 = 0 THEN 'email' ELSE 'password' END) END,
                CASE WHEN kinds[j] LIKE 'signIn.%' THEN (CASE WHEN j % 3 = 0 THEN 'link' ELSE 'password' END) END,
                CASE WHEN kinds[j] <> 'signIn.failed' THEN encode(sha256(('h-' || i || '-' || j)::bytea), 'base64') END,
                '198.51.' || (i % 256) || '.' || (j * 17 % 256),
                'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/13' || (j % 3) || '.0 Safari/537.36',
                substr(md5('c-' || i || '-' || j), 1, 22),
                CASE WHEN kinds[j] = 'signIn.failed' THEN 'CredentialsSignin' END
         FROM generate_series(1, $1) AS i, generate_series(1, ${ACTIVITY_PER_USER}) AS j,
              (SELECT ARRAY['signIn.succeeded', 'signIn.succeeded', 'signIn.succeeded', 'session.ended', 'signIn.failed',
                            'signIn.succeeded', 'password.changed', 'session.ended', 'signIn.succeeded', 'organization.memberAdded']) AS k(kinds)`,
        [users],
      ),
    );
    // The webhook outbox as one endpoint leaves it: deliveries of the last six days, delivered (kept a week).
    await withoutIndexes(c, 'webhook_outbox', () =>
      q(
        `INSERT INTO webhook_outbox (record_id, endpoint_id, payload, status, attempts, next_attempt_at, created_at, delivered_at)
         SELECT 'act_' || substr(encode(sha256(('a-' || i || '-1')::bytea), 'base64'), 1, 22), 'crm',
                jsonb_build_object('type', 'signIn.succeeded', 'data', jsonb_build_object('userId', 'u' || i)), 'delivered', 1, t, t, t + interval '1 second'
         FROM generate_series(1, $1, ${USERS_PER_WEBHOOK}) AS i, LATERAL (SELECT now() - (random() * 6 * 86400) * interval '1 second') AS d(t)`,
        [users],
      ),
    );
    await q(
      `INSERT INTO verification_token (identifier, token, expires) SELECT 'u' || i || '@example.com', md5('t' || i), now() + interval '1 day' FROM generate_series(1, $1, 10) AS i`,
      [users],
    );
    await q(`INSERT INTO sessions_valid_after (user_id, valid_after, keep_until) SELECT 'u' || i, now(), now() + interval '30 days' FROM generate_series(1, $1, 10) AS i`, [users]);
    // VACUUM, not only ANALYZE: the visibility map set, and no autovacuum of the freshly loaded tables (PostgreSQL
    // vacuums after many inserts) starting in the middle of the timing.
    await q('VACUUM (ANALYZE)');
  } finally {
    c.release();
  }
}

/** The token of session `k` of user `i`, as the seed stored its hash. */
const sessionToken = (i: number, k: number) => `s-${i}-${k}`;

/** Milliseconds per call of `op(n)` for `ops` calls after `warmup`, as a spread. */
async function timeEach(ops: number, warmup: number, op: (n: number) => Promise<void>): Promise<Spread> {
  return spread(await timeAll(ops, warmup, op));
}

/** Milliseconds of each of `ops` calls of `op(n)` after `warmup` untimed ones. */
async function timeAll(ops: number, warmup: number, op: (n: number) => Promise<void>): Promise<number[]> {
  for (let n = 0; n < warmup; n++) await op(n);
  const times: number[] = [];
  for (let n = 0; n < ops; n++) {
    const t0 = performance.now();
    await op(warmup + n);
    times.push(performance.now() - t0);
  }
  return times;
}

/** The plan of a recorded statement on the seeded data (EXPLAIN only: nothing runs). */
async function explain(pool: pg.Pool, sql: string, values: unknown[]): Promise<string> {
  const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

// The tables that grow with users: a whole-table read of one of them is what this benchmark exists to catch.
const LARGE_TABLES = /Seq Scan on (users|sessions|accounts|passwords|verification_token|sessions_valid_after|activity|organizations|memberships|organization_invitations|webhook_outbox)\b/;

const median = (values: number[]) => spread(values).median;

/** Each figure's median over explained samples (one sample each), and how many samples there were. */
function medians<T extends Record<keyof T, number> & { samples: number }>(rows: readonly T[]): T {
  const keys = Object.keys(rows[0] ?? {}) as (keyof T)[];
  return { ...Object.fromEntries(keys.map((key) => [key, median(rows.map((row) => row[key]))])), samples: rows.length } as T;
}

/**
 * The DELETE of "end a user's other sessions" for `samples` users not yet picked, each explained with ANALYZE,
 * BUFFERS and WAL inside a transaction that is rolled back: where its time goes at this size (pages found in
 * PostgreSQL's cache or read, WAL written, full-page images among it).
 */
async function deleteCost(pool: pg.Pool, users: number, picked: Set<number>, samples: number): Promise<DeleteCost> {
  const rows: DeleteCost[] = [];
  const c = await pool.connect();
  try {
    for (let s = 0; s < samples; s++) {
      let i = randomInt(1, users + 1);
      for (let tries = 0; picked.has(i) && tries < 1000; tries++) i = randomInt(1, users + 1);
      picked.add(i);
      await c.query('BEGIN');
      try {
        const { rows: out } = await c.query<{ 'QUERY PLAN': [{ Plan: Record<string, number>; 'Execution Time': number }] }>(
          `EXPLAIN (ANALYZE, BUFFERS, WAL, FORMAT JSON) DELETE FROM sessions WHERE user_id = $1 AND ($2::text IS NULL OR session_token <> $2) RETURNING session_token`,
          [`u${i}`, storedSessionToken(sessionToken(i, 1))],
        );
        const [top] = out[0]!['QUERY PLAN'];
        const p = top.Plan;
        rows.push({ ms: top['Execution Time'], sharedHit: p['Shared Hit Blocks'] ?? 0, sharedRead: p['Shared Read Blocks'] ?? 0, walRecords: p['WAL Records'] ?? 0, walFpi: p['WAL FPI'] ?? 0, walBytes: p['WAL Bytes'] ?? 0, samples: 1 });
      } finally {
        await c.query('ROLLBACK');
      }
    }
  } finally {
    c.release();
  }
  return medians(rows);
}

/**
 * The database session check's statement (as the path sent it) for random users' first session, explained with
 * ANALYZE and BUFFERS, the sizes taking turns sample by sample (as in the timing, so each size's pages compete for
 * the same buffers): how many pages each check found in PostgreSQL's shared buffers and how many it read from outside
 * them (the operating system's page cache, here). Medians per size.
 */
async function checkCosts(runs: SizeRun[], samples: number): Promise<ReadCost[]> {
  const statements = runs.map((run) => {
    const statement = [...(run.statements.get('database session check') ?? [])].find(([sql]) => /^\s*SELECT/i.test(sql));
    if (!statement) throw new Error('The database session check sent no statement to explain.');
    return statement;
  });
  const rows: ReadCost[][] = runs.map(() => []);
  for (let s = 0; s < samples; s++) {
    for (const [r, run] of runs.entries()) {
      const [sql, recorded] = statements[r]!;
      const token = storedSessionToken(sessionToken(randomInt(1, run.users + 1), 1));
      const values = recorded.map((v) => (typeof v === 'string' && isStoredSessionToken(v) ? token : v));
      const { rows: out } = await run.pool.query<{ 'QUERY PLAN': [{ Plan: Record<string, number>; 'Execution Time': number }] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, values);
      const [top] = out[0]!['QUERY PLAN'];
      rows[r]!.push({ ms: top['Execution Time'], sharedHit: top.Plan['Shared Hit Blocks'] ?? 0, sharedRead: top.Plan['Shared Read Blocks'] ?? 0, samples: 1 });
    }
  }
  return rows.map(medians);
}

/** The relations a session check reads. */
const CHECK_RELATIONS = ['sessions', 'sessions_pkey', 'users', 'users_pkey'];

async function relationSizes(pool: pg.Pool): Promise<RelationSize[]> {
  const { rows } = await pool.query<{ name: string; bytes: string }>('SELECT c.relname AS name, pg_relation_size(c.oid) AS bytes FROM pg_class c WHERE c.relname = ANY($1) AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())', [CHECK_RELATIONS]);
  return CHECK_RELATIONS.map((name) => ({ name, bytes: Number(rows.find((r) => r.name === name)?.bytes ?? 0) }));
}

/** One seeded size: its schema and pool, the apps over it, and each path's operation. */
interface SizeRun {
  users: number;
  schema: string;
  pool: pg.Pool;
  adapter: ReturnType<typeof adapters.PostgresAdapter>;
  rec: ReturnType<typeof recording>;
  op: Record<ScalePath, (n: number) => Promise<void>>;
  /** Users whose other sessions were ended (each user once). */
  ended: Set<number>;
  times: Record<ScalePath, number[]>;
  statements: Map<ScalePath, Map<string, unknown[]>>;
  someone(): number;
}

/** The apps and the paths' operations over one seeded size. */
function sizeRun(users: number, schema: string, pool: pg.Pool): SizeRun {
  const rec = recording(pool);
  const adapter = adapters.PostgresAdapter(rec.db);
  const mails: string[] = [];
  // The application as it runs with the activity log on (each sign-in writes its records with its session row),
  // and the same with organizations (the active one's membership read on every session check, with the session row).
  const plain = {
    secret: BENCH_SECRET,
    trustHost: true,
    logger: quiet,
    adapter,
    session: { strategy: 'database' as const, control: true },
    throttle: { enabled: false },
    activity: { retention: { days: RETENTION_DAYS } },
    providers: [root.Password({ hasher: HASHER }), providers.Email({ confirm: false, sendVerificationRequest: async ({ url }) => void mails.push(url) })],
  };
  const config = { ...plain, organizations: {} };
  const withoutOrganizations = root.createAuth(plain);
  const auth = root.createAuth(config);
  const handle: Handle = (r) => auth.handle(r);
  const someone = () => randomInt(1, users + 1);
  const cookie = (i: number) => ({ cookie: `authchart.session-token=${sessionToken(i, 1)}` });
  const ended = new Set<number>();
  const counter = adapters.PostgresThrottleStore(rec.db).counter('scale', { points: 1e9, duration: 3600 });
  const op: SizeRun['op'] = {
    'database session check': async () => {
      const res = await withoutOrganizations.handle(new Request(`${ORIGIN}/auth/session`, { headers: cookie(someone()) }));
      const body = (await res.json()) as { user?: { email?: string } } | null;
      if (!body?.user?.email) throw new Error('the session check read no session');
    },
    // What an app calls on every request of an organization's pages and APIs: the session and the active
    // organization's membership, read afresh in one statement (PostgresAdapter joins it to the session row).
    'org-gated session check (requireOrganization)': async () => {
      const i = someone();
      const access = await root.requireOrganization(new Request(`${ORIGIN}/api/organization`, { headers: cookie(i) }), config);
      if (access.organization.organizationId !== organizationOf(i)) throw new Error(`the gate found another organization: ${JSON.stringify(access)}`);
    },
    'password sign-in': async () => {
      const client = createClient({ fetch: handle, baseUrl: ORIGIN });
      const { csrfToken } = (await (await client.get('/auth/csrf')).json()) as { csrfToken: string };
      const res = await client.post('/auth/callback/password', { csrfToken, email: `u${someone()}@example.com`, password: PASSWORD, callbackUrl: `${ORIGIN}/` });
      if (res.status !== 302 || !client.cookies.get('authchart.session-token')) throw new Error(`password sign-in answered ${res.status}`);
    },
    'list a user’s sessions': async () => {
      // A user whose other sessions are still there (the rounds interleave this path with the one ending them).
      let i = someone();
      while (ended.has(i)) i = someone();
      const list = await adapter.listSessions!(`u${i}`);
      if (list.length < SESSIONS_PER_USER) throw new Error('listed fewer sessions than seeded');
    },
    // Each user once: their other sessions (all but the first) end; a user picked twice would end nothing.
    'end a user’s other sessions': async () => {
      let i = someone();
      while (ended.has(i)) i = someone();
      ended.add(i);
      const n = await adapter.deleteSessions!(`u${i}`, { except: storedSessionToken(sessionToken(i, 1)) });
      if (n < SESSIONS_PER_USER - 1) throw new Error(`ended ${n} sessions, expected ${SESSIONS_PER_USER - 1}`);
    },
    'link sign-in (request + callback)': async () => {
      const client = createClient({ fetch: handle, baseUrl: ORIGIN });
      const { csrfToken } = (await (await client.get('/auth/csrf')).json()) as { csrfToken: string };
      await client.post('/auth/signin/email', { csrfToken, email: `u${someone()}@example.com`, callbackUrl: `${ORIGIN}/` });
      const url = mails.pop();
      if (!url) throw new Error('no link was sent');
      const res = await client.get(url.slice(ORIGIN.length));
      if (res.status !== 302 || !client.cookies.get('authchart.session-token')) throw new Error(`the link answered ${res.status}`);
    },
    // The app's own route over `listActivity` (the signed-in user's records, newest first), as its docs show it.
    'list a user’s activity (first page)': async () => {
      const page = await root.listActivity(new Request(`${ORIGIN}/api/activity`, { headers: cookie(someone()) }), config);
      if (page.records.length < ACTIVITY_PER_USER) throw new Error(`listed ${page.records.length} activity records, expected ${ACTIVITY_PER_USER} or more`);
    },
    'list an organization’s members': async () => {
      const res = await handle(new Request(`${ORIGIN}/auth/organizations/members`, { headers: cookie(someone()) }));
      const body = (await res.json()) as { members?: unknown[] };
      if (res.status !== 200 || !body.members?.length) throw new Error(`the members list answered ${res.status}: ${JSON.stringify(body)} (logged: ${loggedErrors()})`);
    },
    'throttle on PostgreSQL (one consume)': async () => void (await counter.consume(`u${someone()}`)),
    // As authchart's sweep runs it: the configured retention for the activity log.
    'prune job (nothing expired)': async () => void (await adapter.prune({ activityBefore: new Date(Date.now() - RETENTION_DAYS * DAY_MS) })),
  };
  const empty = <T>(f: () => T) => Object.fromEntries(PATHS.map((p) => [p, f()])) as Record<ScalePath, T>;
  return { users, schema, pool, adapter, rec, op, ended, times: empty(() => [] as number[]), statements: new Map(), someone };
}

/** `total` split into `rounds` whole parts (the first ones one larger). */
const share = (total: number, rounds: number, round: number) => Math.floor(total / rounds) + (round < total % rounds ? 1 : 0);

/**
 * Seeds each size in a schema of its own, then times every path at every size in rounds (within a round the sizes
 * alternate operation by operation, so a passing load spike lands on all sizes alike, not on one), and explains the paths'
 * statements at the largest size.
 *
 * @example
 * const result = await benchScale({ databaseUrl, sizes: [1000, 10000], ops: 50, warmup: 5 })
 */
export async function benchScale(options: ScaleOptions): Promise<ScaleResult> {
  const log = options.log ?? (() => {});
  const loadBefore = loadavg()[0];
  const admin = new pg.Pool({ connectionString: options.databaseUrl, max: 1 });
  const rounds = Math.max(1, options.rounds ?? 5);
  const smallest = Math.min(...options.sizes);
  // The warmup of each size's batch in a round: the caches of the other sizes' data were used in between.
  const warmup = Math.max(1, Math.ceil(options.warmup / rounds));
  const opsOf = (path: ScalePath) => {
    const n = HEAVY.has(path) ? options.ops : options.ops * CHEAP_FACTOR;
    // A user is ended once: at most half the smallest size, warmups and the delete-cost samples included.
    return path === ONCE_PER_USER ? Math.max(rounds, Math.min(n, Math.floor(smallest / 2) - warmup * rounds - 50)) : n;
  };
  const ops = Object.fromEntries(PATHS.map((p) => [p, opsOf(p)])) as Record<ScalePath, number>;
  const seedSeconds: number[] = [];
  let explained: ExplainedStatement[] = [];
  let expiresIndex: ScaleResult['expiresIndex'] | undefined;
  const deleteCosts: DeleteCost[] = [];
  let checkCost: ReadCost[] = [];
  const relations: RelationSize[][] = [];
  const hash = await HASHER.hash(PASSWORD);
  const sharedBuffers = (await admin.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0].shared_buffers;
  const postgres = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
  const runs: SizeRun[] = [];
  try {
    for (const users of options.sizes) {
      const schema = `authchart_scale_${process.pid}_${users}`;
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.query(`CREATE SCHEMA ${schema}`);
      const pool = new pg.Pool({ connectionString: options.databaseUrl, options: `-c search_path=${schema}`, max: 4 });
      runs.push(sizeRun(users, schema, pool));
      await adapters.migrate(pool);
      const t0 = performance.now();
      await seed(pool, users, hash);
      seedSeconds.push((performance.now() - t0) / 1000);
      log(`  ${users.toLocaleString('en-US')} users seeded in ${seedSeconds.at(-1)!.toFixed(1)} s`);
    }
    // The seeds' dirty pages written out now, not by a checkpoint in the middle of the timing.
    await admin.query('CHECKPOINT');

    // Every path's operations alternate between the sizes one by one (the first size rotating), so whatever else the
    // machine does at a moment falls on every size alike: the growth compares sizes, not moments. (Until 2026-11-29
    // each size ran its batch in turn, and one busy moment on one size's batch could move a growth by a fifth.)
    for (let round = 0; round < rounds; round++) {
      for (const path of PATHS) {
        for (const run of runs) run.rec.take();
        for (const run of runs) for (let n = 0; n < warmup; n++) await run.op[path](n);
        const count = share(ops[path], rounds, round);
        for (let n = 0; n < count; n++) {
          for (let s = 0; s < runs.length; s++) {
            const run = runs[(s + n + round) % runs.length]!;
            const t0 = performance.now();
            await run.op[path](warmup + n);
            run.times[path].push(performance.now() - t0);
          }
        }
        for (const run of runs) {
          const seen = run.statements.get(path) ?? new Map<string, unknown[]>();
          for (const [sql, values] of run.rec.take()) seen.set(sql, values);
          run.statements.set(path, seen);
        }
      }
      log(`  round ${round + 1} of ${rounds} timed`);
    }
    for (const run of runs) deleteCosts.push(await deleteCost(run.pool, run.users, run.ended, Math.min(50, Math.floor(run.users / 10))));
    checkCost = await checkCosts(runs, 50);
    for (const run of runs) relations.push(await relationSizes(run.pool));

    const last = runs.at(-1)!;
    const { pool, adapter, someone } = last;
    // The index's price: a refresh moves `expires`, an indexed column, so it is no longer a HOT update. (Of a user
    // whose second session is still there.)
    const refresh = () => timeEach(options.ops, options.warmup, async () => {
      let i = someone();
      while (last.ended.has(i)) i = someone();
      await adapter.updateSession({ sessionToken: storedSessionToken(sessionToken(i, 2)), expires: new Date(Date.now() + 30 * DAY_MS + randomInt(1, 1e6)) });
    });
    const pruneOnce = () => timeEach(Math.min(options.ops, 20), 2, last.op['prune job (nothing expired)']);
    const withIndex = { refresh: await refresh(), prune: await pruneOnce() };
    await pool.query('DROP INDEX sessions_expires_idx');
    const withoutIndex = { refresh: await refresh(), prune: await pruneOnce() };
    await pool.query('CREATE INDEX sessions_expires_idx ON sessions (expires)');
    expiresIndex = { refresh: { with: withIndex.refresh, without: withoutIndex.refresh }, prune: { with: withIndex.prune, without: withoutIndex.prune } };
    explained = [];
    for (const path of PATHS) {
      for (const [sql, values] of last.statements.get(path) ?? []) {
        if (/^\s*(BEGIN|COMMIT|ROLLBACK|SELECT 1\b)/i.test(sql)) continue;
        const plan = await explain(pool, sql, values);
        explained.push({ path, sql: sql.replace(/\s+/g, ' ').trim(), seqScan: LARGE_TABLES.test(plan), plan: plan.split('\n').slice(0, 4).join(' | ') });
      }
    }
  } finally {
    for (const run of runs) {
      await run.pool.end();
      await admin.query(`DROP SCHEMA IF EXISTS ${run.schema} CASCADE`);
    }
    await admin.end();
  }
  const paths = Object.fromEntries(PATHS.map((p) => [p, runs.map((run) => spread(run.times[p]))])) as Record<ScalePath, Spread[]>;
  const cpu = cpus();
  return {
    sizes: options.sizes,
    paths,
    ops,
    rounds,
    seedSeconds,
    explained,
    deleteCost: deleteCosts,
    checkCost,
    relations,
    sharedBuffers,
    expiresIndex: expiresIndex!,
    machine: {
      date: new Date().toISOString(),
      node: process.version,
      postgres,
      os: `${type()} ${release()} ${process.arch}`,
      cpu: cpu[0]?.model.trim() ?? 'unknown',
      cores: cpu.length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      load: [loadBefore, loadavg()[0]],
    },
  };
}

const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

/** The growth of a path: its median at the largest size over its median at the smallest. */
export function growth(spreads: Spread[]): number {
  return spreads.at(-1)!.median / spreads[0]!.median;
}

/** bench/SCALE.md from a run. */
export function renderScale(r: ScaleResult): string {
  const size = (n: number) => n.toLocaleString('en-US');
  const m = r.machine;
  const lines = [
    '# Scale: request paths against the size of the data',
    '',
    `Written by \`npm run bench:scale\` on ${m.date.slice(0, 10)}: Node ${m.node}, PostgreSQL ${m.postgres} on the same machine, ${m.os}, ${m.cpu} × ${m.cores}, ${m.memoryGiB} GiB; load average ${m.load[0].toFixed(2)} at the start, ${m.load[1].toFixed(2)} at the end.`,
    '',
    `Load per size: N users, each with ${SESSIONS_PER_USER} live sessions (the user's organization active in each), an OIDC account, a password hash and ${ACTIVITY_PER_USER} activity records over the last 89 days (sign-ins, one of them failed, sessions ended, a password change, joining the organization); one organization per ${USERS_PER_ORGANIZATION} users (the first its owner, the others members), a pending invitation for every ${ORGANIZATIONS_PER_INVITATION}th organization, a link token and a "valid after" row for every tenth user, a delivered webhook (kept a week) for every ${USERS_PER_WEBHOOK === 2 ? 'second' : `${USERS_PER_WEBHOOK}th`} user. At ${size(r.sizes.at(-1)!)} users: ${size(r.sizes.at(-1)! * SESSIONS_PER_USER)} sessions, ${size(r.sizes.at(-1)! * ACTIVITY_PER_USER)} activity records, ${size(Math.ceil(r.sizes.at(-1)! / USERS_PER_ORGANIZATION))} organizations. Seeded set-based inside PostgreSQL (\`INSERT … SELECT generate_series\`, nothing row by row; the sessions', activity's and outbox's indexes built after their rows, then \`VACUUM (ANALYZE)\`) in ${r.seedSeconds.map((s, i) => `${s.toFixed(1)} s (${size(r.sizes[i]!)})`).join(', ')}.`,
    '',
    `The application runs as one with the activity log on (${RETENTION_DAYS} days' retention: each sign-in writes its records with its session row) and organizations (the gate checks the active organization's membership on every call, read with the session row in one statement); the "database session check" row is \`GET /auth/session\` of the same application without organizations. Each path runs against random users, one operation at a time, in process (the built package's \`createAuth(config).handle\`, a pg pool of 4 per size; the activity list is the app's route over \`listActivity\`). All sizes stay seeded side by side and are timed in ${r.rounds} rounds; within a round each path's operations alternate between the sizes one at a time (the first size rotating), so a passing load spike falls on every size alike; per path and size ${[...new Set(Object.values(r.ops))].sort((a, b) => a - b).map((n) => `${n}`).join(' or ')} timed operations (${r.ops['password sign-in']} for the two sign-ins, ${r.ops['end a user’s other sessions']} for ending sessions, a user's sessions being ended once). The password hash is a cheap argon2id (64 KiB, one pass) so that what is timed is the database and the flow; the hash at OWASP's parameters is section 9 of RESULTS.md.`,
    '',
    `| path | ${r.sizes.map((n) => `${size(n)} users, ms (min / **median** / max)`).join(' | ')} | growth, ${size(r.sizes[0]!)} → ${size(r.sizes.at(-1)!)} |`,
    `|---|${r.sizes.map(() => '---|').join('')}---|`,
  ];
  for (const path of PATHS) {
    const s = r.paths[path];
    lines.push(`| ${path} | ${s.map((x) => `${ms(x.min)} / **${ms(x.median)}** / ${ms(x.max)}`).join(' | ')} | ${growth(s).toFixed(2)}× |`);
  }
  const over = PATHS.filter((p) => growth(r.paths[p]) > 1.2);
  lines.push('', over.length ? `Paths that grew more than 1.2×: ${over.join(', ')}.` : 'Every path stays within 1.2× of its cost at the smallest size.', '');
  const x = r.expiresIndex;
  const cell = (s: Spread) => `${ms(s.min)} / **${ms(s.median)}** / ${ms(s.max)}`;
  lines.push(
    `## The index on sessions.expires, weighed at ${size(r.sizes.at(-1)!)} users`,
    '',
    'The prune job deletes expired sessions by `expires`. With an index there, a session refresh that moves `expires` is no longer a HOT update (the index is written too); without it, every prune reads the whole table. A refresh happens at most once per `updateAge` (a day by default) per session; the prune runs every 10 minutes in each instance.',
    '',
    '| operation, ms | with the index | without it |',
    '|---|---|---|',
    `| session refresh (\`updateSession\` moving \`expires\`) | ${cell(x.refresh.with)} | ${cell(x.refresh.without)} |`,
    `| prune job (nothing expired) | ${cell(x.prune.with)} | ${cell(x.prune.without)} |`,
    '',
    `Kept (schema version 12): the prune saves ${ms(x.prune.without.median - x.prune.with.median)} ms per run and instance; ${x.refresh.with.median > x.refresh.without.median ? `a refresh costs ${ms(x.refresh.with.median - x.refresh.without.median)} ms more at the median` : 'a refresh measured no slower at the median (the difference is below the noise)'}, once a day per active session.`,
    '',
  );
  lines.push(
    '## Where ending a user\'s other sessions spends its time',
    '',
    `Its DELETE for ${r.deleteCost[0]?.samples ?? 0} users per size not yet picked, after the timing, each under \`EXPLAIN (ANALYZE, BUFFERS, WAL)\` in a transaction rolled back (medians). The plan reads sessions_user_id_idx at every size and touches the same few pages; what changes with the size is how many of them come from outside PostgreSQL's cache (\`shared read\`) and how many are changed for the first time since the last checkpoint, so that the WAL carries them whole (full-page images): a user's five sessions lie on five pages, and in a small table most pages were changed already. Neither shows in the execution time: a read from outside the cache costs a copy from the operating system's page cache, a full-page image a larger WAL flush at the commit.`,
    '',
    `| size | execution, ms | shared hit | shared read | WAL records | WAL full-page images | WAL bytes |`,
    '|---|---|---|---|---|---|---|',
  );
  r.deleteCost.forEach((d, i) => lines.push(`| ${size(r.sizes[i]!)} | ${ms(d.ms)} | ${d.sharedHit} | ${d.sharedRead} | ${d.walRecords} | ${d.walFpi} | ${Math.round(d.walBytes)} |`));
  lines.push('');
  const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(bytes >= 100 * 2 ** 20 ? 0 : 1)} MB`;
  lines.push(
    "## Where the database session check's time goes",
    '',
    `Its statement (the one the path sent: the session row with its user, by the session token's primary key) for ${r.checkCost[0]?.samples ?? 0} random users per size, after the timing, the sizes taking turns sample by sample as in the timing, each under \`EXPLAIN (ANALYZE, BUFFERS)\` (medians). Pages found in PostgreSQL's shared buffers are \`shared hit\`; pages read from outside them (here, the operating system's page cache) are \`shared read\`. PostgreSQL's \`shared_buffers\` on this server: ${r.sharedBuffers}, beside the sizes of what the check reads:`,
    '',
    `| size | execution, ms | shared hit | shared read | ${CHECK_RELATIONS.join(' | ')} |`,
    `|---|---|---|---|${CHECK_RELATIONS.map(() => '---|').join('')}`,
  );
  r.checkCost.forEach((c, i) => lines.push(`| ${size(r.sizes[i]!)} | ${ms(c.ms)} | ${c.sharedHit} | ${c.sharedRead} | ${(r.relations[i] ?? []).map((rel) => mb(rel.bytes)).join(' | ')} |`));
  lines.push('');
  lines.push(`## Plans at ${size(r.sizes.at(-1)!)} users`, '', 'Every statement the paths above sent, explained on the seeded data. "whole table" marks a sequential scan of a table that grows with users.', '');
  lines.push('| path | statement | whole table | plan (first nodes) |', '|---|---|---|---|');
  for (const e of r.explained) lines.push(`| ${e.path} | \`${e.sql.replaceAll('|', '\\|').slice(0, 160)}\` | ${e.seqScan ? '**yes**' : 'no'} | ${e.plan.replaceAll('|', '/').slice(0, 200)} |`);
  lines.push('');
  return lines.join('\n');
}
