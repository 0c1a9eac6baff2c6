// Databases for the database-session tests: PGlite in process, or a schema of its own on the PostgreSQL
// server of DATABASE_URL (dropped at the end). Each counts the SQL statements the adapter sends.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { PostgresAdapter, toQueryable, type PGliteLike, type PostgresAdapterInstance, type Queryable } from '../../src/adapters/postgres/index.js';
import { Credentials } from '../../src/providers/credentials.js';
import type { User } from '../../src/core/types.js';
import type { TestAuth } from '../support/auth-app.js';
import type { ClientInit, ClientResponse, TestClient } from '../support/client.js';
import { parseSetCookie, type ParsedSetCookie } from '../support/cookie-jar.js';

export const SESSION_COOKIE = 'authchart.session-token';
export const PASSWORD = 'correct horse battery staple';
export const DAY = 24 * 60 * 60 * 1000;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A database under test: the adapter, a side door for assertions, and the statements the adapter sent. */
export interface TestDatabase {
  adapter: PostgresAdapterInstance;
  /** Runs SQL outside the adapter (not counted). */
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /** Every statement the adapter sent, in order; clear it with `queries.length = 0`. */
  queries: string[];
  close(): Promise<void>;
}

function counted(q: Queryable, queries: string[]): Queryable {
  return { ...q, query: (text, params) => (queries.push(text), q.query(text, params)) } as Queryable;
}

/** A fresh in-memory PGlite with authchart's schema. */
export async function pgliteDatabase(): Promise<TestDatabase & { db: PGlite }> {
  const db = await PGlite.create();
  const queries: string[] = [];
  const direct = toQueryable(db as unknown as PGliteLike);
  const adapter = PostgresAdapter(counted(direct, queries));
  await adapter.migrate();
  queries.length = 0;
  return {
    db,
    adapter,
    queries,
    sql: async (text, params = []) => (await direct.query(text, params)).rows as never,
    close: async () => {
      if (!db.closed) await db.close();
    },
  };
}

/** A new schema on the DATABASE_URL server; `setup` runs in it (default: authchart's migrations). */
export async function serverSchema(url: string, setup?: (pool: pg.Pool) => Promise<void>): Promise<TestDatabase & { pool: pg.Pool; schema: string }> {
  const schema = `authchart_sessions_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 4 });
  const queries: string[] = [];
  const adapter = PostgresAdapter(counted(toQueryable(pool), queries));
  if (setup) await setup(pool);
  else await adapter.migrate();
  queries.length = 0;
  return {
    pool,
    schema,
    adapter,
    queries,
    sql: async (text, params = []) => (await pool.query(text, params)).rows,
    close: async () => {
      await pool.end();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/** A loopback port nothing listens on (bound, then released): connections to it are refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A credentials provider that accepts `PASSWORD` for any e-mail and returns what `who` makes of it
 * (default: just the e-mail and a name, so the database decides the id).
 */
export function passwordProvider(who: (email: string) => User | Promise<User> = (email) => ({ email, name: email.split('@')[0] })) {
  return Credentials({
    credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
    authorize: async (c) => (c.password === PASSWORD && typeof c.email === 'string' ? who(c.email) : null),
  });
}

/** Signs `client` in with the credentials form. */
export async function signIn(t: TestAuth, email: string, client: TestClient = t.client, init?: ClientInit): Promise<ClientResponse> {
  const csrfToken = await t.csrfToken(client);
  return client.post('/auth/callback/credentials', { csrfToken, email, password: PASSWORD, callbackUrl: '/home' }, init);
}

/** The session cookies a response sets (writes and deletions). */
export function sessionCookies(res: ClientResponse): ParsedSetCookie[] {
  return res.setCookie.map((line) => parseSetCookie(line)!).filter((c) => c.name === SESSION_COOKIE || c.name.startsWith(`${SESSION_COOKIE}.`));
}

export const writes = (res: ClientResponse) => sessionCookies(res).filter((c) => c.value !== '' && c.maxAge !== 0);
export const clears = (res: ClientResponse) => sessionCookies(res).filter((c) => c.maxAge === 0);

/** The adapter methods called since `from` (read from the recording logger's `adapter_<method>` debug lines). */
export function adapterCalls(t: TestAuth, from = 0): string[] {
  return t.logger.debugs
    .slice(from)
    .map((d) => d.message)
    .filter((m) => m.startsWith('adapter_'))
    .map((m) => m.slice('adapter_'.length));
}

/** GET /auth/session: the response and its JSON. */
export async function readSession(client: TestClient): Promise<{ res: ClientResponse; body: Record<string, any> | null }> {
  const res = await client.get('/auth/session');
  return { res, body: (await res.json()) as Record<string, any> | null };
}
