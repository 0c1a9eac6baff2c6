// The password methods of PostgresAdapter (migration 11), on embedded PGlite and on the real PostgreSQL server:
// one hash per user, replaced by a plain write, a conditional write only while the stored hash is the expected one
// (of two racing upgrades one wins), and gone with the user. An adapter without them is refused at start.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import { resolveConfig } from '../../src/core/config.js';
import { MissingAdapter, MissingAdapterMethods } from '../../src/core/errors.js';
import { Password } from '../../src/providers/password/index.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { DATABASE_URL, useSharedStores } from '../support/shared-stores.js';


function passwordChecks(adapter: () => PostgresAdapterInstance) {
  const newUser = async () => (await adapter().createUser({ id: randomUUID(), email: `${randomUUID()}@example.com`, emailVerified: null })).id;

  it('a user without a password has none; a plain write sets and replaces it', async () => {
    const id = await newUser();
    expect(await adapter().getPasswordHash(id)).toBeNull();
    expect(await adapter().setPasswordHash(id, '$argon2id$first')).toBe(true);
    expect(await adapter().getPasswordHash(id)).toBe('$argon2id$first');
    expect(await adapter().setPasswordHash(id, '$argon2id$second')).toBe(true);
    expect(await adapter().getPasswordHash(id)).toBe('$argon2id$second');
  });

  it('a conditional write happens only while the stored hash is the expected one', async () => {
    const id = await newUser();
    expect(await adapter().setPasswordHash(id, '$2b$imported', '$2b$imported')).toBe(false); // no row yet
    expect(await adapter().getPasswordHash(id)).toBeNull();
    await adapter().setPasswordHash(id, '$2b$imported');
    expect(await adapter().setPasswordHash(id, '$argon2id$upgraded', '$2b$other')).toBe(false);
    expect(await adapter().getPasswordHash(id)).toBe('$2b$imported');
    expect(await adapter().setPasswordHash(id, '$argon2id$upgraded', '$2b$imported')).toBe(true);
    expect(await adapter().getPasswordHash(id)).toBe('$argon2id$upgraded');
  });

  it('of two racing conditional writes from one hash, exactly one wins', async () => {
    const id = await newUser();
    await adapter().setPasswordHash(id, '$2b$old');
    const results = await Promise.all([adapter().setPasswordHash(id, '$argon2id$a', '$2b$old'), adapter().setPasswordHash(id, '$argon2id$b', '$2b$old')]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(['$argon2id$a', '$argon2id$b']).toContain(await adapter().getPasswordHash(id));
  });

  it('the hash goes with its user, and a hash for no user is refused', async () => {
    const id = await newUser();
    await adapter().setPasswordHash(id, '$argon2id$x');
    await adapter().deleteUser(id);
    expect(await adapter().getPasswordHash(id)).toBeNull();
    await expect(adapter().setPasswordHash(`nobody-${randomUUID()}`, '$argon2id$x')).rejects.toThrow();
  });

  it('works inside a transaction like every other method', async () => {
    const id = await newUser();
    await expect(
      adapter().withTransaction(async (tx) => {
        await tx.setPasswordHash(id, '$argon2id$rolled-back');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await adapter().getPasswordHash(id)).toBeNull();
  });
}

describe('password hashes on PGlite', () => {
  const pglite = useMigratedPGlite();
  passwordChecks(() => pglite.adapter);
});

describe('password hashes on the PostgreSQL server', () => {
  const stores = useSharedStores();
  let adapter: PostgresAdapterInstance | undefined;
  beforeAll(async () => {
    adapter = PostgresAdapter(stores.pool(await stores.schema()));
  });
  passwordChecks(() => adapter!);
});

describe('an adapter without the password methods is refused at start', () => {
  const secret = 'password-adapter-secret-0123456789abcdef';
  const users = { createUser: async () => null, getUser: async () => null, getUserByEmail: async () => null };

  it('names the missing methods and what to add', () => {
    const start = () => resolveConfig({ secret, providers: [Password()], adapter: users as never, session: { strategy: 'jwt' } });
    expect(start).toThrow(MissingAdapterMethods);
    expect(start).toThrow(/getPasswordHash, setPasswordHash\..*add both to your adapter.*npx authchart migrate/);
  });

  it('without an adapter, says it needs one', () => {
    expect(() => resolveConfig({ secret, providers: [Password()] })).toThrow(MissingAdapter);
  });

  it('starts with PostgresAdapter, and needs no authorize', async () => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    expect(() => resolveConfig({ secret, providers: [Password()], adapter: PostgresAdapter(pool) })).not.toThrow();
    await pool.end();
  });
});
