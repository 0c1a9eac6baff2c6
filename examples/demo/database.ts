// The demo's database: embedded PGlite under .data/ (nothing to install), or PostgreSQL when DATABASE_URL is
// set; authchart's PostgresAdapter on it, and two read-only queries for the home page.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { PostgresAdapter, pgTimeouts, toQueryable, type PostgresAdapterInstance, type Queryable } from '../../src/adapters/postgres/index.js';

/** A provider account linked to the signed-in user. */
export interface LinkedAccount {
  provider: string;
  providerAccountId: string;
  type: string;
}

/** A live session of the signed-in user; the token itself is never shown, only a short fingerprint. */
export interface ActiveSession {
  fingerprint: string;
  expires: Date;
  current: boolean;
}

export interface DemoDatabase {
  adapter: PostgresAdapterInstance;
  /** Where the data lives, for the home page. */
  where: string;
  linkedAccounts(userId: string): Promise<LinkedAccount[]>;
  activeSessions(userId: string, currentToken?: string): Promise<ActiveSession[]>;
  close(): Promise<void>;
}

const dataDir = fileURLToPath(new URL('../../.data/demo-pglite', import.meta.url));
const lockFile = `${dataDir}.pid`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite keeps no lock of its own, and two processes on one data directory corrupt it. The first demo takes
 * the directory (a pid file; a dead owner's is taken over); a second one, started alongside, says so and
 * keeps its data in memory.
 */
async function claimDataDir(): Promise<boolean> {
  await mkdir(dataDir, { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(lockFile, String(process.pid), { flag: 'wx' });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(await readFile(lockFile, 'utf8').catch(() => ''));
      if (owner && owner !== process.pid && alive(owner)) return false;
      await rm(lockFile, { force: true });
    }
  }
  return false;
}

const fingerprint = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 10);

/**
 * Opens the demo database and brings its schema up to date. PGlite's cold start takes seconds, so the demo
 * starts this alongside its IdP.
 *
 * @example
 * const db = await openDemoDatabase(); const config = { adapter: db.adapter, providers }
 */
export async function openDemoDatabase(env: NodeJS.ProcessEnv = process.env): Promise<DemoDatabase> {
  let q: Queryable;
  let where: string;
  let close: () => Promise<void>;
  if (env.DATABASE_URL) {
    const { default: pg } = await import('pg');
    // The server stops what the demo no longer waits for: statement, lock and idle-in-transaction limits and a
    // connection timeout, all at the store deadline (storeTimeout, default 5000 ms).
    const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 5, ...pgTimeouts() });
    q = toQueryable(pool);
    where = `PostgreSQL at ${new URL(env.DATABASE_URL).host} (DATABASE_URL)`;
    close = () => pool.end();
  } else {
    const { PGlite } = await import('@electric-sql/pglite');
    // DEMO_DATABASE=memory (the browser tests) keeps nothing on disk.
    const owned = env.DEMO_DATABASE !== 'memory' && (await claimDataDir());
    const db = await PGlite.create(owned ? dataDir : undefined);
    q = toQueryable(db);
    where = owned
      ? // The folder is named relative to the project, not as this machine's path: the home page shows it to anyone.
        `embedded PGlite in .data/demo-pglite (set DATABASE_URL to use a PostgreSQL server)`
      : env.DEMO_DATABASE === 'memory' ? 'embedded PGlite in memory (DEMO_DATABASE=memory)' : 'embedded PGlite in memory: another demo process holds .data/demo-pglite';
    close = async () => {
      await db.close();
      if (owned) await rm(lockFile, { force: true });
    };
  }
  const adapter = PostgresAdapter(q);
  await adapter.migrate();
  return {
    adapter,
    where,
    async linkedAccounts(userId) {
      const { rows } = await q.query<{ provider: string; provider_account_id: string; type: string }>(
        'SELECT provider, provider_account_id, type FROM accounts WHERE user_id = $1 ORDER BY provider, provider_account_id',
        [userId],
      );
      return rows.map((r) => ({ provider: r.provider, providerAccountId: r.provider_account_id, type: r.type }));
    },
    async activeSessions(userId, currentToken) {
      const { rows } = await q.query<{ session_token: string; expires: Date }>(
        'SELECT session_token, expires FROM sessions WHERE user_id = $1 AND expires > now() ORDER BY expires DESC',
        [userId],
      );
      return rows.map((r) => ({ fingerprint: fingerprint(r.session_token), expires: r.expires, current: r.session_token === currentToken }));
    },
    close,
  };
}
