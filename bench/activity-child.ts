// One round of bench/activity.ts (args: store, flows, warmup): credentials sign-ins in process on two apps that
// differ only by the activity log, off and on, alternating one sign-in each, so both sides share the process, its
// JIT and the machine's load of the moment; CPU per sign-in (median per side), as one JSON line. `store`: `memory`
// (JWT sessions, no adapter; the log on writes to a memory sink), `pglite` (the PostgresAdapter on PGlite, JWT
// sessions; the log on writes its record in a transaction, and PGlite's own CPU is this process's) or `postgres`
// (the PostgreSQL server at DATABASE_URL, in a schema of its own, database sessions: the log on adds its record to
// the session's transaction).
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { PostgresAdapter } from '../src/adapters/postgres/index.js';
import { memoryActivity } from '../src/activity/memory.js';
import { createAuth } from '../src/http/auth.js';
import { Credentials } from '../src/providers/credentials.js';
import { createClient } from '../test/support/client.js';

const [store = 'memory'] = process.argv.slice(2, 3);
const [flows = 300, warmup = 50] = process.argv.slice(3).map(Number);
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
// The two sides sign in different users, so each side's records are its own.
if (adapter) {
  await adapter.migrate();
  for (const id of ['off', 'on']) await adapter.createUser({ id, email: `${id}@example.com`, emailVerified: null });
}

function app(on: boolean) {
  const id = on ? 'on' : 'off';
  const auth = createAuth(
    {
      secret: 'a-secret-that-is-long-enough-for-the-bench-0123',
      trustHost: true,
      logger: { error() {}, warn() {} },
      ...(adapter ? { adapter } : {}),
      session: { strategy: store === 'postgres' ? 'database' : 'jwt' },
      ...(on ? { activity: { anonymousPerMinute: 1_000_000, ...(adapter ? {} : { sinks: [{ name: 'memory', write: (records) => kept.appendActivity([...records]) }] }) } } : {}),
      providers: [Credentials({ credentials: { username: {}, password: {} }, authorize: (c) => (c.password === 'pw' ? { id, name: 'Ada', email: `${id}@example.com` } : null) })],
    },
    { defaultBasePath: '/auth' },
  );
  return async (): Promise<number> => {
    const client = createClient({ fetch: (request: Request) => auth.handle(request), baseUrl: 'http://localhost:3000' });
    const { csrfToken } = (await (await client.get('/auth/csrf')).json()) as { csrfToken: string };
    const c0 = process.cpuUsage();
    const res = await client.post('/auth/callback/credentials', { csrfToken, username: 'ada', password: 'pw' });
    const c = process.cpuUsage(c0);
    if (res.status !== 302 || res.headers.get('location')?.includes('/error')) throw new Error(`sign-in answered ${res.status} ${res.headers.get('location')}`);
    return (c.user + c.system) / 1000;
  };
}

const sides = { off: app(false), on: app(true) };
const cpu = { off: [] as number[], on: [] as number[] };
for (let i = 0; i < warmup + flows; i += 1) {
  // Which side goes first alternates too: neither always follows the other's garbage.
  for (const side of i % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
    const ms = await sides[side]();
    if (i >= warmup) cpu[side].push(ms);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
// A side that measured the wrong thing would make the ratio meaningless: only the log on keeps records.
const count = async (id: string) => (adapter ? (await adapter.listActivity({ userId: id, limit: 1 })).records.length : kept.records.filter((r) => r.userId === id).length);
const records = { off: await count('off'), on: await count('on') };
await done();
console.log(JSON.stringify({ store, records, offCpuMs: median(cpu.off), onCpuMs: median(cpu.on) }));
