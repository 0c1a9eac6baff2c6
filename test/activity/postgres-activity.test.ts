// The activity log on a real PostgreSQL server: records appended and read back newest first through the keyset
// cursor (every record once, the filters applied), rows never updated, pruned past the retention, and a sign-in's
// record written in the transaction of its session: when the record cannot be written, no session exists.
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import { readActivity } from '../../src/activity/list.js';
import { memoryActivity } from '../../src/activity/memory.js';
import { newActivityId } from '../../src/activity/record.js';
import type { ActivityKind, ActivityPage, ActivityQuery, ActivityRecord } from '../../src/activity/types.js';
import type { Awaitable } from '../../src/core/types.js';
import { resolveConfig } from '../../src/core/config.js';
import { InvalidRequest } from '../../src/core/errors.js';
import { Credentials } from '../../src/providers/credentials.js';
import { testAuth } from '../support/auth-app.js';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let admin: pg.Pool;
const schemas: string[] = [];
const pools: pg.Pool[] = [];

async function freshAdapter(options: Parameters<typeof PostgresAdapter>[1] = {}): Promise<{ adapter: PostgresAdapterInstance; pool: pg.Pool }> {
  const schema = `authchart_activity_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  schemas.push(schema);
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 4 });
  pools.push(pool);
  const adapter = PostgresAdapter(pool, options);
  await adapter.migrate();
  return { adapter, pool };
}

beforeAll(async () => {
  admin = new pg.Pool({ connectionString: url, max: 2 });
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

const KINDS: ActivityKind[] = ['signIn.succeeded', 'signIn.failed', 'factor.added', 'session.ended'];

function record(i: number, fields: Partial<ActivityRecord> = {}): ActivityRecord {
  return {
    id: newActivityId(),
    kind: KINDS[i % KINDS.length],
    // Several records share a millisecond: the cursor must order them by id too.
    at: new Date(Date.UTC(2026, 10, 1) + Math.floor(i / 3) * 1000),
    userId: 'u1',
    correlationId: `c${i}`,
    provider: 'github',
    method: 'oauth',
    flow: { machine: 'oauth', version: '3', transition: 'exchanging → authenticated' },
    sessionHash: 'h',
    ip: '203.0.113.9',
    userAgent: 'Firefox',
    detail: { n: i },
    ...fields,
  };
}

/** Every page of a query, following the cursor. */
async function allPages(list: (q: ActivityQuery) => Awaitable<ActivityPage>, query: ActivityQuery) {
  const pages: ActivityRecord[][] = [];
  let cursor: string | undefined;
  do {
    const page = await list({ ...query, ...(cursor ? { cursor } : {}), limit: 7 });
    pages.push(page.records);
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return pages;
}

describe('activity in PostgreSQL', () => {
  it('reads every record once, newest first, across pages, with the filters, as the memory store does', async () => {
    const { adapter } = await freshAdapter();
    const mine = Array.from({ length: 50 }, (_, i) => record(i));
    const others = [record(0, { userId: 'u2' }), record(1, { userId: null, organizationId: 'org1', kind: 'organization.memberAdded' })];
    await adapter.appendActivity([...mine, ...others]);
    const memory = memoryActivity();
    memory.appendActivity([...mine, ...others]);

    const pages = await allPages((q) => adapter.listActivity(q), { userId: 'u1' });
    const read = pages.flat();
    expect(read.map((r) => r.id).sort()).toEqual(mine.map((r) => r.id).sort());
    expect(new Set(read.map((r) => r.id)).size).toBe(50);
    expect(pages.slice(0, -1).every((p) => p.length === 7)).toBe(true);
    for (let i = 1; i < read.length; i++) expect(read[i - 1].at.getTime()).toBeGreaterThanOrEqual(read[i].at.getTime());
    // A record comes back as it went in.
    const first = mine.find((r) => r.id === read[0].id)!;
    expect(read[0]).toEqual(first);
    // The memory store pages the same records.
    expect((await allPages((q) => memory.listActivity(q), { userId: 'u1' })).flat().map((r) => r.id).sort()).toEqual(read.map((r) => r.id).sort());

    const failed = (await allPages((q) => adapter.listActivity(q), { userId: 'u1', kinds: ['signIn.failed'] })).flat();
    expect(failed.map((r) => r.id).sort()).toEqual(mine.filter((r) => r.kind === 'signIn.failed').map((r) => r.id).sort());
    const since = new Date(Date.UTC(2026, 10, 1) + 10_000);
    const recent = (await allPages((q) => adapter.listActivity(q), { userId: 'u1', since })).flat();
    expect(recent.map((r) => r.id).sort()).toEqual(mine.filter((r) => r.at >= since).map((r) => r.id).sort());
    const org = await adapter.listActivity({ organizationId: 'org1' });
    expect(org.records.map((r) => r.id)).toEqual([others[1].id]);
    expect(org.cursor).toBeNull();
  });

  it('refuses a query a client made up, with a typed error', async () => {
    const { adapter } = await freshAdapter();
    const config = resolveConfig({ adapter, providers: [], secret: 'x'.repeat(32), activity: {} } as never);
    await expect(readActivity(config, { userId: 'u1', cursor: 'not-a-cursor' })).rejects.toBeInstanceOf(InvalidRequest);
    await expect(readActivity(config, { kinds: ['signIn.everything' as ActivityKind] })).rejects.toBeInstanceOf(InvalidRequest);
    await expect(readActivity(config, { since: new Date('nope') })).rejects.toBeInstanceOf(InvalidRequest);
    await expect(readActivity(config, { limit: -1 })).rejects.toBeInstanceOf(InvalidRequest);
    expect((await readActivity(config, { userId: 'nobody', limit: 1000 })).records).toEqual([]);
  });

  it('never updates a record: the table is append-only', async () => {
    const { adapter, pool } = await freshAdapter();
    const r = record(0);
    await adapter.appendActivity([r]);
    await pool.query(`UPDATE activity SET kind = 'signIn.failed', user_id = 'mallory' WHERE id = $1`, [r.id]);
    expect((await adapter.listActivity({ userId: 'u1' })).records).toEqual([r]);
  });

  it('prunes records past the retention, and only those', async () => {
    const { adapter } = await freshAdapter({ activityRetention: 30 * 86_400 });
    const now = Date.now();
    const old = record(0, { at: new Date(now - 31 * 86_400_000) });
    const kept = record(1, { at: new Date(now - 29 * 86_400_000) });
    await adapter.appendActivity([old, kept]);
    // The adapter's own retention when prune names none (an app's cleanup job).
    expect((await adapter.prune()).activity).toBe(1);
    expect((await adapter.listActivity({ userId: 'u1' })).records.map((r) => r.id)).toEqual([kept.id]);
    // The configuration's retention, as authchart's sweep passes it.
    expect((await adapter.prune({ activityBefore: new Date(now - 7 * 86_400_000) })).activity).toBe(1);
    expect((await adapter.listActivity({ userId: 'u1' })).records).toEqual([]);
  });
});

describe('createSessionWithActivity: a session row and its records in one statement', () => {
  const record = (userId: string, id = newActivityId()): ActivityRecord => ({ id, kind: 'signIn.succeeded', at: new Date(), userId, correlationId: 'c1', method: 'credentials', detail: { secondFactor: 'totp' } });

  it('writes both, the records as appendActivity would', async () => {
    const { adapter, pool } = await freshAdapter();
    const userId = `u-${randomUUID()}`;
    await adapter.createUser({ id: userId, email: `${userId}@example.com`, emailVerified: null });
    const written = [record(userId), record(userId)];
    const row = await adapter.createSessionWithActivity({ sessionToken: `sha256:${randomUUID()}`, userId, expires: new Date(Date.now() + 60_000) }, written);
    expect(row).toMatchObject({ userId });
    expect((await pool.query('SELECT 1 FROM sessions WHERE user_id = $1', [userId])).rows).toHaveLength(1);
    const kept = (await adapter.listActivity({ userId })).records;
    expect(kept.map((r) => r.id).sort()).toEqual(written.map((r) => r.id).sort());
    expect(kept[0]).toMatchObject({ kind: 'signIn.succeeded', method: 'credentials', detail: { secondFactor: 'totp' } });
  });

  it('writes neither when a record is refused (an id already used), nor the records when the row is refused', async () => {
    const { adapter, pool } = await freshAdapter();
    const userId = `u-${randomUUID()}`;
    await adapter.createUser({ id: userId, email: `${userId}@example.com`, emailVerified: null });
    const used = record(userId);
    await adapter.appendActivity([used]);
    const session = { sessionToken: `sha256:${randomUUID()}`, userId, expires: new Date(Date.now() + 60_000) };
    await expect(adapter.createSessionWithActivity(session, [record(userId), used])).rejects.toThrow();
    expect((await pool.query('SELECT 1 FROM sessions WHERE user_id = $1', [userId])).rows).toEqual([]);
    await adapter.createSession(session);
    await expect(adapter.createSessionWithActivity(session, [record(userId)])).rejects.toThrow();
    expect((await adapter.listActivity({ userId })).records.map((r) => r.id)).toEqual([used.id]);
  });
});

describe("a sign-in's record and its session commit together", () => {
  const PASSWORD = 'correct horse battery staple';
  const provider = Credentials({ credentials: { email: {}, password: {} }, authorize: (c) => (c.password === PASSWORD ? { id: String(c.email).split('@')[0], email: String(c.email) } : null) });

  async function signIn(adapter: PostgresAdapterInstance, strategy: 'database' | 'jwt') {
    const userId = `u-${randomUUID()}`;
    await adapter.createUser({ id: userId, email: `${userId}@example.com`, emailVerified: null });
    const t = testAuth({ adapter, session: { strategy }, activity: {}, providers: [provider] });
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/callback/credentials', { csrfToken, email: `${userId}@example.com`, password: PASSWORD, callbackUrl: '/dashboard' });
    const session = (await (await t.client.get('/auth/session')).json()) as { user?: unknown } | null;
    return { userId, res, session, t };
  }

  it.each(['database', 'jwt'] as const)('%s sessions: the record is there with the session', async (strategy) => {
    const { adapter, pool } = await freshAdapter();
    const { userId, session, t } = await signIn(adapter, strategy);
    expect(session?.user).toBeTruthy();
    const records = (await adapter.listActivity({ userId })).records;
    expect(records.map((r) => r.kind)).toEqual(['signIn.succeeded']);
    const flow = t.logger.debugs.find((d) => d.message.startsWith('flow credentials '))!.metadata as { id: string };
    expect(records[0].correlationId).toBe(flow.id);
    if (strategy === 'database') {
      const rows = (await pool.query<{ session_token: string }>('SELECT session_token FROM sessions WHERE user_id = $1', [userId])).rows;
      expect(rows).toHaveLength(1);
      // The record names the session by the hash of its row id, never the cookie.
      const { hashSessionId } = await import('../../src/activity/record.js');
      expect(records[0].sessionHash).toBe(hashSessionId(rows[0].session_token));
      expect(JSON.stringify(records)).not.toContain(t.client.cookies.get('authchart.session-token')!);
    }
  });

  it.each(['database', 'jwt'] as const)('%s sessions: when the database refuses the record, no session exists', async (strategy) => {
    const { adapter, pool } = await freshAdapter();
    // The insert of the record fails inside the transaction, after the session row was written.
    await pool.query(`ALTER TABLE activity ADD CONSTRAINT refuse_sign_ins CHECK (kind <> 'signIn.succeeded')`);
    const { userId, res, session, t } = await signIn(adapter, strategy);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toContain('/auth/error');
    expect(res.setCookie.some((l) => l.startsWith('authchart.session-token=') && !/max-age=0/i.test(l))).toBe(false);
    expect(session).toBeNull();
    expect((await pool.query('SELECT 1 FROM sessions WHERE user_id = $1', [userId])).rows).toEqual([]);
    expect(t.logger.errorTypes()).toContain('AdapterError');
    // The failure itself is on record (no session, so nothing to roll back with it).
    expect((await adapter.listActivity({ userId })).records.map((r) => r.kind)).toEqual(['signIn.failed']);
  });
});
