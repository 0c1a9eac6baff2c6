// The adapter contract and the database checks on embedded PGlite: always run, nothing to set up.
// One PGlite instance for the whole file (its start costs seconds); tests isolate themselves by unique data.

import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdapterError } from '../../src/core/errors.js';
import { migrations, PostgresAdapter, toQueryable } from '../../src/adapters/postgres/index.js';
import { wrapAdapter } from '../../src/core/adapter-wrap.js';
import { createUserWithAccount } from '../../src/adapters/create-user.js';
import { newAccount, newUser, runAdapterContract } from './contract.js';
import { runDatabaseChecks } from './database-contract.js';

let db: PGlite;

beforeAll(async () => {
  db = await PGlite.create();
  await PostgresAdapter(db).migrate();
});
afterAll(async () => {
  if (!db.closed) await db.close();
});

runAdapterContract('PostgresAdapter on PGlite', async () => ({ adapter: PostgresAdapter(db), cleanup: async () => {} }), {
  withTransaction: true,
});

runDatabaseChecks('PGlite', async () => ({ db, cleanup: async () => {} }));

describe('PostgresAdapter on PGlite: authchart extensions', () => {
  const logger = { debug: () => {} };

  it('createUserWithAccount writes both in one transaction', async () => {
    const adapter = wrapAdapter(PostgresAdapter(db), logger);
    const user = newUser();
    const created = await createUserWithAccount(adapter, user, newAccount('replaced-by-the-new-user-id'));
    expect(created.account.userId).toBe(user.id);
    expect(created.user).toEqual(user);
    expect((await adapter.getUserByAccount(created.account))?.id).toBe(user.id);
  });

  it('createUserWithAccount leaves no user behind when linking fails', async () => {
    const adapter = wrapAdapter(PostgresAdapter(db), logger);
    const first = newUser();
    const taken = newAccount(first.id);
    await createUserWithAccount(adapter, first, taken);
    const second = newUser();
    // Same provider account again: the primary key refuses it, and the second user must be rolled back.
    await expect(createUserWithAccount(adapter, second, taken)).rejects.toBeInstanceOf(AdapterError);
    expect(await adapter.getUser(second.id)).toBeNull();
    expect(await adapter.getUserByEmail(second.email!)).toBeNull();
  });

  it('autoMigrate creates the schema on first use, once', async () => {
    // In an empty schema inside a transaction that is rolled back, so the shared database is untouched.
    const rollback = new Error('rollback');
    await expect(
      toQueryable(db).transaction(async (tx) => {
        await tx.query('CREATE SCHEMA authchart_automigrate_probe');
        await tx.query('SET LOCAL search_path TO authchart_automigrate_probe');
        const adapter = PostgresAdapter(tx, { autoMigrate: true });
        const [a, b] = await Promise.all([adapter.getUser('nobody'), adapter.getUserByEmail('nobody@example.test')]);
        expect([a, b]).toEqual([null, null]);
        const { rows } = await tx.query('SELECT count(*)::int AS n FROM authchart_schema_version');
        expect(rows).toEqual([{ n: migrations.length }]);
        throw rollback;
      }),
    ).rejects.toBe(rollback);
  });
});

// Last in the file: closes the shared instance.
describe('PGlite that is closed (database down)', () => {
  it('every wrapped call rejects with AdapterError carrying the method and the original error', async () => {
    const logged: string[] = [];
    const adapter = wrapAdapter(PostgresAdapter(db), { debug: (code) => logged.push(code) });
    await db.close();
    const error = await adapter.getSessionAndUser('some-token').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdapterError);
    expect((error as AdapterError).cause).toMatchObject({ method: 'getSessionAndUser' });
    expect((error as AdapterError).cause?.err).toBeInstanceOf(Error);
    await expect(adapter.useVerificationToken({ identifier: 'a', token: 'b' })).rejects.toBeInstanceOf(AdapterError);
    await expect(adapter.withTransaction!(async () => 1)).rejects.toBeInstanceOf(AdapterError);
    expect(logged).toEqual(['adapter_getSessionAndUser', 'adapter_useVerificationToken', 'adapter_withTransaction']);
  });
});
