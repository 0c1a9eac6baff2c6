// A user with no address (signed up by phone, or with a passkey alone) is stored with `email: null`, and the types
// say so: `AdapterUser.email` and what an adapter returns are `string | null`, so code that reads them must handle
// the null. An Auth.js adapter, whose own type says `string`, still type-checks as an authchart Adapter.
import type { Adapter as AuthjsAdapter } from '@auth/core/adapters';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Adapter, StoredUser } from '../../src/core/adapter.js';
import type { AdapterUser } from '../../src/core/types.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pglite = useMigratedPGlite();

describe('a user without an address', () => {
  it('is typed as stored: email is string | null on the user, the stored user and what getUser returns', () => {
    expectTypeOf<AdapterUser['email']>().toEqualTypeOf<string | null>();
    expectTypeOf<StoredUser['email']>().toEqualTypeOf<string | null>();
    expectTypeOf<Awaited<ReturnType<NonNullable<Adapter['getUser']>>>>().toEqualTypeOf<StoredUser | null>();
    expectTypeOf<AuthjsAdapter>().toExtend<Adapter>();
  });

  it('is stored and read back with email null', async () => {
    const created = await pglite.adapter.createUser({ id: crypto.randomUUID(), email: null, emailVerified: null, name: 'Phone only' });
    expect(created.email).toBeNull();
    expect((await pglite.adapter.getUser(created.id))?.email).toBeNull();
  });
});
