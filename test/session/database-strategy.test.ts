// Database sessions through the HTTP layer, on authchart's PostgresAdapter: embedded PGlite always, and the
// PostgreSQL server when DATABASE_URL is set. Sign-in (credentials, which Auth.js refuses with this strategy),
// reads, refresh throttling, updates, sign-out and events, with the clock frozen.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthInit } from '../../src/http/integrations/fetch.js';
import type { SessionCallbackParams } from '../../src/core/options.js';
import type { AuthConfig } from '../../src/core/options.js';
import { ORIGIN, testAuth, TEST_SECRET } from '../support/auth-app.js';
import {
  adapterCalls,
  clears,
  DAY,
  passwordProvider,
  pgliteDatabase,
  readSession,
  serverSchema,
  sessionCookies,
  SESSION_COOKIE,
  signIn,
  UUID,
  writes,
  type TestDatabase,
} from './database-harness.js';
import { storedSessionToken } from '../../src/session/session-token.js';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const at = (ms: number) => vi.setSystemTime(new Date(T0.getTime() + ms));

let serial = 0;
/** A fresh address per test: tests share one database and must not see each other's users. */
const address = (who = 'user') => `${who}-${++serial}-${process.pid}@example.test`;

function sessionSuite(label: string, open: () => Promise<TestDatabase>): void {
  describe(label, () => {
    let d: TestDatabase;
    beforeAll(async () => {
      d = await open();
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

    const auth = (config: Partial<AuthConfig> = {}) => testAuth({ adapter: d.adapter, providers: [passwordProvider()], ...config });
    const sessionRow = async (token: string) =>
      (await d.sql<{ user_id: string; expires: Date }>('SELECT user_id, expires FROM sessions WHERE session_token = $1', [storedSessionToken(token)]))[0];

    describe('sign-in with credentials', () => {
      it('is a database session by default: the cookie holds a random UUID that names a row', async () => {
        const t = auth();
        const email = address();
        const res = await signIn(t, email);
        expect(res.status).toBe(302);
        expect(res.location?.href).toBe(`${ORIGIN}/home`);
        const [cookie] = writes(res);
        expect(cookie?.value).toMatch(UUID);
        expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', expires: T0.getTime() + 30 * DAY });
        const user = (await d.sql<{ id: string }>('SELECT id FROM users WHERE email = $1', [email]))[0]!;
        expect(await sessionRow(cookie!.value)).toEqual({ user_id: user.id, expires: new Date(T0.getTime() + 30 * DAY) });
        expect(t.logger.errors).toEqual([]);
      });

      it('creates the user authorize vouched for when none exists, and says so (createUser, isNewUser, newUser page)', async () => {
        const created: unknown[] = [];
        const signedIn: { isNewUser?: boolean }[] = [];
        const t = auth({ pages: { newUser: '/welcome' }, events: { createUser: (m) => void created.push(m.user), signIn: (m) => void signedIn.push(m) } });
        const email = address('new');
        const res = await signIn(t, email);
        expect(res.location?.pathname).toBe('/welcome');
        const rows = await d.sql<{ id: string; name: string; email: string }>('SELECT id, name, email FROM users WHERE email = $1', [email]);
        expect(rows).toHaveLength(1);
        expect(rows[0]!.id).toMatch(UUID);
        expect(created).toEqual([expect.objectContaining({ id: rows[0]!.id, email, name: email.split('@')[0] })]);
        expect(signedIn).toEqual([expect.objectContaining({ isNewUser: true })]);
      });

      it('finds an existing user by its address and the users table’s own id, links its credentials account once, and creates nothing', async () => {
        const stored = await d.adapter.createUser({ id: `id-${++serial}`, email: address('by-id'), name: 'Stored Name', emailVerified: null });
        // authorize returns the users table's own id and address; the id itself is never looked up (getUser).
        const created: unknown[] = [];
        const linked: unknown[] = [];
        const t = auth({ providers: [passwordProvider(() => ({ id: stored.id, email: stored.email }))], events: { createUser: (m) => void created.push(m), linkAccount: (m) => void linked.push(m.account) } });
        t.logger.debugs.length = 0;
        const res = await signIn(t, 'ignored@example.test');
        expect(res.location?.pathname).toBe('/home');
        // The session row is written in a transaction of its own: it commits only when the answer reports it.
        expect(adapterCalls(t)).toEqual(['getUserByAccount', 'getUserByEmail', 'linkAccount', 'withTransaction', 'createSession']);
        expect(created).toEqual([]);
        expect(linked).toEqual([{ provider: 'credentials', type: 'credentials', providerAccountId: stored.id, userId: stored.id }]);
        const { body } = await readSession(t.client);
        expect(body).toEqual({ user: { name: 'Stored Name', email: stored.email }, expires: new Date(T0.getTime() + 30 * DAY).toISOString() });
        // From then on the account row names the user.
        const from = t.logger.debugs.length;
        await signIn(t, 'ignored@example.test', t.newClient());
        expect(adapterCalls(t, from)).toEqual(['getUserByAccount', 'withTransaction', 'createSession']);
        expect(linked).toHaveLength(1);
      });

      it('never joins a user it did not create by e-mail alone (AccountNotLinked), unless the provider opts in', async () => {
        const email = address('by-email');
        const stored = await d.adapter.createUser({ id: `id-${++serial}`, email, name: 'By Email', emailVerified: null });
        const refusing = auth({ providers: [passwordProvider((e) => ({ id: 'external-42', email: e }))] });
        const refused = await signIn(refusing, email);
        expect(refused.location?.href).toBe(`${ORIGIN}/auth/signin?error=AccountNotLinked`);
        expect(writes(refused)).toEqual([]);
        expect(refusing.logger.errorTypes()).toEqual(['AccountNotLinked']);

        const externalId = `external-${serial}`;
        const opted = { ...passwordProvider((e) => ({ id: externalId, email: e })), allowDangerousEmailAccountLinking: true };
        const t = auth({ providers: [opted] });
        const first = await signIn(t, email);
        const second = await signIn(t, email, t.newClient());
        for (const res of [first, second]) expect((await sessionRow(writes(res)[0]!.value))?.user_id).toBe(stored.id);
        expect(await d.sql('SELECT id FROM users WHERE email = $1', [email])).toHaveLength(1);
      });

      it('replaces the session this browser held: the old row is deleted', async () => {
        const t = auth();
        const email = address();
        const first = writes(await signIn(t, email))[0]!.value;
        const second = writes(await signIn(t, email))[0]!.value;
        expect(second).not.toBe(first);
        expect(await sessionRow(first)).toBeUndefined();
        expect(await sessionRow(second)).toBeDefined();
      });

      it('uses generateSessionToken for the token', async () => {
        let n = 0;
        const t = auth({ session: { generateSessionToken: () => `custom-${serial}-${++n}` } });
        const res = await signIn(t, address());
        const token = writes(res)[0]!.value;
        expect(token).toBe(`custom-${serial}-1`);
        expect(await sessionRow(token)).toBeDefined();
        expect((await readSession(t.client)).body?.user).toBeDefined();
      });
    });

    describe('reading the session', () => {
      it('is one getSessionAndUser (one SQL statement) when no refresh is due, and sets no cookie', async () => {
        const t = auth();
        await signIn(t, address());
        at(60_000);
        const from = t.logger.debugs.length;
        d.queries.length = 0;
        const { res, body } = await readSession(t.client);
        expect(res.status).toBe(200);
        expect(body?.user).toBeDefined();
        expect(adapterCalls(t, from)).toEqual(['getSessionAndUser']);
        expect(d.queries).toHaveLength(1);
        expect(sessionCookies(res)).toEqual([]);
      });

      it('answers null without a cookie, touching no adapter method', async () => {
        const t = auth();
        const { res, body } = await readSession(t.client);
        expect(res.status).toBe(200);
        expect(body).toBeNull();
        expect(adapterCalls(t)).toEqual([]);
      });

      it('deletes an expired session, answers null and clears the cookie', async () => {
        const t = auth({ session: { maxAge: 3600 } });
        const token = writes(await signIn(t, address()))[0]!.value;
        at(3600_000 + 1000);
        // The browser kept the cookie beyond its expiry (it may, e.g. a restored tab): the row decides.
        t.client.cookies.set(SESSION_COOKIE, token, new URL(ORIGIN));
        const from = t.logger.debugs.length;
        const { res, body } = await readSession(t.client);
        expect(body).toBeNull();
        expect(clears(res)).toHaveLength(1);
        expect(adapterCalls(t, from)).toEqual(['getSessionAndUser', 'deleteSession']);
        expect(await sessionRow(token)).toBeUndefined();
      });

      it('extends the expiry at most once per updateAge, and re-issues the cookie only then', async () => {
        const t = auth(); // maxAge 30 days, updateAge 1 day
        const token = writes(await signIn(t, address()))[0]!.value;
        const results: { calls: string[]; cookies: number; expires?: string }[] = [];
        for (const ms of [3_600_000, DAY - 1000, DAY, DAY + 3_600_000, 2 * DAY + 5_000]) {
          at(ms);
          const from = t.logger.debugs.length;
          const { res, body } = await readSession(t.client);
          results.push({ calls: adapterCalls(t, from), cookies: writes(res).length, expires: body?.expires });
        }
        const exp = (ms: number) => new Date(T0.getTime() + ms + 30 * DAY).toISOString();
        expect(results).toEqual([
          { calls: ['getSessionAndUser'], cookies: 0, expires: exp(0) },
          { calls: ['getSessionAndUser'], cookies: 0, expires: exp(0) },
          { calls: ['getSessionAndUser', 'updateSession'], cookies: 1, expires: exp(DAY) },
          { calls: ['getSessionAndUser'], cookies: 0, expires: exp(DAY) },
          { calls: ['getSessionAndUser', 'updateSession'], cookies: 1, expires: exp(2 * DAY + 5_000) },
        ]);
        expect((await sessionRow(token))?.expires).toEqual(new Date(exp(2 * DAY + 5_000)));
        expect(t.client.cookies.getCookie(SESSION_COOKIE)?.expiresAt).toBe(Date.parse(exp(2 * DAY + 5_000)));
      });

      it('with updateAge 0 extends on every access, but writes nothing while the clock stands still', async () => {
        const t = auth({ session: { updateAge: 0 } });
        const token = writes(await signIn(t, address()))[0]!.value;
        const still = await readSession(t.client);
        expect(writes(still.res)).toEqual([]);
        at(1000);
        const from = t.logger.debugs.length;
        const moved = await readSession(t.client);
        expect(adapterCalls(t, from)).toEqual(['getSessionAndUser', 'updateSession']);
        expect(writes(moved.res)[0]?.expires).toBe(T0.getTime() + 1000 + 30 * DAY);
        at(2000);
        expect(writes((await readSession(t.client)).res)).toHaveLength(1);
        expect((await sessionRow(token))?.expires).toEqual(new Date(T0.getTime() + 2000 + 30 * DAY));
      });

      it('gives the session callback {session, user}, and the stored token to neither the callback nor the client', async () => {
        const calls: SessionCallbackParams[] = [];
        const t = auth({ callbacks: { session: (p) => (calls.push(structuredClone(p)), { ...p.session, userId: p.user?.id }) } });
        const email = address();
        const token = writes(await signIn(t, email))[0]!.value;
        const { body } = await readSession(t.client);
        const id = (await d.sql<{ id: string }>('SELECT id FROM users WHERE email = $1', [email]))[0]!.id;
        expect(calls).toHaveLength(1);
        expect(calls[0]).toEqual({
          session: { user: { name: email.split('@')[0], email, image: null }, expires: new Date(T0.getTime() + 30 * DAY).toISOString() },
          user: { id, name: email.split('@')[0], email, emailVerified: null, image: null },
          // When and how the session was last verified (a password sign-in at T0): the step-up record.
          verification: { amr: ['pwd'], authTime: T0 },
        });
        expect(body?.userId).toBe(id);
        expect(JSON.stringify(body)).not.toContain(token);
      });

      it('fires the session event on every check', async () => {
        const seen: unknown[] = [];
        const t = auth({ events: { session: (m) => void seen.push(m) } });
        await signIn(t, address());
        const bodies = [];
        for (let i = 0; i < 3; i++) bodies.push((await readSession(t.client)).body);
        expect(seen).toEqual(bodies.map((session) => ({ session })));
      });
    });

    describe('updating the session', () => {
      it('POST /auth/session reaches the session callback with trigger "update" and newSession (CSRF required)', async () => {
        const calls: SessionCallbackParams[] = [];
        const t = auth({
          callbacks: { session: (p) => (calls.push(structuredClone(p)), p.trigger === 'update' ? { ...p.session, theme: (p.newSession as { theme: string }).theme } : p.session) },
        });
        await signIn(t, address());
        const refused = await t.client.post('/auth/session', { data: { theme: 'dark' } } as never, { json: true });
        expect(refused.status).toBe(400);
        expect(await refused.json()).toBeNull();
        expect(calls).toEqual([]);

        const csrfToken = await t.csrfToken();
        const res = await t.client.post('/auth/session', JSON.stringify({ csrfToken, data: { theme: 'dark' } }), { json: true });
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ theme: 'dark' });
        expect(calls).toHaveLength(1);
        expect(calls[0]).toMatchObject({ trigger: 'update', newSession: { theme: 'dark' }, user: { email: expect.any(String) } });
      });

      it('unstable_update reaches it the same way', async () => {
        const calls: SessionCallbackParams[] = [];
        const config = {
          secret: TEST_SECRET,
          trustHost: true,
          basePath: '/auth',
          adapter: d.adapter,
          providers: [passwordProvider()],
          logger: { error: () => {}, warn: () => {} },
          callbacks: { session: (p: SessionCallbackParams) => (calls.push(structuredClone(p)), { ...p.session, nick: (p.newSession as { nick?: string } | undefined)?.nick }) },
        } satisfies AuthConfig;
        const t = testAuth(config);
        await signIn(t, address());
        const { unstable_update } = AuthInit(config);
        const request = new Request(`${ORIGIN}/settings`, { headers: { cookie: t.client.cookies.header(new URL(ORIGIN)) } });
        const session = await unstable_update(request, { nick: 'ace' });
        expect(session).toMatchObject({ nick: 'ace', user: { email: expect.any(String) } });
        expect(calls.at(-1)).toMatchObject({ trigger: 'update', newSession: { nick: 'ace' } });
      });
    });

    describe('signing out', () => {
      it('deletes the row, clears the cookie and emits signOut with the session', async () => {
        const seen: unknown[] = [];
        const t = auth({ events: { signOut: (m) => void seen.push(m) } });
        const email = address();
        const token = writes(await signIn(t, email))[0]!.value;
        const userId = (await sessionRow(token))!.user_id;
        const csrfToken = await t.csrfToken();
        const res = await t.client.post('/auth/signout', { csrfToken, callbackUrl: '/bye' });
        expect(res.status).toBe(302);
        expect(res.location?.pathname).toBe('/bye');
        expect(clears(res)).toHaveLength(1);
        expect(await sessionRow(token)).toBeUndefined();
        expect(seen).toEqual([{ session: { sessionToken: storedSessionToken(token), userId, expires: new Date(T0.getTime() + 30 * DAY), amr: ['pwd'], authTime: T0 } }]);
        expect((await readSession(t.client)).body).toBeNull();
      });

      it('ends only this browser’s session: another device of the same user stays signed in', async () => {
        const t = auth();
        const email = address();
        const laptop = t.client;
        const phone = t.newClient();
        await signIn(t, email, laptop);
        const phoneToken = writes(await signIn(t, email, phone))[0]!.value;
        await laptop.post('/auth/signout', { csrfToken: await t.csrfToken(laptop) });
        expect((await readSession(laptop)).body).toBeNull();
        expect((await readSession(phone)).body?.user?.email).toBe(email);
        expect(await sessionRow(phoneToken)).toBeDefined();
      });
    });
  });
}

sessionSuite('database sessions on PGlite', pgliteDatabase);

const url = process.env.DATABASE_URL;
describe('on the PostgreSQL server (DATABASE_URL)', () => {
  sessionSuite('database sessions on a pg Pool', () => serverSchema(url!));
});
