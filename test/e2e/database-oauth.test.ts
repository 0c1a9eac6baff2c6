// OpenID Connect sign-in against a real OpenID Provider with database sessions: users, accounts and sessions in
// PGlite (and, with DATABASE_URL, in Auth.js's own schema through @auth/pg-adapter). When the database fails
// between creating the user and linking the account, nothing is left half-written: the transaction rolls back,
// or, for an adapter without transactions, the user is deleted again.
import AuthjsPgAdapter from '@auth/pg-adapter';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdapterError, type AuthError } from '../../src/core/errors.js';
import type { AuthConfig } from '../../src/core/options.js';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import type { Adapter } from '../../src/core/adapter.js';
import { OIDC } from '../../src/providers/oauth.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';
import { adapterCalls, closedPort, passwordProvider, pgliteDatabase, readSession, serverSchema, signIn, writes, type TestDatabase } from '../session/database-harness.js';
import { authjsSchema } from '../support/authjs-pg-schema.js';
import { startOidcProvider, type OidcProviderHarness } from './peers/oidc.js';
import { storedSessionToken } from '../../src/session/session-token.js';

/** An OP account whose id (our providerAccountId), e-mail and name are all SQL-shaped. */
const HOSTILE_SUB = `o'reilly' OR '1'='1'); DROP TABLE accounts; --`;
const accounts: Record<string, { email: string; email_verified?: boolean; name: string }> = {
  alice: { email: 'alice@example.test', email_verified: true, name: 'Alice Liddell' },
  bob: { email: 'bob@example.test', email_verified: true, name: 'Bob Builder' },
  carol: { email: 'carol@example.test', email_verified: true, name: 'Carol Jones' },
  'doomed-1': { email: 'doomed-1@example.test', name: 'Doomed One' },
  'doomed-2': { email: 'doomed-2@example.test', name: 'Doomed Two' },
  'doomed-3': { email: 'doomed-3@example.test', name: 'Doomed Three' },
  [HOSTILE_SUB]: { email: `o'reilly'--@example.test`, name: `Robert'); DROP TABLE users; --` },
};

let op: OidcProviderHarness;
beforeAll(async () => {
  op = await startOidcProvider({ accounts });
});
afterAll(async () => {
  await op?.stop();
});

const oidc = () => OIDC({ id: 'oidc', name: 'Test OP', issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, checks: ['pkce', 'state', 'nonce'] });

/** Signs `client` in at the OP as `who` and returns our callback's response. */
async function oidcSignIn(t: TestAuth, who: string, client: TestClient = t.client) {
  const csrfToken = await t.csrfToken(client);
  const start = await client.post('/auth/signin/oidc', { csrfToken, callbackUrl: '/after' });
  expect(start.location?.origin).toBe(op.issuer);
  return client.submit(await op.login(start.location!.href, who));
}

function recordEvents() {
  const seen: string[] = [];
  const events: AuthConfig['events'] = {
    createUser: () => void seen.push('createUser'),
    linkAccount: () => void seen.push('linkAccount'),
    signIn: (m) => void seen.push(`signIn${m.isNewUser ? ':new' : ''}`),
  };
  return { seen, events };
}

