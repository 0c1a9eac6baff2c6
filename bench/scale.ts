// `npm run bench:scale`: how the cost of the request paths grows with the data. PostgreSQL is seeded at each size
// (users, five sessions each, an account, a password, link tokens and "valid after" rows), then each path is timed
// against random users, and every statement those paths sent is explained at the largest size: a missing index
// shows up only there. Writes bench/SCALE.md.
//   npm run bench:scale                         10k, 100k and 1M users
//   npm run bench:scale -- --sizes 1000,10000   other sizes (nothing written unless they are the default ones)
import { randomInt } from 'node:crypto';
import { cpus, loadavg, release, totalmem, type } from 'node:os';
import pg from 'pg';
import { postgres as adapters, providers, root } from './built.js';
// The stored form of a seeded session's token (setup only): the sources' function, the dist's algorithm.
import { storedSessionToken } from '../src/session/session-token.js';
import { createClient } from '../test/support/client.js';
import { BENCH_SECRET, ORIGIN, quiet, type Handle } from './contenders.js';
import { spread, type Spread } from './measure.js';
import { queryView } from './query-view.js';

export const DEFAULT_SIZES = [10_000, 100_000, 1_000_000];
const SESSIONS_PER_USER = 5;
const PASSWORD = 'scale-bench-password';
// A cheap argon2id, so a sign-in's time is the database's and the flow's, not the hash's (section 9 of RESULTS.md
// measures the hash at OWASP's parameters).
const HASHER = root.argon2id({ memoryCost: 64, timeCost: 1, parallelism: 1 });

export const PATHS = ['database session check', 'password sign-in', 'list a user’s sessions', 'end a user’s other sessions', 'link sign-in (request + callback)', 'throttle on PostgreSQL (one consume)', 'prune job (nothing expired)'] as const;
export type ScalePath = (typeof PATHS)[number];

export interface ScaleOptions {
  databaseUrl: string;
  sizes: number[];
  /** Timed operations per path and size (after `warmup`). */
  ops: number;
  warmup: number;
  log?: (line: string) => void;
}

/** One explained statement: its text, whether its plan reads a whole table, and the plan's first lines. */
export interface ExplainedStatement {
  path: ScalePath;
  sql: string;
  seqScan: boolean;
  plan: string;
}

