// Password recovery on the activity log, over real HTTP against the real PostgreSQL: a request leaves
// `recovery.requested` (naming nobody), a reset leaves `recovery.completed` naming the user, and the reset's record
// is written in the transaction of the new hash: when the database refuses the record, the old password stays.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import type { AuthConfig } from '../../src/core/options.js';
import { argon2id, hashNewPassword, Password, type PasswordMail } from '../../src/providers/password/index.js';
import { serveLoopback, type LoopbackApp } from '../support/loopback-app.js';
import { useSharedStores } from '../support/shared-stores.js';

const SECRET = 'recovery-activity-secret-0123456789abcdef';
const OLD = 'old horse battery staple';
const NEW = 'new horse battery staple';
const hasher = argon2id({ memoryCost: 1024, timeCost: 1 });
const stores = useSharedStores();

const apps: LoopbackApp[] = [];
afterEach(async () => {
  while (apps.length) await apps.pop()!.close();
});

async function setUp(): Promise<{ app: LoopbackApp; adapter: PostgresAdapterInstance; pool: pg.Pool; outbox: PasswordMail[]; kim: { id: string; email: string } }> {
  const pool = stores.pool(await stores.schema(), { max: 4 });
  const adapter = PostgresAdapter(pool);
  const outbox: PasswordMail[] = [];
  const mail = { send: async (m: PasswordMail) => void outbox.push(m) };
  const app = await serveLoopback({ secret: SECRET, trustHost: true, adapter, providers: [Password({ hasher, mail })], session: { strategy: 'database' }, activity: {}, throttle: { enabled: false }, logger: { error: () => {}, warn: () => {}, debug: () => {} } } as AuthConfig);
  apps.push(app);
  const email = `kim-${randomUUID()}@example.com`;
  const { id } = await adapter.createUser({ id: randomUUID(), email, emailVerified: null });
  await adapter.setPasswordHash(id, await hashNewPassword(OLD, { hasher }));
  return { app, adapter, pool, outbox, kim: { id, email } };
}

function browser(app: LoopbackApp) {
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      if (/max-age=0/i.test(line)) jar.delete(pair!.slice(0, at));
      else jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return res;
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  let csrf: string | undefined;
  return {
    get: async (path: string) => keep(await app.fetch(path, { cookie: cookie() })),
    async post(fields: Record<string, string>): Promise<Response> {
      if (!csrf) {
        const pair = await app.csrf();
        csrf = pair.token;
        for (const part of pair.cookie.split('; ')) jar.set(part.slice(0, part.indexOf('=')), part.slice(part.indexOf('=') + 1));
      }
      return keep(await app.fetch('/auth/recover/password', { method: 'POST', cookie: cookie(), headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrfToken: csrf, ...fields }) }));
    },
  };
}

async function resetLink(outbox: PasswordMail[], email: string): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const found = outbox.findLast((m) => m.to === email && m.kind === 'reset');
    if (found) return new URL(found.url).pathname + new URL(found.url).search;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no mail to ${email}`);
}

async function kindsOf(pool: pg.Pool): Promise<{ kind: string; user_id: string | null }[]> {
  return (await pool.query<{ kind: string; user_id: string | null }>('SELECT kind, user_id FROM activity ORDER BY at, id')).rows;
}

describe('password recovery on the activity log', () => {
  it('a request leaves recovery.requested naming nobody; the reset leaves recovery.completed naming the user', async () => {
    const { app, adapter, pool, outbox, kim } = await setUp();
    const b = browser(app);
    expect((await b.post({ email: kim.email })).status).toBeLessThan(400);
    expect(await kindsOf(pool)).toEqual([{ kind: 'recovery.requested', user_id: null }]);
    const path = await resetLink(outbox, kim.email);
    const reader = browser(app);
    expect((await reader.get(path)).status).toBe(200);
    expect((await reader.post({ password: NEW })).status).toBe(302);
    expect(await hasher.verify((await adapter.getPasswordHash(kim.id))!, NEW)).toBe(true);
    const completed = (await adapter.listActivity({ userId: kim.id, kinds: ['recovery.completed'] })).records;
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ userId: kim.id, method: 'password', flow: { transition: 'resetting → notifying' } });
    // No secret of the reset in any record.
    expect(JSON.stringify(await kindsOf(pool))).not.toContain(NEW);
  });

  it('when the database refuses the reset record, the hash is unchanged and the link still works', async () => {
    const { app, adapter, pool, outbox, kim } = await setUp();
    await browser(app).post({ email: kim.email });
    const path = await resetLink(outbox, kim.email);
    const before = await adapter.getPasswordHash(kim.id);
    // The record's insert fails inside the transaction, after the new hash was written.
    await pool.query(`ALTER TABLE activity ADD CONSTRAINT refuse_resets CHECK (kind <> 'recovery.completed')`);
    const reader = browser(app);
    expect((await reader.get(path)).status).toBe(200);
    const res = await reader.post({ password: NEW });
    expect(res.status).not.toBe(500);
    expect(await adapter.getPasswordHash(kim.id)).toBe(before);
    expect(await hasher.verify(before!, OLD)).toBe(true);
    expect((await kindsOf(pool)).map((r) => r.kind)).not.toContain('recovery.completed');
    // Once the database takes records again, the same link sets the password, with its record.
    await pool.query('ALTER TABLE activity DROP CONSTRAINT refuse_resets');
    const again = browser(app);
    expect((await again.get(path)).status).toBe(200);
    expect((await again.post({ password: NEW })).status).toBe(302);
    expect(await hasher.verify((await adapter.getPasswordHash(kim.id))!, NEW)).toBe(true);
    expect((await kindsOf(pool)).map((r) => r.kind)).toContain('recovery.completed');
  });
});