describe('on PGlite with authchart’s PostgresAdapter', () => {
  let d: TestDatabase;
  beforeAll(async () => {
    d = await pgliteDatabase();
    // A database that refuses to store some accounts: the failure happens inside PostgreSQL, mid-flow.
    await d.sql(`CREATE FUNCTION refuse_doomed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'accounts storage unavailable' USING ERRCODE = '53100'; END $$`);
    await d.sql(`CREATE TRIGGER refuse_doomed BEFORE INSERT ON accounts FOR EACH ROW
      WHEN (NEW.provider_account_id LIKE 'doomed-%') EXECUTE FUNCTION refuse_doomed()`);
  });
  afterAll(async () => {
    await d?.close();
  });

  const users = (email: string) => d.sql('SELECT id FROM users WHERE email = $1', [email]);

  it('a first sign-in creates the user, links the account and stores a session; the next one finds them', async () => {
    const { seen, events } = recordEvents();
    const t = testAuth({ adapter: d.adapter, providers: [oidc()], events });
    const res = await oidcSignIn(t, 'alice');
    expect(res.location?.pathname).toBe('/after');
    const token = writes(res)[0]!.value;
    const [user] = await d.sql<{ id: string }>('SELECT id FROM users WHERE email = $1', ['alice@example.test']);
    expect(await d.sql('SELECT user_id, type FROM accounts WHERE provider = $1 AND provider_account_id = $2', ['oidc', 'alice'])).toEqual([
      { user_id: user!.id, type: 'oidc' },
    ]);
    expect(await d.sql('SELECT user_id FROM sessions WHERE session_token = $1', [storedSessionToken(token)])).toEqual([{ user_id: user!.id }]);
    expect(seen).toEqual(['createUser', 'linkAccount', 'signIn:new']);
    expect((await readSession(t.client)).body?.user).toMatchObject({ name: 'Alice Liddell', email: 'alice@example.test' });

    seen.length = 0;
    const again = await oidcSignIn(t, 'alice', t.newClient());
    expect(again.location?.pathname).toBe('/after');
    expect(seen).toEqual(['signIn']);
    expect(await users('alice@example.test')).toHaveLength(1);
  });

  it('signed in with credentials, an OIDC sign-in links that account to the signed-in user', async () => {
    const t = testAuth({ adapter: d.adapter, providers: [oidc(), passwordProvider()] });
    await signIn(t, 'bob.local@example.test');
    const [local] = await d.sql<{ id: string }>('SELECT id FROM users WHERE email = $1', ['bob.local@example.test']);
    const res = await oidcSignIn(t, 'bob');
    expect(res.location?.pathname).toBe('/after');
    expect(await d.sql('SELECT user_id FROM accounts WHERE provider_account_id = $1', ['bob'])).toEqual([{ user_id: local!.id }]);
    expect(await users('bob@example.test')).toEqual([]);
    expect((await readSession(t.client)).body?.user?.email).toBe('bob.local@example.test');
  });

  it('a provider account id, e-mail and name that look like SQL are stored and matched as data', async () => {
    const t = testAuth({ adapter: d.adapter, providers: [oidc()] });
    const res = await oidcSignIn(t, HOSTILE_SUB);
    expect(res.location?.pathname).toBe('/after');
    const rows = await d.sql<{ provider_account_id: string; email: string; name: string }>(
      'SELECT a.provider_account_id, u.email, u.name FROM accounts a JOIN users u ON u.id = a.user_id WHERE a.provider_account_id = $1',
      [HOSTILE_SUB],
    );
    expect(rows).toEqual([{ provider_account_id: HOSTILE_SUB, email: accounts[HOSTILE_SUB]!.email, name: accounts[HOSTILE_SUB]!.name }]);
    // Signing in again finds the owner by that exact id: no second user.
    expect((await oidcSignIn(t, HOSTILE_SUB, t.newClient())).location?.pathname).toBe('/after');
    expect(await users(accounts[HOSTILE_SUB]!.email)).toHaveLength(1);
    expect(await d.sql(`SELECT to_regclass('accounts') IS NOT NULL AS a, to_regclass('users') IS NOT NULL AS u`)).toEqual([{ a: true, u: true }]);
  });

  async function expectNothingHalfWritten(t: TestAuth, who: string, res: Awaited<ReturnType<typeof oidcSignIn>>) {
    expect(res.location?.pathname).toBe('/auth/error');
    // The trigger raises SQLSTATE 53100 (insufficient resources): a store outage, answered as one (503 page), not as
    // a configuration problem; the error is still an AdapterError.
    expect(res.location?.searchParams.get('error')).toBe('ServiceUnavailable');
    expect(writes(res)).toEqual([]);
    expect(t.logger.errorTypes()).toEqual(['ServiceUnavailable']);
    expect(t.logger.errors[0]).toBeInstanceOf(AdapterError);
    const error = t.logger.errors[0] as AuthError;
    expect(error.cause).toMatchObject({ method: 'linkAccount', state: 'failed.callbackRoute' });
    expect(error.cause?.err).toMatchObject({ code: '53100' });
    expect(await users(accounts[who]!.email)).toEqual([]);
    expect(await d.sql('SELECT 1 FROM accounts WHERE provider_account_id = $1', [who])).toEqual([]);
    expect((await readSession(t.client)).body).toBeNull();
  }

  it('linking fails inside the transaction: the new user is rolled back, the browser is told the store is unavailable', async () => {
    const { seen, events } = recordEvents();
    const t = testAuth({ adapter: d.adapter, providers: [oidc()], events });
    const res = await oidcSignIn(t, 'doomed-1');
    await expectNothingHalfWritten(t, 'doomed-1', res);
    expect(adapterCalls(t)).toEqual(expect.arrayContaining(['withTransaction', 'createUser', 'linkAccount']));
    expect(adapterCalls(t)).not.toContain('deleteUser');
    expect(seen).toEqual([]);
  });

  it('with an adapter lacking withTransaction, the new user is deleted again', async () => {
    const { withTransaction: _none, ...plain } = d.adapter;
    const t = testAuth({ adapter: plain as Adapter, providers: [oidc()] });
    const res = await oidcSignIn(t, 'doomed-2');
    await expectNothingHalfWritten(t, 'doomed-2', res);
    const calls = adapterCalls(t);
    expect(calls.slice(calls.indexOf('createUser'))).toEqual(['createUser', 'linkAccount', 'deleteUser']);
  });

  it('a database that cannot be reached: ServiceUnavailable (an AdapterError) logged, no session cookie', async () => {
    const pool = new pg.Pool({ host: '127.0.0.1', port: await closedPort(), user: 'nobody', database: 'none', connectionTimeoutMillis: 2000 });
    try {
      const t = testAuth({ adapter: PostgresAdapter(pool), providers: [oidc()] });
      const res = await oidcSignIn(t, 'doomed-3');
      expect(res.location?.searchParams.get('error')).toBe('ServiceUnavailable');
      expect(writes(res)).toEqual([]);
      expect(t.logger.errors.map((e) => [e instanceof AdapterError, (e as AuthError).cause?.method])).toEqual([[true, 'getUserByAccount']]);
    } finally {
      await pool.end();
    }
  });
});

