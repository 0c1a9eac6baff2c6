// Database sessions driven through Auth.js's own `@auth/pg-adapter`, unchanged, on the PostgreSQL server
// (DATABASE_URL) with Auth.js's schema, whose SERIAL ids reach authchart as numbers.
import AuthjsPgAdapter from '@auth/pg-adapter';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Adapter } from '../../src/core/adapter.js';
import type { AuthConfig, SessionCallbackParams } from '../../src/core/options.js';
import { ORIGIN, testAuth } from '../support/auth-app.js';
import { authjsSchema } from '../support/authjs-pg-schema.js';
import { adapterCalls, clears, DAY, passwordProvider, readSession, serverSchema, SESSION_COOKIE, signIn, UUID, writes, type TestDatabase } from './database-harness.js';
import { storedSessionToken } from '../../src/session/session-token.js';

const url = process.env.DATABASE_URL;
const T0 = new Date('2026-03-01T12:00:00.000Z');
const at = (ms: number) => vi.setSystemTime(new Date(T0.getTime() + ms));
let serial = 0;
const address = () => `authjs-${++serial}-${process.pid}@example.test`;

describe('@auth/pg-adapter as the adapter of database sessions (DATABASE_URL)', () => {
  let d: TestDatabase;
  let adapter: Adapter;
  beforeAll(async () => {
    d = await serverSchema(url!, async (pool) => {
      for (const statement of authjsSchema) await pool.query(statement);
    });
    adapter = AuthjsPgAdapter((d as TestDatabase & { pool: import('pg').Pool }).pool);
  });
  afterAll(async () => {
    await d?.close();
  });
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const auth = (config: Partial<AuthConfig> = {}) => testAuth({ adapter, providers: [passwordProvider()], ...config });
  const sessionRow = async (token: string) =>
    (await d.sql<{ userId: number; expires: Date }>('SELECT "userId", expires FROM sessions WHERE "sessionToken" = $1', [storedSessionToken(token)]))[0];

  it('signs in the user authorize found by its numeric id, with a UUID session token', async () => {
    const email = address();
    const stored = await adapter.createUser!({ id: 'ignored', email, name: 'Numbered', emailVerified: null });
    expect(typeof stored.id).toBe('number');
    const t = auth({ providers: [passwordProvider(() => ({ id: stored.id, email }))] });
    const res = await signIn(t, email);
    expect(res.location?.href).toBe(`${ORIGIN}/home`);
    // Found by its id (a user from before credentials account rows), whose row is linked now.
    expect(adapterCalls(t)).toEqual(['getUserByAccount', 'getUserByEmail', 'linkAccount', 'createSession']);
    const token = writes(res)[0]!.value;
    expect(token).toMatch(UUID);
    expect(await sessionRow(token)).toEqual({ userId: stored.id, expires: new Date(T0.getTime() + 30 * DAY) });
  });

  it('creates a user for a new e-mail (numeric id), and an id the schema cannot hold falls back to the e-mail', async () => {
    const created: unknown[] = [];
    const email = address();
    const t = auth({ providers: [passwordProvider((e) => ({ id: 'external-7', email: e, name: 'Newcomer' }))], events: { createUser: (m) => void created.push(m.user) } });
    const token = writes(await signIn(t, email))[0]!.value;
    const [row] = await d.sql<{ id: number }>('SELECT id FROM users WHERE email = $1', [email]);
    expect(created).toEqual([expect.objectContaining({ id: row!.id, email, name: 'Newcomer' })]);
    expect((await sessionRow(token))?.userId).toBe(row!.id);
    // Again: the credentials account row ('external-7') names the user, whatever its numeric id.
    const again = writes(await signIn(t, email, t.newClient()))[0]!.value;
    expect((await sessionRow(again))?.userId).toBe(row!.id);
    expect(created).toHaveLength(1);
  });

  it('reads with one getSessionAndUser and hands the session callback the stored user', async () => {
    const calls: SessionCallbackParams[] = [];
    const email = address();
    const t = auth({ callbacks: { session: (p) => (calls.push(structuredClone(p)), { ...p.session, uid: p.user?.id }) } });
    await signIn(t, email);
    at(60_000);
    const from = t.logger.debugs.length;
    const { res, body } = await readSession(t.client);
    expect(adapterCalls(t, from)).toEqual(['getSessionAndUser']);
    expect(writes(res)).toEqual([]);
    expect(body).toMatchObject({ user: { email }, expires: new Date(T0.getTime() + 30 * DAY).toISOString(), uid: expect.any(Number) });
    expect(calls[0]!.user).toMatchObject({ email, id: body!.uid });
  });

  it('extends the expiry once per updateAge and re-issues the cookie only then', async () => {
    const t = auth();
    const token = writes(await signIn(t, address()))[0]!.value;
    const seen: [string[], number][] = [];
    for (const ms of [3_600_000, DAY, DAY + 3_600_000]) {
      at(ms);
      const from = t.logger.debugs.length;
      const { res } = await readSession(t.client);
      seen.push([adapterCalls(t, from), writes(res).length]);
    }
    expect(seen).toEqual([
      [['getSessionAndUser'], 0],
      [['getSessionAndUser', 'updateSession'], 1],
      [['getSessionAndUser'], 0],
    ]);
    expect((await sessionRow(token))?.expires).toEqual(new Date(T0.getTime() + DAY + 30 * DAY));
  });

  it('deletes an expired session and answers null', async () => {
    const t = auth({ session: { maxAge: 600 } });
    const token = writes(await signIn(t, address()))[0]!.value;
    at(601_000);
    t.client.cookies.set(SESSION_COOKIE, token, new URL(ORIGIN));
    const { res, body } = await readSession(t.client);
    expect(body).toBeNull();
    expect(clears(res)).toHaveLength(1);
    expect(await sessionRow(token)).toBeUndefined();
  });

  it('POST /auth/session reaches the session callback with trigger "update" and newSession', async () => {
    const calls: SessionCallbackParams[] = [];
    const t = auth({ callbacks: { session: (p) => (calls.push(structuredClone(p)), p.session) } });
    await signIn(t, address());
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/session', JSON.stringify({ csrfToken, data: { plan: 'pro' } }), { json: true });
    expect(res.status).toBe(200);
    expect(calls.at(-1)).toMatchObject({ trigger: 'update', newSession: { plan: 'pro' } });
  });

  it('signs out: the row is deleted, the cookie cleared, signOut emitted (this adapter returns no session)', async () => {
    const seen: unknown[] = [];
    const t = auth({ events: { signOut: (m) => void seen.push(m) } });
    const token = writes(await signIn(t, address()))[0]!.value;
    const res = await t.client.post('/auth/signout', { csrfToken: await t.csrfToken() });
    expect(res.status).toBe(302);
    expect(clears(res)).toHaveLength(1);
    expect(await sessionRow(token)).toBeUndefined();
    expect(seen).toEqual([{ session: null }]);
    expect((await readSession(t.client)).body).toBeNull();
    expect(t.logger.errors).toEqual([]);
  });
});
