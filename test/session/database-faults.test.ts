// Database sessions under bad input and faults: a database that cannot be reached or fails mid-flow, forged,
// unknown and oversized tokens, another user's expired token, and SQL-looking tokens and e-mail addresses.
// Every case ends in its typed error or `null`, never a 500 and never a session cookie.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdapterError, ServiceUnavailable, type AuthError } from '../../src/core/errors.js';
import type { AuthConfig } from '../../src/core/options.js';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { AuthInit } from '../../src/http/integrations/fetch.js';
import { getSession } from '../../src/index.js';
import { ORIGIN, testAuth, TEST_SECRET } from '../support/auth-app.js';
import {
  adapterCalls,
  clears,
  closedPort,
  passwordProvider,
  pgliteDatabase,
  readSession,
  sessionCookies,
  SESSION_COOKIE,
  signIn,
  writes,
  type TestDatabase,
} from './database-harness.js';
import { storedSessionToken } from '../../src/session/session-token.js';

const origin = new URL(ORIGIN);
let serial = 0;
const address = (who = 'user') => `${who}-${++serial}@example.test`;

/** The AdapterErrors a test instance logged, as `method` names. */
function adapterFailures(errors: Error[]): string[] {
  return errors.filter((e): e is AdapterError => e instanceof AdapterError).map((e) => String(e.cause?.method));
}

