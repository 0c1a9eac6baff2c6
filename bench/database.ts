// Benchmark 5: the database session check (`GET /auth/session` with a session-token cookie) on embedded PGlite and
// on a PostgreSQL server: SQL statements per check and checks/s. Auth.js with its own @auth/pg-adapter runs on the
// server too. Statements are counted at the driver, so nothing is inferred from the adapter's code.
import { randomBytes, randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import AuthjsPgAdapter from '@auth/pg-adapter';
import pg from 'pg';
import { postgres, root } from './built.js';
import { BENCH_USER, NOT_INSTALLED, assertSession, authchartConfig, authjsApp, loadAuthjs, sessionCheck, type Handle } from './contenders.js';
import { interleave, spreadOf, timeLoop, type LoopOptions, type Sample, type Spread } from './measure.js';
// The stored form of the seeded session's token (setup only, not timed): the sources' function, the dist's algorithm.
import { storedSessionToken } from '../src/session/session-token.js';
import { queryView } from './query-view.js';
import { betterAuthCheck, betterAuthSide, loadBetterAuth } from './better-auth.js';

export const DB_SIDES = ['authchart on PGlite', 'authchart on PostgreSQL', 'Auth.js + @auth/pg-adapter on PostgreSQL', 'better-auth on PostgreSQL (no cookie cache)'] as const;
export type DbSide = (typeof DB_SIDES)[number];
const IN_FLIGHT = 10;

export interface DatabaseOptions {
  rounds: number;
  durationMs?: number;
  ops?: number;
  warmup: number;
  /** PostgreSQL server; without one (or when it cannot be reached) those rows say why. */
  databaseUrl?: string;
}

export interface DbFigures {
  /** SQL statements sent to the database per session check (exact: total / checks). */
  queriesPerCheck: number;
  sequential: { checksPerSec: Spread; cpuUsPerCheck: Spread };
  inFlight: { checksPerSec: Spread; cpuUsPerCheck: Spread };
}

export type DatabaseResult = Record<DbSide, DbFigures | { skipped: string }>;

/** `driver` with its statements counted (see query-view.ts). */
function counted<T extends object>(driver: T): { db: T; count: () => number } {
  let n = 0;
  return { db: queryView(driver, () => n++), count: () => n };
}

interface Subject {
  check: () => Promise<string>;
  count: () => number;
}

/** authchart with the database strategy on `driver`, and one live session for the bench user. */
async function authchartSubject(driver: object): Promise<Subject> {
  const { db, count } = counted(driver);
  const adapter = postgres.PostgresAdapter(db as never);
  await adapter.migrate();
  await adapter.createUser({ ...BENCH_USER, emailVerified: null });
  const sessionToken = randomUUID();
  // The table holds the token's SHA-256, as authchart stores it; the cookie carries the token.
  await adapter.createSession({ sessionToken: storedSessionToken(sessionToken), userId: BENCH_USER.id, expires: new Date(Date.now() + 30 * 86_400_000) });
  const auth = root.createAuth(authchartConfig({ adapter, session: { strategy: 'database' }, providers: [] }));
  const handle: Handle = (r) => auth.handle(r);
  const cookie = `authchart.session-token=${sessionToken}`;
  await assertSession(handle, cookie);
  return { check: sessionCheck(handle, cookie), count };
}

// Only the two tables a session check reads, with the names and columns @auth/pg-adapter queries.
const AUTHJS_TABLES = [
  `CREATE TABLE users (id SERIAL PRIMARY KEY, name TEXT, email TEXT, "emailVerified" TIMESTAMPTZ, image TEXT)`,
  `CREATE TABLE sessions (id SERIAL PRIMARY KEY, "userId" INTEGER NOT NULL, expires TIMESTAMPTZ NOT NULL, "sessionToken" TEXT NOT NULL)`,
];

async function authjsSubject(pool: pg.Pool): Promise<Subject | undefined> {
  const authjs = await loadAuthjs();
  if (!authjs) return undefined;
  for (const sql of AUTHJS_TABLES) await pool.query(sql);
  const { rows } = await pool.query<{ id: number }>('INSERT INTO users (name, email) VALUES ($1, $2) RETURNING id', [BENCH_USER.name, BENCH_USER.email]);
  const sessionToken = randomUUID();
  await pool.query('INSERT INTO sessions ("userId", expires, "sessionToken") VALUES ($1, $2, $3)', [rows[0].id, new Date(Date.now() + 30 * 86_400_000), sessionToken]);
  const { db, count } = counted(pool);
  // Auth.js refuses credentials-only configs with database sessions, and remembers in module state that it once saw
  // a credentials provider (the session benchmark's), so an OAuth provider is listed; a session check never calls it.
  const oauth = { id: 'example', name: 'Example', type: 'oidc' as const, issuer: 'https://issuer.example', clientId: 'id', clientSecret: 'secret' };
  const handle = authjsApp(authjs, { adapter: AuthjsPgAdapter(db), session: { strategy: 'database' }, providers: [oauth] });
  const cookie = `authjs.session-token=${sessionToken}`;
  await assertSession(handle, cookie);
  return { check: sessionCheck(handle, cookie), count };
}

/**
 * better-auth with database sessions as its docs set them up (its own migrations, on `pool`), every check read from
 * the database: no cookie cache. Statements are counted from the first check on, not while it migrates and signs in.
 */
async function betterAuthSubject(pool: pg.Pool): Promise<Subject | undefined> {
  const peer = await loadBetterAuth();
  if (!peer) return undefined;
  const { db, count } = counted(pool);
  const side = await betterAuthSide(peer, 'database', db);
  return { check: betterAuthCheck(side.handle, side.cookie), count };
}

/** Times checks and counts the statements they sent. */
async function measureSubject(subject: Subject, rounds: number, loop: LoopOptions): Promise<DbFigures> {
  const before = subject.count();
  const samples = await interleave<Sample>(rounds, {
    seq: () => timeLoop(subject.check, { ...loop, concurrency: 1 }),
    flight: () => timeLoop(subject.check, { ...loop, concurrency: IN_FLIGHT }),
  });
  const checks = [...samples.seq, ...samples.flight].reduce((n, s) => n + s.ops, 0) + 2 * rounds * (loop.warmup ?? 0);
  const figures = (s: Sample[]) => ({ checksPerSec: spreadOf(s, (x) => x.opsPerSec), cpuUsPerCheck: spreadOf(s, (x) => x.cpuUsPerOp) });
  return { queriesPerCheck: (subject.count() - before) / checks, sequential: figures(samples.seq), inFlight: figures(samples.flight) };
}

/**
 * Measures the database session check on PGlite and, given `databaseUrl`, on PostgreSQL (authchart and Auth.js,
 * each in a schema of its own that is dropped afterwards).
 *
 * @example
 * const result = await benchDatabase({ rounds: 3, durationMs: 1000, warmup: 50, databaseUrl: process.env.DATABASE_URL })
 */
export async function benchDatabase(options: DatabaseOptions): Promise<DatabaseResult> {
  const loop: LoopOptions = { ops: options.ops, durationMs: options.durationMs, warmup: options.warmup };
  const result = {} as DatabaseResult;

  const lite = await PGlite.create();
  try {
    result['authchart on PGlite'] = await measureSubject(await authchartSubject(lite), options.rounds, loop);
  } finally {
    await lite.close();
  }

  const unavailable = (why: string) => {
    result['authchart on PostgreSQL'] = { skipped: why };
    result['Auth.js + @auth/pg-adapter on PostgreSQL'] = { skipped: why };
    result['better-auth on PostgreSQL (no cookie cache)'] = { skipped: why };
    return result;
  };
  if (!options.databaseUrl) return unavailable('no DATABASE_URL');
  const admin = new pg.Pool({ connectionString: options.databaseUrl, max: 1 });
  admin.on('error', () => {});
  const schemas: string[] = [];
  const pools: pg.Pool[] = [];
  const poolInNewSchema = async (): Promise<pg.Pool> => {
    const schema = `authchart_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE SCHEMA ${schema}`);
    schemas.push(schema);
    const pool = new pg.Pool({ connectionString: options.databaseUrl, options: `-c search_path=${schema}`, max: IN_FLIGHT });
    pools.push(pool);
    return pool;
  };
  try {
    try {
      await admin.query('SELECT 1');
    } catch (err) {
      return unavailable(`PostgreSQL unreachable (${(err as Error).message})`);
    }
    result['authchart on PostgreSQL'] = await measureSubject(await authchartSubject(await poolInNewSchema()), options.rounds, loop);
    const authjs = await authjsSubject(await poolInNewSchema());
    result['Auth.js + @auth/pg-adapter on PostgreSQL'] = authjs ? await measureSubject(authjs, options.rounds, loop) : { skipped: NOT_INSTALLED };
    const betterAuth = await betterAuthSubject(await poolInNewSchema());
    result['better-auth on PostgreSQL (no cookie cache)'] = betterAuth ? await measureSubject(betterAuth, options.rounds, loop) : { skipped: NOT_INSTALLED };
    return result;
  } finally {
    await Promise.all(pools.map((p) => p.end()));
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    await admin.end();
  }
}