const url = process.env.DATABASE_URL;
describe('on the PostgreSQL server with @auth/pg-adapter (Auth.js schema, numeric ids)', () => {
  let d: TestDatabase & { pool: pg.Pool };
  let adapter: Adapter;
  beforeAll(async () => {
    d = await serverSchema(url!, async (pool) => {
      for (const statement of authjsSchema) await pool.query(statement);
    });
    adapter = AuthjsPgAdapter(d.pool);
  });
  afterAll(async () => {
    await d?.close();
  });

  it('creates the user and the account, signs in again as the owner, and links a second provider account to the signed-in user', async () => {
    const { seen, events } = recordEvents();
    const t = testAuth({ adapter, providers: [oidc(), passwordProvider()], events });
    const first = await oidcSignIn(t, 'carol');
    expect(first.location?.pathname).toBe('/after');
    const [carol] = await d.sql<{ id: number }>('SELECT id FROM users WHERE email = $1', ['carol@example.test']);
    expect(typeof carol!.id).toBe('number');
    expect(await d.sql('SELECT "userId" FROM sessions WHERE "sessionToken" = $1', [storedSessionToken(writes(first)[0]!.value)])).toEqual([{ userId: carol!.id }]);
    expect(seen).toEqual(['createUser', 'linkAccount', 'signIn:new']);

    // Signed in as carol (numeric id 'N' from the session vs. the owner's id N): the same user, not a conflict.
    const again = await oidcSignIn(t, 'carol');
    expect(again.location?.pathname).toBe('/after');
    expect(t.logger.errors).toEqual([]);

    // Still signed in as carol, bob's OP account is linked to her.
    const linked = await oidcSignIn(t, 'bob');
    expect(linked.location?.pathname).toBe('/after');
    expect(await d.sql('SELECT "userId" FROM accounts WHERE "providerAccountId" = $1', ['bob'])).toEqual([{ userId: carol!.id }]);
    expect((await readSession(t.client)).body?.user?.email).toBe('carol@example.test');

    // Someone else signed in cannot take carol's account over.
    const other = t.newClient();
    await signIn(t, 'mallory@example.test', other);
    const refused = await oidcSignIn(t, 'carol', other);
    expect(refused.location?.searchParams.get('error')).toBe('OAuthAccountNotLinked');
  });
});
