// One side of bench/activity.ts (args: store, log, flows, warmup): credentials sign-ins in process with the activity
// log on or off, CPU per sign-in (median), as one JSON line. `store`: `memory` (JWT sessions, no adapter; the log
// on writes to a memory sink), `pglite` (the PostgresAdapter on PGlite, JWT sessions; the log on writes its record in
// a transaction, and PGlite's own CPU is this process's) or `postgres` (the PostgreSQL server at DATABASE_URL, in a
// schema of its own, database sessions: the log on adds its record to the session's transaction). Only the log
// differs between the two sides of one store.
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { PostgresAdapter } from '../src/adapters/postgres/index.js';
import { memoryActivity } from '../src/activity/memory.js';
import { createAuth } from '../src/http/auth.js';
import { Credentials } from '../src/providers/credentials.js';
import { createClient } from '../test/support/client.js';

const [store = 'memory', log = 'off'] = process.argv.slice(2, 4);
const [flows = 300, warmup = 50] = process.argv.slice(4).map(Number);
const on = log === 'on';
const kept = memoryActivity({ max: 1000 });
let adapter: ReturnType<typeof PostgresAdapter> | undefined;
let done = async () => {};
if (store === 'pglite') adapter = PostgresAdapter(await PGlite.create());
if (store === 'postgres') {
  const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `authchart_bench_activity_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 4 });
  adapter = PostgresAdapter(pool);
  done = async () => {
    await pool.end();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  };
}
if (adapter) {
  await adapter.migrate();
  await adapter.createUser({ id: 'u1', email: 'ada@example.com', emailVerified: null });
}
const auth = createAuth(
  {
    secret: 'a-secret-that-is-long-enough-for-the-bench-0123',
    trustHost: true,
    logger: { error() {}, warn() {} },
    ...(adapter ? { adapter } : {}),
    session: { strategy: store === 'postgres' ? 'database' : 'jwt' },
    ...(on ? { activity: { anonymousPerMinute: 1_000_000, ...(adapter ? {} : { sinks: [{ name: 'memory', write: (records) => kept.appendActivity([...records]) }] }) } } : {}),
    providers: [Credentials({ credentials: { username: {}, password: {} }, authorize: (c) => (c.password === 'pw' ? { id: 'u1', name: 'Ada', email: 'ada@example.com' } : null) })],
  },
  { defaultBasePath: '/auth' },
);
const handle = (request: Request) => auth.handle(request);

async function signIn(): Promise<number> {
  const client = createClient({ fetch: handle, baseUrl: 'http://localhost:3000' });
  const { csrfToken } = (await (await client.get('/auth/csrf')).json()) as { csrfToken: string };
  const c0 = process.cpuUsage();
  const res = await client.post('/auth/callback/credentials', { csrfToken, username: 'ada', password: 'pw' });
  const c = process.cpuUsage(c0);
  if (res.status !== 302 || res.headers.get('location')?.includes('/error')) throw new Error(`sign-in answered ${res.status} ${res.headers.get('location')}`);
  return (c.user + c.system) / 1000;
}

for (let i = 0; i < warmup; i += 1) await signIn();
const cpu: number[] = [];
for (let i = 0; i < flows; i += 1) cpu.push(await signIn());
cpu.sort((a, b) => a - b);
// A side that measured the wrong thing would make the ratio meaningless: the log on must have kept records.
const records = adapter ? (await adapter.listActivity({ userId: 'u1', limit: 1 })).records.length : kept.records.length;
await done();
console.log(JSON.stringify({ store, log, records, medianCpuMs: cpu[Math.floor(cpu.length / 2)] }));
