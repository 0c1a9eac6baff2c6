// Compatibility proof: Auth.js's own `@auth/pg-adapter`, unchanged, is an authchart Adapter — it type-checks as
// one, passes the start-up check for the database and e-mail features, and works through wrapAdapter.
// Runs on the real server (DATABASE_URL), in a schema of its own holding the tables that adapter queries.

import { randomBytes, randomUUID } from 'node:crypto';
import AuthjsPgAdapter from '@auth/pg-adapter';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { AdapterError, MissingAdapterMethods } from '../../src/core/errors.js';
import type { Adapter } from '../../src/core/adapter.js';
import { assertAdapter, wrapAdapter, type WrappedAdapter } from '../../src/core/adapter-wrap.js';
import { createUserWithAccount } from '../../src/adapters/create-user.js';
import { authjsSchema } from '../support/authjs-pg-schema.js';

const url = process.env.DATABASE_URL;

// The tables `@auth/pg-adapter` 1.11 queries, with SERIAL (numeric) ids as Auth.js documents them: see the last test.

// Compile-time proof, independent of the server: the Auth.js adapter's declared type is assignable to ours.
expectTypeOf(AuthjsPgAdapter).returns.toExtend<Adapter>();
function asAuthchartAdapter(pool: pg.Pool): Adapter {
  const adapter: Adapter = AuthjsPgAdapter(pool); // the assignment the issue asks for
  return adapter;
}

describe('@auth/pg-adapter through authchart (DATABASE_URL)', () => {
  const schema = `authchart_authjs_${process.pid}_${randomBytes(4).toString('hex')}`;
  let admin: pg.Pool;
  let pool: pg.Pool;
  let raw: Adapter;
  let adapter: WrappedAdapter;
  const logged: string[] = [];

  const email = () => `authjs-${randomUUID()}@example.test`;
  const inOneHour = () => new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_000);

  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: url, max: 1 });
    await admin.query(`CREATE SCHEMA ${schema}`);
    pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 4 });
    for (const statement of authjsSchema) await pool.query(statement);
    raw = asAuthchartAdapter(pool);
    adapter = wrapAdapter(raw, { debug: (code) => logged.push(code) });
  });
  afterAll(async () => {
    await pool?.end();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  it('passes assertAdapter for the database strategy and e-mail sign-in', () => {
    expect(() => assertAdapter(raw, { database: true, email: true })).not.toThrow();
  });

  it('fails assertAdapter for WebAuthn, naming the methods it lacks', () => {
    expect(() => assertAdapter(raw, { webauthn: true })).toThrow(MissingAdapterMethods);
    expect(() => assertAdapter(raw, { webauthn: true })).toThrow(
      /getAccount, getAuthenticator, createAuthenticator, listAuthenticatorsByUserId, updateAuthenticatorCounter/,
    );
  });

  it('has no withTransaction, so the flow layer knows to compensate instead', () => {
    expect(adapter.withTransaction).toBeUndefined();
  });

  it('users, accounts and sessions through wrapAdapter', async () => {
    logged.length = 0;
    const address = email();
    const user = await adapter.createUser({ id: randomUUID(), name: 'Ada', email: address, emailVerified: null });
    const id = String(user.id);
    expect(user).toMatchObject({ name: 'Ada', email: address, emailVerified: null });
    expect((await adapter.getUser(id))?.email).toBe(address);
    expect(String((await adapter.getUserByEmail(address))?.id)).toBe(id);

    const verified = new Date('2026-01-02T03:04:05.000Z');
    expect((await adapter.updateUser({ id, emailVerified: verified })).emailVerified).toEqual(verified);

    const providerAccountId = randomUUID();
    await adapter.linkAccount({ userId: id, type: 'oauth', provider: 'github', providerAccountId, access_token: 'at' });
    expect((await adapter.getUserByAccount({ provider: 'github', providerAccountId }))?.email).toBe(address);

    const sessionToken = randomUUID();
    await adapter.createSession({ sessionToken, userId: id, expires: inOneHour() });
    const found = await adapter.getSessionAndUser(sessionToken);
    expect(found?.session.sessionToken).toBe(sessionToken);
    expect(found?.user.email).toBe(address);
    const later = new Date(inOneHour().getTime() + 86_400_000);
    await adapter.updateSession({ sessionToken, expires: later });
    expect((await adapter.getSessionAndUser(sessionToken))?.session.expires).toEqual(later);
    await adapter.deleteSession(sessionToken);
    expect(await adapter.getSessionAndUser(sessionToken)).toBeNull();
    expect(await adapter.getSessionAndUser(randomUUID())).toBeNull();

    expect(logged).toContain('adapter_getSessionAndUser');
    expect(logged[0]).toBe('adapter_createUser');
  });

  it('verification tokens: single use, wrong identifier null, concurrent uses give one success', async () => {
    const vt = { identifier: email(), token: 'hash-' + randomUUID(), expires: inOneHour() };
    await adapter.createVerificationToken(vt);
    expect(await adapter.useVerificationToken({ identifier: email(), token: vt.token })).toBeNull();
    expect(await adapter.useVerificationToken(vt)).toEqual(vt);
    expect(await adapter.useVerificationToken(vt)).toBeNull();

    const raced = { identifier: email(), token: 'hash-' + randomUUID(), expires: inOneHour() };
    await adapter.createVerificationToken(raced);
    const results = await Promise.all([1, 2, 3, 4].map(() => adapter.useVerificationToken(raced)));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
  });

  it('injection-looking e-mails are stored and matched as data', async () => {
    const hostile = `' OR '1'='1 ${randomUUID()}`;
    await adapter.createUser({ id: randomUUID(), email: hostile, emailVerified: null });
    expect((await adapter.getUserByEmail(hostile))?.email).toBe(hostile);
    expect(await adapter.getUserByEmail(`' OR '1'='1`)).toBeNull();
  });

  it('its failures reach authchart as AdapterError', async () => {
    // It throws when userId is missing, and the server refuses a userId that is not an integer.
    const missing = await adapter
      .createSession({ sessionToken: 's', userId: undefined as unknown as string, expires: inOneHour() })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(AdapterError);
    const refused = (await adapter
      .createSession({ sessionToken: 's', userId: 'not-a-number', expires: inOneHour() })
      .catch((e: unknown) => e)) as AdapterError;
    expect(refused).toBeInstanceOf(AdapterError);
    expect((refused.cause?.err as { code?: string }).code).toBe('22P02'); // invalid_text_representation
  });

  it('createUserWithAccount compensates a failed link with its deleteUser', async () => {
    const failing = wrapAdapter(
      { ...raw, linkAccount: () => Promise.reject(new Error('link failed')) },
      { debug: () => {} },
    );
    const address = email();
    await expect(
      createUserWithAccount(failing, { id: randomUUID(), email: address, emailVerified: null }, {
        type: 'oauth',
        provider: 'github',
        providerAccountId: randomUUID(),
      }),
    ).rejects.toBeInstanceOf(AdapterError);
    expect(await adapter.getUserByEmail(address)).toBeNull();
  });

  it('hands back numeric ids with Auth.js’s SERIAL schema (callers must not assume string ids)', async () => {
    const user = await adapter.createUser({ id: randomUUID(), email: email(), emailVerified: null });
    expect(typeof user.id).toBe('number');
  });
});
