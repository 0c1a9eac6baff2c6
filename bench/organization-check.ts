// What a membership check costs per session read (issue 47): `GET /auth/session` on PostgreSQL, JWT and database
// sessions, with `organizations` configured and an active organization (the membership read afresh on every read)
// against the same user without organizations. Statements counted at the driver; time per read, sequential.
// Run: DATABASE_URL=postgres://... npx tsx bench/organization-check.ts   (one short run; prints a table)
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { PostgresAdapter } from '../src/adapters/postgres/index.js';
import { createAuthInstance } from '../src/http/auth.js';
import { authchartConfig, type Handle } from './contenders.js';
import { queryView } from './query-view.js';

const ORIGIN = 'http://localhost:3000';
const READS = Number(process.env.READS ?? 2000);

/** Keeps the cookies of each answer, as a browser would. */
function browser(handle: Handle) {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';', 1);
      const at = pair!.indexOf('=');
      if (/max-age=0/i.test(line)) jar.delete(pair!.slice(0, at));
      else jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return res;
  };
  const get = async (path: string) => keep(await handle(new Request(`${ORIGIN}${path}`, { headers: { cookie: cookie() } })));
  const post = async (path: string, fields: Record<string, string>) => {
    const { csrfToken } = (await (await get('/auth/csrf')).json()) as { csrfToken: string };
    return keep(await handle(new Request(`${ORIGIN}${path}`, { method: 'POST', headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrfToken, ...fields }) })));
  };
  return { get, post, cookie };
}

async function side(pool: pg.Pool, strategy: 'jwt' | 'database', organizations: boolean) {
  let statements = 0;
  const adapter = PostgresAdapter(queryView(pool, () => statements++) as never);
  await adapter.migrate();
  const config = authchartConfig({ adapter, session: { strategy }, ...(organizations ? { organizations: {} } : {}) });
  const { app } = await createAuthInstance(config, { defaultBasePath: '/auth' }).resolve(undefined);
  const handle: Handle = (r) => Promise.resolve(app.fetch(r));
  const b = browser(handle);
  if ((await b.post('/auth/callback/credentials', { username: 'u', password: 'p' })).status !== 302) throw new Error('sign-in failed');
  if (organizations && (await b.post('/auth/organizations', { name: 'Bench' })).status !== 201) throw new Error('no organization');
  const request = new Request(`${ORIGIN}/auth/session`, { headers: { cookie: b.cookie() } });
  const read = async () => (await handle(request)).json() as Promise<{ user?: unknown; organization?: { role: string } | null }>;
  const first = await read();
  if (!first?.user || (organizations && first.organization?.role !== 'owner')) throw new Error(`unexpected session: ${JSON.stringify(first)}`);
  for (let i = 0; i < 200; i++) await read();
  statements = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < READS; i++) await read();
  const us = Number(process.hrtime.bigint() - start) / 1000 / READS;
  return { statements: statements / READS, us };
}

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const admin = new pg.Pool({ connectionString: url, max: 1 });
const schema = `bench_org_${randomBytes(4).toString('hex')}`;
await admin.query(`CREATE SCHEMA ${schema}`);
const pool = new pg.Pool({ connectionString: url, max: 4, options: `-c search_path=${schema}` });
try {
  console.log(`GET /auth/session, ${READS} sequential reads each, PostgreSQL (${new URL(url).host})`);
  console.log('| sessions | organizations | statements per read | µs per read |');
  console.log('|---|---|---|---|');
  for (const strategy of ['jwt', 'database'] as const) {
    for (const organizations of [false, true]) {
      const r = await side(pool, strategy, organizations);
      console.log(`| ${strategy} | ${organizations ? 'on, one active' : 'off'} | ${r.statements.toFixed(2)} | ${r.us.toFixed(0)} |`);
    }
  }
} finally {
  await pool.end();
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
}