describe('a database that cannot be reached (pg Pool on a closed port)', () => {
  let pool: pg.Pool;
  let config: AuthConfig;
  beforeAll(async () => {
    pool = new pg.Pool({ host: '127.0.0.1', port: await closedPort(), user: 'nobody', database: 'none', connectionTimeoutMillis: 2000 });
    config = { adapter: PostgresAdapter(pool), providers: [passwordProvider()] };
  });
  afterAll(async () => {
    await pool?.end();
  });

  it('session reads answer 503 ServiceUnavailable (never "signed out"), log it, and keep the cookie for when it is back', async () => {
    const t = testAuth(config);
    t.client.cookies.set(SESSION_COOKIE, randomUUID(), origin);
    const { res, body } = await readSession(t.client);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(body).toMatchObject({ error: 'ServiceUnavailable', retryAfter: 5 });
    expect(sessionCookies(res)).toEqual([]);
    expect(adapterFailures(t.logger.errors)).toEqual(['getSessionAndUser']);
    expect((t.logger.errors[0] as AuthError).cause?.err).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('session updates answer 503', async () => {
    const t = testAuth(config);
    t.client.cookies.set(SESSION_COOKIE, randomUUID(), origin);
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/session', JSON.stringify({ csrfToken, data: { x: 1 } }), { json: true });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: 'ServiceUnavailable' });
    expect(adapterFailures(t.logger.errors)).toEqual(['getSessionAndUser']);
  });

  it('application code reading the session gets a ServiceUnavailable, not a signed-out null', async () => {
    const full = { ...config, secret: TEST_SECRET, trustHost: true, logger: { error: () => {} } };
    const { auth } = AuthInit(full);
    const request = () => new Request(`${ORIGIN}/dashboard`, { headers: { cookie: `${SESSION_COOKIE}=${randomUUID()}` } });
    await expect(getSession(request(), full)).rejects.toBeInstanceOf(ServiceUnavailable);
    // `auth(handler)` is middleware: it answers the outage itself (503, Retry-After), never with a null session.
    const answered = await auth(async () => Response.json(await auth()))(request());
    expect(answered.status).toBe(503);
    expect(answered.headers.get('retry-after')).toBe('5');
  });

  it('credentials sign-in lands on the error page with ServiceUnavailable (not Configuration), sets no session cookie, logs it', async () => {
    const t = testAuth(config);
    const res = await signIn(t, address());
    expect(res.status).toBe(302);
    expect(res.location?.pathname).toBe('/auth/error');
    expect(res.location?.searchParams.get('error')).toBe('ServiceUnavailable');
    expect(writes(res)).toEqual([]);
    expect(t.logger.errorTypes()).toEqual(['ServiceUnavailable']);
    // The first read of a credentials sign-in: its `credentials` account row.
    expect((t.logger.errors[0] as AuthError).cause).toMatchObject({ method: 'getUserByAccount', state: 'failed.callbackRoute' });
  });

  it('sign-out still clears the cookie and redirects; the signOut event gets no session', async () => {
    const seen: unknown[] = [];
    const t = testAuth({ ...config, events: { signOut: (m) => void seen.push(m) } });
    t.client.cookies.set(SESSION_COOKIE, randomUUID(), origin);
    const res = await t.client.post('/auth/signout', { csrfToken: await t.csrfToken(), callbackUrl: '/bye' });
    expect(res.status).toBe(302);
    expect(res.location?.pathname).toBe('/bye');
    expect(clears(res)).toHaveLength(1);
    expect(adapterFailures(t.logger.errors)).toEqual(['deleteSession']);
    expect(seen).toEqual([{ session: null }]);
  });
});

describe('on PGlite', () => {
  let d: TestDatabase;
  beforeAll(async () => {
    d = await pgliteDatabase();
  });
  afterAll(async () => {
    await d?.close();
  });

  const auth = (config: Partial<AuthConfig> = {}) => testAuth({ adapter: d.adapter, providers: [passwordProvider()], ...config });
  /** The adapter with `method` replaced by one that rejects like a dropped connection. */
  const failing = (method: 'createSession' | 'getSessionAndUser' | 'updateSession') => {
    const fail = () => Promise.reject(Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' }));
    // The method fails in a transaction too (the session is written in one).
    return {
      ...d.adapter,
      [method]: fail,
      withTransaction: <T>(fn: (tx: typeof d.adapter) => Promise<T>, options?: { timeout?: number }) => d.adapter.withTransaction((tx) => fn({ ...tx, [method]: fail }), options),
    };
  };
  const sessionCount = async () => Number((await d.sql<{ n: string }>('SELECT count(*)::int AS n FROM sessions'))[0]!.n);

  describe('failing mid-flow', () => {
    it('createSession failing after the user was resolved: ServiceUnavailable, no cookie, no session row', async () => {
      const t = auth({ adapter: failing('createSession') });
      const email = address();
      const before = await sessionCount();
      const res = await signIn(t, email);
      expect(res.location?.pathname).toBe('/auth/error');
      expect(res.location?.searchParams.get('error')).toBe('ServiceUnavailable');
      expect(sessionCookies(res)).toEqual([]);
      expect(adapterFailures(t.logger.errors)).toEqual(['createSession']);
      expect(await sessionCount()).toBe(before);
      // The user and its credentials account were written together; the next sign-in finds the user through it.
      const ok = auth();
      const again = await signIn(ok, email, ok.client);
      expect(again.location?.pathname).toBe('/home');
      expect(await d.sql('SELECT id FROM users WHERE email = $1', [email])).toHaveLength(1);
    });

    it('getSessionAndUser failing: 503, logged', async () => {
      const good = auth();
      await signIn(good, address());
      const t = auth({ adapter: failing('getSessionAndUser') });
      t.client.cookies.set(SESSION_COOKIE, good.client.cookies.get(SESSION_COOKIE)!, origin);
      const { res, body } = await readSession(t.client);
      expect([res.status, body?.error]).toEqual([503, 'ServiceUnavailable']);
      expect(adapterFailures(t.logger.errors)).toEqual(['getSessionAndUser']);
    });

    it('updateSession failing when a refresh is due: the valid session is still answered, unextended', async () => {
      const good = auth({ session: { updateAge: 0 } });
      const token = writes(await signIn(good, address()))[0]!.value;
      const [{ expires }] = await d.sql<{ expires: Date }>('SELECT expires FROM sessions WHERE session_token = $1', [storedSessionToken(token)]);
      await new Promise((r) => setTimeout(r, 5)); // let the refresh be due (updateAge 0 and a moved clock)
      const t = auth({ adapter: failing('updateSession'), session: { updateAge: 0 } });
      t.client.cookies.set(SESSION_COOKIE, token, origin);
      const { res, body } = await readSession(t.client);
      expect(res.status).toBe(200);
      expect(body?.expires).toBe(expires.toISOString());
      expect(writes(res)).toEqual([]);
      expect(adapterFailures(t.logger.errors)).toEqual(['updateSession']);
    });
  });

  it('a throwing session callback: 200 null, SessionTokenError logged, the row kept', async () => {
    const t = auth({ callbacks: { session: () => Promise.reject(new Error('profile service down')) } });
    const token = writes(await signIn(t, address()))[0]!.value;
    const { res, body } = await readSession(t.client);
    expect([res.status, body]).toEqual([200, null]);
    expect(t.logger.errorTypes()).toEqual(['SessionTokenError']);
    expect(await d.sql('SELECT 1 FROM sessions WHERE session_token = $1', [storedSessionToken(token)])).toHaveLength(1);
  });

  describe('tokens that are not a live session', () => {
    it('an unknown (well-formed) token: null, the cookie cleared, one lookup', async () => {
      const t = auth();
      t.client.cookies.set(SESSION_COOKIE, randomUUID(), origin);
      const { res, body } = await readSession(t.client);
      expect(body).toBeNull();
      expect(clears(res)).toHaveLength(1);
      expect(adapterCalls(t)).toEqual(['getSessionAndUser']);
      expect(t.logger.errors).toEqual([]);
    });

    it('a forged token (a JWT from the jwt strategy, garbage, a UUID one character off): null', async () => {
      const jwtApp = testAuth({ providers: [passwordProvider((email) => ({ id: 'u1', email }))] });
      await signIn(jwtApp, address());
      const jwt = jwtApp.client.cookies.get(SESSION_COOKIE)!;
      for (const forged of [jwt, 'not-a-token', '0'.repeat(36), `${randomUUID()}x`]) {
        const t = auth();
        t.client.cookies.set(SESSION_COOKIE, forged, origin);
        const { res, body } = await readSession(t.client);
        expect([res.status, body]).toEqual([200, null]);
        expect(t.logger.errors).toEqual([]);
      }
    });

    it('an oversized token, or one with control characters, is refused before it reaches the database', async () => {
      for (const bad of ['a'.repeat(2000), encodeURIComponent('\u0000\u0000'), encodeURIComponent(`${randomUUID()}\n`)]) {
        const t = auth();
        t.client.cookies.set(SESSION_COOKIE, bad, origin);
        const { res, body } = await readSession(t.client);
        expect([res.status, body]).toEqual([200, null]);
        expect(clears(res)).toHaveLength(1);
        expect(adapterCalls(t)).toEqual([]);
        expect(t.logger.errors).toEqual([]);
      }
    });

    it("another user's expired session token: null, and the row is deleted; that user's live sessions stay", async () => {
      const t = auth({ session: { maxAge: 60 } });
      const victimEmail = address('victim');
      const oldToken = writes(await signIn(t, victimEmail))[0]!.value;
      await d.sql(`UPDATE sessions SET expires = now() - interval '1 minute' WHERE session_token = $1`, [storedSessionToken(oldToken)]);
      const live = t.newClient();
      const liveToken = writes(await signIn(t, victimEmail, live))[0]!.value;

      const attacker = t.newClient();
      await signIn(t, address('attacker'), attacker);
      attacker.cookies.set(SESSION_COOKIE, oldToken, origin);
      const { res, body } = await readSession(attacker);
      expect(body).toBeNull();
      expect(clears(res)).toHaveLength(1);
      expect(await d.sql('SELECT 1 FROM sessions WHERE session_token = $1', [storedSessionToken(oldToken)])).toEqual([]);
      expect((await readSession(live)).body?.user?.email).toBe(victimEmail);
      expect(await d.sql('SELECT 1 FROM sessions WHERE session_token = $1', [storedSessionToken(liveToken)])).toHaveLength(1);
    });
  });

  describe('SQL-looking input is data', () => {
    const hostile = [`' OR '1'='1`, `x'; DELETE FROM sessions; --`, `") OR 1=1; DROP TABLE users; --`, `\\'; SELECT pg_sleep(5); --`];

    it('session tokens in the cookie match nothing and change nothing', async () => {
      const t = auth();
      await signIn(t, address());
      const before = await sessionCount();
      for (const token of hostile) {
        const c = t.newClient();
        c.cookies.set(SESSION_COOKIE, encodeURIComponent(token), origin);
        const started = Date.now();
        const { res, body } = await readSession(c);
        expect([res.status, body]).toEqual([200, null]);
        expect(Date.now() - started).toBeLessThan(2000);
      }
      expect(await sessionCount()).toBe(before);
      expect(t.logger.errors).toEqual([]);
    });

    it('generated session tokens are stored and matched exactly', async () => {
      for (const token of hostile) {
        const t = auth({ session: { generateSessionToken: () => `${token} ${randomUUID()}` } });
        const email = address();
        const stored = writes(await signIn(t, email))[0]!.value;
        expect(decodeURIComponent(stored).startsWith(token)).toBe(true);
        expect(await d.sql('SELECT 1 FROM sessions WHERE session_token = $1', [storedSessionToken(decodeURIComponent(stored))])).toHaveLength(1);
        expect((await readSession(t.client)).body?.user?.email).toBe(email);
      }
      expect(await d.sql(`SELECT to_regclass('users') IS NOT NULL AS ok`)).toEqual([{ ok: true }]);
    });

    it('e-mail addresses are stored as written and matched exactly', async () => {
      const usersBefore = Number((await d.sql<{ n: number }>('SELECT count(*)::int AS n FROM users'))[0]!.n);
      for (const [i, email] of [`"x'); DROP TABLE users; --"@example.test`, `a' OR 'a'='a-${serial}@example.test`].entries()) {
        const t = auth();
        await signIn(t, email);
        await signIn(t, email, t.newClient()); // found again by e-mail, not created twice
        expect((await readSession(t.client)).body?.user?.email).toBe(email);
        expect(await d.sql('SELECT email FROM users WHERE email = $1', [email])).toEqual([{ email }]);
        expect(Number((await d.sql<{ n: number }>('SELECT count(*)::int AS n FROM users'))[0]!.n)).toBe(usersBefore + i + 1);
      }
    });
  });
});