export interface ScaleResult {
  sizes: number[];
  /** Per path, per size: milliseconds per operation (min / median / max over the timed operations). */
  paths: Record<ScalePath, Spread[]>;
  seedSeconds: number[];
  explained: ExplainedStatement[];
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

/** Seeds `users` users set-based inside PostgreSQL (INSERT … SELECT generate_series: no row crosses the wire). */
async function seed(pool: pg.Pool, users: number, hash: string): Promise<void> {
  const q = (sql: string, params: unknown[] = []) => pool.query(sql, params);
  await q(`INSERT INTO users (id, name, email, email_verified) SELECT 'u' || i, 'User ' || i, 'u' || i || '@example.com', now() FROM generate_series(1, $1) AS i`, [users]);
  await q(`INSERT INTO passwords (user_id, hash) SELECT 'u' || i, $2 FROM generate_series(1, $1) AS i`, [users, hash]);
  await q(
    `INSERT INTO accounts (user_id, type, provider, provider_account_id) SELECT 'u' || i, 'oidc', 'example', 'sub-' || i FROM generate_series(1, $1) AS i`,
    [users],
  );
  // Five sessions per user, stored as authchart stores them (the token's SHA-256), a few already past expiry.
  await q(
    `INSERT INTO sessions (session_token, user_id, expires)
     SELECT 'sha256:' || encode(sha256(('s-' || i || '-' || k)::bytea), 'hex'), 'u' || i, now() + interval '30 days'
     FROM generate_series(1, $1) AS i, generate_series(1, ${SESSIONS_PER_USER}) AS k`,
    [users],
  );
  await q(
    `INSERT INTO verification_token (identifier, token, expires) SELECT 'u' || i || '@example.com', md5('t' || i), now() + interval '1 day' FROM generate_series(1, $1, 10) AS i`,
    [users],
  );
  await q(`INSERT INTO sessions_valid_after (user_id, valid_after, keep_until) SELECT 'u' || i, now(), now() + interval '30 days' FROM generate_series(1, $1, 10) AS i`, [users]);
  await q('ANALYZE');
}

/** The token of session `k` of user `i`, as the seed stored its hash. */
const sessionToken = (i: number, k: number) => `s-${i}-${k}`;

/** Milliseconds per call of `op(n)` for `ops` calls after `warmup`, as a spread. */
async function timeEach(ops: number, warmup: number, op: (n: number) => Promise<void>): Promise<Spread> {
  for (let n = 0; n < warmup; n++) await op(n);
  const times: number[] = [];
  for (let n = 0; n < ops; n++) {
    const t0 = performance.now();
    await op(warmup + n);
    times.push(performance.now() - t0);
  }
  return spread(times);
}

/** The plan of a recorded statement on the seeded data (EXPLAIN only: nothing runs). */
async function explain(pool: pg.Pool, sql: string, values: unknown[]): Promise<string> {
  const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

// The tables that grow with users: a whole-table read of one of them is what this benchmark exists to catch.
const LARGE_TABLES = /Seq Scan on (users|sessions|accounts|passwords|verification_token|sessions_valid_after)\b/;

/**
 * Seeds each size in a fresh schema, times every path against random users, and explains the paths' statements at
 * the largest size.
 *
 * @example
 * const result = await benchScale({ databaseUrl, sizes: [1000, 10000], ops: 50, warmup: 5 })
 */
export async function benchScale(options: ScaleOptions): Promise<ScaleResult> {
  const log = options.log ?? (() => {});
  const loadBefore = loadavg()[0];
  const admin = new pg.Pool({ connectionString: options.databaseUrl, max: 1 });
  const paths = Object.fromEntries(PATHS.map((p) => [p, [] as Spread[]])) as Record<ScalePath, Spread[]>;
  const seedSeconds: number[] = [];
  let explained: ExplainedStatement[] = [];
  let expiresIndex: ScaleResult['expiresIndex'] | undefined;
  const hash = await HASHER.hash(PASSWORD);
  const postgres = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
  try {
    for (const [index, users] of options.sizes.entries()) {
      const schema = `authchart_scale_${process.pid}_${users}`;
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.query(`CREATE SCHEMA ${schema}`);
      const pool = new pg.Pool({ connectionString: options.databaseUrl, options: `-c search_path=${schema}`, max: 4 });
      try {
        await adapters.migrate(pool);
        const t0 = performance.now();
        await seed(pool, users, hash);
        seedSeconds.push((performance.now() - t0) / 1000);
        log(`  ${users.toLocaleString('en-US')} users seeded in ${seedSeconds.at(-1)!.toFixed(1)} s`);
        const rec = recording(pool);
        const adapter = adapters.PostgresAdapter(rec.db);
        const mails: string[] = [];
        const config = {
          secret: BENCH_SECRET,
          trustHost: true,
          logger: quiet,
          adapter,
          session: { strategy: 'database' as const, control: true },
          throttle: { enabled: false },
          providers: [root.Password({ hasher: HASHER }), providers.Email({ confirm: false, sendVerificationRequest: async ({ url }) => void mails.push(url) })],
        };
        const auth = root.createAuth(config);
        const handle: Handle = (r) => auth.handle(r);
        const someone = () => randomInt(1, users + 1);
        const statements = new Map<ScalePath, Map<string, unknown[]>>();
        const timed = async (path: ScalePath, op: (n: number) => Promise<void>) => {
          rec.take();
          paths[path].push(await timeEach(options.ops, options.warmup, op));
          statements.set(path, rec.take());
        };

        await timed('database session check', async () => {
          const res = await handle(new Request(`${ORIGIN}/auth/session`, { headers: { cookie: `authchart.session-token=${sessionToken(someone(), 1)}` } }));
          const body = (await res.json()) as { user?: { email?: string } } | null;
          if (!body?.user?.email) throw new Error('the session check read no session');
        });
        await timed('password sign-in', async () => {
          const client = createClient({ fetch: handle, baseUrl: ORIGIN });
          const { csrfToken } = (await (await client.get('/auth/csrf')).json()) as { csrfToken: string };
          const res = await client.post('/auth/callback/password', { csrfToken, email: `u${someone()}@example.com`, password: PASSWORD, callbackUrl: `${ORIGIN}/` });
          if (res.status !== 302 || !client.cookies.get('authchart.session-token')) throw new Error(`password sign-in answered ${res.status}`);
        });
        await timed('list a user’s sessions', async () => {
          const list = await adapter.listSessions!(`u${someone()}`);
          if (list.length < SESSIONS_PER_USER) throw new Error('listed fewer sessions than seeded');
        });
        // Each user once: their other sessions (all but the first) end; a user picked twice would end nothing.
        const ended = new Set<number>();
        await timed('end a user’s other sessions', async () => {
          let i = someone();
          while (ended.has(i)) i = someone();
          ended.add(i);
          const n = await adapter.deleteSessions!(`u${i}`, { except: storedSessionToken(sessionToken(i, 1)) });
          if (n < SESSIONS_PER_USER - 1) throw new Error(`ended ${n} sessions, expected ${SESSIONS_PER_USER - 1}`);
        });
        await timed('link sign-in (request + callback)', async () => {
          const client = createClient({ fetch: handle, baseUrl: ORIGIN });
          const { csrfToken } = (await (await client.get('/auth/csrf')).json()) as { csrfToken: string };
          await client.post('/auth/signin/email', { csrfToken, email: `u${someone()}@example.com`, callbackUrl: `${ORIGIN}/` });
          const url = mails.pop();
          if (!url) throw new Error('no link was sent');
          const res = await client.get(url.slice(ORIGIN.length));
          if (res.status !== 302 || !client.cookies.get('authchart.session-token')) throw new Error(`the link answered ${res.status}`);
        });
        const counter = adapters.PostgresThrottleStore(rec.db).counter('scale', { points: 1e9, duration: 3600 });
        await timed('throttle on PostgreSQL (one consume)', async () => void (await counter.consume(`u${someone()}`)));
        await timed('prune job (nothing expired)', async () => void (await adapters.prune(rec.db)));

        if (index === options.sizes.length - 1) {
          // The index's price: a refresh moves `expires`, an indexed column, so it is no longer a HOT update.
          const refresh = () => timeEach(options.ops, options.warmup, async () => {
            const i = someone();
            await adapter.updateSession({ sessionToken: storedSessionToken(sessionToken(i, 2)), expires: new Date(Date.now() + 30 * 86_400_000 + randomInt(1, 1e6)) });
          });
          const pruneOnce = () => timeEach(Math.min(options.ops, 20), 2, async () => void (await adapters.prune(pool)));
          const withIndex = { refresh: await refresh(), prune: await pruneOnce() };
          await pool.query('DROP INDEX sessions_expires_idx');
          const withoutIndex = { refresh: await refresh(), prune: await pruneOnce() };
          await pool.query('CREATE INDEX sessions_expires_idx ON sessions (expires)');
          expiresIndex = { refresh: { with: withIndex.refresh, without: withoutIndex.refresh }, prune: { with: withIndex.prune, without: withoutIndex.prune } };
          explained = [];
          for (const [path, seen] of statements) {
            for (const [sql, values] of seen) {
              if (/^\s*(BEGIN|COMMIT|ROLLBACK|SELECT 1\b)/i.test(sql)) continue;
              const plan = await explain(pool, sql, values);
              explained.push({ path, sql: sql.replace(/\s+/g, ' ').trim(), seqScan: LARGE_TABLES.test(plan), plan: plan.split('\n').slice(0, 4).join(' | ') });
            }
          }
        }
      } finally {
        await pool.end();
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      }
    }
  } finally {
    await admin.end();
  }
  const cpu = cpus();
  return {
    sizes: options.sizes,
    paths,
    seedSeconds,
    explained,
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
    `Load per size: N users, each with ${SESSIONS_PER_USER} live sessions, an OIDC account and a password hash; a link token and a "valid after" row for every tenth user. Seeded set-based inside PostgreSQL (\`INSERT … SELECT generate_series\`, nothing row by row) in ${r.seedSeconds.map((s, i) => `${s.toFixed(1)} s (${size(r.sizes[i]!)})`).join(', ')}. Each path runs against random users, one operation at a time, in process (the built package's \`createAuth(config).handle\`, a pg pool of 4). The password hash is a cheap argon2id (64 KiB, one pass) so that what is timed is the database and the flow; the hash at OWASP's parameters is section 9 of RESULTS.md. The activity log (ten records per user) and organizations are not seeded: they do not exist yet.`,
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
  lines.push(`## Plans at ${size(r.sizes.at(-1)!)} users`, '', 'Every statement the paths above sent, explained on the seeded data. "whole table" marks a sequential scan of a table that grows with users.', '');
  lines.push('| path | statement | whole table | plan (first nodes) |', '|---|---|---|---|');
  for (const e of r.explained) lines.push(`| ${e.path} | \`${e.sql.replaceAll('|', '\\|').slice(0, 160)}\` | ${e.seqScan ? '**yes**' : 'no'} | ${e.plan.replaceAll('|', '/').slice(0, 200)} |`);
  lines.push('');
  return lines.join('\n');
}
