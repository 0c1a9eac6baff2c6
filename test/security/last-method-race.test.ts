// Attack: two unlinks fired at once, each for a different one of a user's two linked accounts. Each alone is allowed
// (one account would remain); together they must not leave the user with no way to sign in. Run many times on a real
// PostgreSQL, on PGlite, and on an adapter without `lockUser` (the documented fallback).
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import type { Adapter } from '../../src/core/adapter.js';
import { resolveConfig } from '../../src/core/config.js';
import type { RequestContext } from '../../src/core/request-context.js';
import { AccessDenied } from '../../src/core/errors.js';
import { unlinkAccount } from '../../src/flows/account/methods.js';
import { removePasskey } from '../../src/flows/account/passkeys.js';
import { Passkey } from '../../src/providers/webauthn.js';
import { OIDC } from '../../src/providers/oauth.js';
import { serverSchema, type TestDatabase } from '../session/database-harness.js';
import { DATABASE } from '../e2e/tokens/harness.js';
import { TEST_SECRET } from '../support/auth-app.js';

const ROUNDS = 40;
let server: TestDatabase & { schema: string };
let lite: PGlite;

beforeAll(async () => {
  server = await serverSchema(DATABASE);
  lite = await PGlite.create();
  await PostgresAdapter(lite).migrate();
});
afterAll(async () => {
  await server.close();
  await lite.close();
});

// The PostgreSQL adapter with `lockUser` taken away: unlink must fall back to one-at-a-time plus a re-count.
function withoutLock(adapter: Adapter): Adapter {
  return new Proxy(adapter, { get: (target, name, receiver) => (name === 'lockUser' ? undefined : Reflect.get(target, name, receiver)) });
}

const stores: [string, () => Adapter][] = [
  ['postgres', () => server.adapter],
  ['pglite', () => PostgresAdapter(lite)],
  ['postgres without lockUser (fallback)', () => withoutLock(server.adapter)],
];

describe.each(stores)('the last sign-in method under concurrent unlinks (%s)', (_name, adapterOf) => {
  it(`attack: two unlinks at once never leave a user with no account (${ROUNDS} rounds)`, async () => {
    const adapter = adapterOf();
    const config = resolveConfig({
      secret: TEST_SECRET,
      adapter,
      providers: [
        OIDC({ id: 'home', name: 'Home', issuer: 'https://op.example', clientId: 'home', clientSecret: 's' }),
        OIDC({ id: 'work', name: 'Work', issuer: 'https://op.example', clientId: 'work', clientSecret: 's' }),
      ],
    });
    const req = { config } as RequestContext;
    let bothWent = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const user = await adapter.createUser!({ id: crypto.randomUUID(), email: `race-${round}-${crypto.randomUUID()}@example.com`, emailVerified: null });
      for (const provider of ['home', 'work']) {
        await adapter.linkAccount!({ userId: user.id, type: 'oidc', provider, providerAccountId: `${provider}-${user.id}` });
      }
      const results = await Promise.allSettled(['home', 'work'].map((provider) => unlinkAccount(req, user.id, { provider, providerAccountId: `${provider}-${user.id}` })));
      const left = await Promise.all(['home', 'work'].map((provider) => adapter.getUserAccount!(user.id, provider)));
      const remaining = left.filter(Boolean).length;
      if (remaining === 0) bothWent++;
      // Exactly one unlink wins; the other is refused as the last method, never a crash.
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toBeInstanceOf(AccessDenied);
      expect(remaining).toBe(1);
    }
    expect(bothWent).toBe(0);
  });
});

// The same attack across kinds: a user with one linked account and one passkey removes both at once (an unlink and a
// passkey removal), and a user with two passkeys removes both at once. Each removal alone is allowed; together they
// must leave one way in. Without the passkey removal taking the user's lock, both went through.
describe.each(stores)('the last sign-in method under a passkey removal racing another removal (%s)', (_name, adapterOf) => {
  const configFor = (adapter: Adapter) =>
    resolveConfig({
      secret: TEST_SECRET,
      adapter,
      experimental: { enableWebAuthn: true },
      providers: [OIDC({ id: 'home', name: 'Home', issuer: 'https://op.example', clientId: 'home', clientSecret: 's' }), Passkey({})],
    });
  const addPasskey = async (adapter: Adapter, userId: string, credentialID: string) => {
    await adapter.linkAccount!({ userId, type: 'webauthn', provider: 'passkey', providerAccountId: credentialID });
    await adapter.createAuthenticator!({ userId, providerAccountId: credentialID, credentialID, credentialPublicKey: 'cHVibGlj', counter: 0, credentialBackedUp: false, credentialDeviceType: 'singleDevice', transports: 'internal' });
  };
  const newUser = (adapter: Adapter) => adapter.createUser!({ id: crypto.randomUUID(), email: `passkey-race-${crypto.randomUUID()}@example.com`, emailVerified: null });

  it(`attack: an unlink and a passkey removal at once leave one way in (${ROUNDS} rounds)`, async () => {
    const adapter = adapterOf();
    const req = { config: configFor(adapter) } as RequestContext;
    for (let round = 0; round < ROUNDS; round++) {
      const user = await newUser(adapter);
      const credential = `cred-${crypto.randomUUID()}`;
      await adapter.linkAccount!({ userId: user.id, type: 'oidc', provider: 'home', providerAccountId: `home-${user.id}` });
      await addPasskey(adapter, user.id, credential);
      const results = await Promise.allSettled([
        unlinkAccount(req, user.id, { provider: 'home', providerAccountId: `home-${user.id}` }),
        removePasskey(req, user.id, credential),
      ]);
      const account = await adapter.getUserAccount!(user.id, 'home');
      const passkeys = await adapter.listAuthenticatorsByUserId!(user.id);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(AccessDenied);
      expect((account ? 1 : 0) + passkeys.length).toBe(1);
      // A passkey that survives still has its account row (it signs in), and one that went took its account with it.
      const webauthnAccount = await adapter.getUserByAccount!({ provider: 'passkey', providerAccountId: credential });
      expect(Boolean(webauthnAccount)).toBe(passkeys.length === 1);
    }
  });

  it(`attack: two passkey removals at once leave one passkey (${ROUNDS} rounds)`, async () => {
    const adapter = adapterOf();
    const req = { config: configFor(adapter) } as RequestContext;
    for (let round = 0; round < ROUNDS; round++) {
      const user = await newUser(adapter);
      const credentials = [`cred-a-${crypto.randomUUID()}`, `cred-b-${crypto.randomUUID()}`];
      for (const c of credentials) await addPasskey(adapter, user.id, c);
      const results = await Promise.allSettled(credentials.map((c) => removePasskey(req, user.id, c)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(await adapter.listAuthenticatorsByUserId!(user.id)).toHaveLength(1);
    }
  });
});
