// The Adapter contract as a reusable suite: every method's promises, checked against one adapter instance.
// Tests share the instance and isolate themselves by unique data (fresh ids, e-mails, tokens per test).

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Adapter, AdapterAccount, AdapterAuthenticator, AdapterUser } from '../../src/core/adapter.js';

export interface ContractOptions {
  /** Also check the `withTransaction` extension (commit and rollback). */
  withTransaction?: boolean;
}

/** Methods of the contract, all required: the suite is meant for adapters that implement the whole of it. */
type Full = Required<Omit<Adapter, 'withTransaction'>> & Pick<Adapter, 'withTransaction'>;

const uid = (): string => randomUUID();
const email = (): string => `u-${uid()}@example.test`;
const inOneHour = (): Date => new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_000);

// Strings that break a query built by concatenation; a parameterised adapter stores and matches them as data.
const injections = [
  `'; DROP TABLE users; --`,
  `' OR '1'='1`,
  `x" OR 1=1 --`,
  `\\'; DELETE FROM sessions; --`,
  `$1); SELECT pg_sleep(5); --`,
];

export function newUser(over: Partial<AdapterUser> = {}): AdapterUser {
  return { id: uid(), name: 'Ada', email: email(), emailVerified: null, image: null, ...over };
}

export function newAccount(userId: string, over: Partial<AdapterAccount> = {}): AdapterAccount {
  return {
    userId,
    type: 'oauth',
    provider: 'github',
    providerAccountId: uid(),
    access_token: 'at-' + uid(),
    token_type: 'bearer',
    scope: 'read:user',
    expires_at: 1_900_000_000,
    ...over,
  };
}

function newAuthenticator(userId: string, over: Partial<AdapterAuthenticator> = {}): AdapterAuthenticator {
  return {
    userId,
    providerAccountId: Buffer.from(uid()).toString('base64'),
    credentialID: Buffer.from(uid()).toString('base64'),
    credentialPublicKey: Buffer.from('pk-' + uid()).toString('base64'),
    counter: 0,
    credentialBackedUp: false,
    credentialDeviceType: 'singleDevice',
    transports: 'usb,nfc',
    ...over,
  };
}

/**
 * Registers the contract tests. `makeAdapter` runs once (beforeAll), `cleanup` once at the end.
 *
 * @example
 * runAdapterContract('PGlite', async () => ({ adapter: PostgresAdapter(db), cleanup: async () => {} }));
 */
export function runAdapterContract(
  name: string,
  makeAdapter: () => Promise<{ adapter: Adapter; cleanup: () => Promise<void> }>,
  options: ContractOptions = {},
): void {
  describe(`Adapter contract: ${name}`, () => {
    let a: Full;
    let cleanup: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      const made = await makeAdapter();
      a = made.adapter as Full;
      cleanup = made.cleanup;
    });
    afterAll(async () => {
      await cleanup?.();
    });

    const givenUser = async (over: Partial<AdapterUser> = {}): Promise<AdapterUser> => a.createUser(newUser(over));

    describe('users', () => {
      it('createUser returns the user, and getUser / getUserByEmail find it', async () => {
        const verified = new Date('2026-01-02T03:04:05.000Z');
        const input = newUser({ emailVerified: verified, image: 'https://img.test/a.png' });
        const created = await a.createUser(input);
        expect(created).toEqual(input);
        expect(created.emailVerified).toBeInstanceOf(Date);
        expect(await a.getUser(input.id)).toEqual(input);
        expect(await a.getUserByEmail(input.email!)).toEqual(input);
      });

      it('keeps emailVerified null for a new OAuth user', async () => {
        const user = await givenUser({ emailVerified: null });
        expect((await a.getUser(user.id))?.emailVerified).toBeNull();
      });

      it('unknown id and unknown e-mail give null', async () => {
        expect(await a.getUser(uid())).toBeNull();
        expect(await a.getUser('not-a-uuid')).toBeNull();
        expect(await a.getUserByEmail(email())).toBeNull();
      });

      it('matches e-mail exactly (no pattern matching, no other users)', async () => {
        const user = await givenUser({ email: `a_b%-${uid()}@example.test` });
        expect(await a.getUserByEmail(user.email!.replace('_', 'x'))).toBeNull();
        expect(await a.getUserByEmail(user.email!.replace('%', ''))).toBeNull();
        expect((await a.getUserByEmail(user.email!))?.id).toBe(user.id);
      });

      it('updateUser changes the given fields and returns the whole user', async () => {
        const user = await givenUser();
        const when = new Date('2026-03-04T05:06:07.000Z');
        const updated = await a.updateUser({ id: user.id, emailVerified: when });
        expect(updated).toEqual({ ...user, emailVerified: when });
        expect(await a.getUser(user.id)).toEqual(updated);
        const renamed = await a.updateUser({ id: user.id, name: 'Grace', image: null });
        expect(renamed).toEqual({ ...user, emailVerified: when, name: 'Grace', image: null });
      });

      it('deleteUser removes the user, its sessions, accounts and authenticators', async () => {
        const user = await givenUser();
        const account = newAccount(user.id);
        await a.linkAccount(account);
        const sessionToken = uid();
        await a.createSession({ sessionToken, userId: user.id, expires: inOneHour() });
        const auth = newAuthenticator(user.id);
        await a.createAuthenticator(auth);
        const other = await givenUser();
        const otherToken = uid();
        await a.createSession({ sessionToken: otherToken, userId: other.id, expires: inOneHour() });

        await a.deleteUser(user.id);

        expect(await a.getUser(user.id)).toBeNull();
        expect(await a.getUserByAccount(account)).toBeNull();
        expect(await a.getAccount(account.providerAccountId, account.provider)).toBeNull();
        expect(await a.getSessionAndUser(sessionToken)).toBeNull();
        expect(await a.getAuthenticator(auth.credentialID)).toBeNull();
        expect(await a.listAuthenticatorsByUserId(user.id)).toEqual([]);
        expect((await a.getSessionAndUser(otherToken))?.user.id).toBe(other.id);

        // Rows left behind would come back to life for a new user that gets the same id.
        await a.createUser({ ...user, email: email() });
        expect(await a.getSessionAndUser(sessionToken)).toBeNull();
        expect(await a.getUserByAccount(account)).toBeNull();
        expect(await a.listAuthenticatorsByUserId(user.id)).toEqual([]);
      });
    });

    describe('accounts', () => {
      it('linkAccount, then getUserByAccount and getAccount find it', async () => {
        const user = await givenUser();
        const account = newAccount(user.id, { id_token: 'idt', refresh_token: 'rt', session_state: 'ss' });
        await a.linkAccount(account);
        expect(await a.getUserByAccount({ provider: account.provider, providerAccountId: account.providerAccountId })).toEqual(user);
        const got = await a.getAccount(account.providerAccountId, account.provider);
        expect(got).toMatchObject(account);
        expect(typeof got?.expires_at).toBe('number');
      });

      it('keeps provider-specific token fields', async () => {
        const user = await givenUser();
        const account = newAccount(user.id, { refresh_token_expires_in: 3600, authorization_details: [{ type: 'x' }] });
        await a.linkAccount(account);
        expect(await a.getAccount(account.providerAccountId, account.provider)).toMatchObject(account);
      });

      it('distinguishes the same providerAccountId at two providers', async () => {
        const [u1, u2] = [await givenUser(), await givenUser()];
        const id = uid();
        await a.linkAccount(newAccount(u1.id, { provider: 'github', providerAccountId: id }));
        await a.linkAccount(newAccount(u2.id, { provider: 'gitlab', providerAccountId: id }));
        expect((await a.getUserByAccount({ provider: 'github', providerAccountId: id }))?.id).toBe(u1.id);
        expect((await a.getUserByAccount({ provider: 'gitlab', providerAccountId: id }))?.id).toBe(u2.id);
        expect(await a.getUserByAccount({ provider: 'google', providerAccountId: id })).toBeNull();
      });

      it('unknown account gives null', async () => {
        expect(await a.getUserByAccount({ provider: 'github', providerAccountId: uid() })).toBeNull();
        expect(await a.getAccount(uid(), 'github')).toBeNull();
      });

      it('unlinkAccount removes the link and keeps the user', async () => {
        const user = await givenUser();
        const account = newAccount(user.id);
        await a.linkAccount(account);
        await a.unlinkAccount({ provider: account.provider, providerAccountId: account.providerAccountId });
        expect(await a.getUserByAccount(account)).toBeNull();
        expect(await a.getAccount(account.providerAccountId, account.provider)).toBeNull();
        expect(await a.getUser(user.id)).toEqual(user);
      });

      it('linking an account that is already linked rejects', async () => {
        const user = await givenUser();
        const account = newAccount(user.id);
        await a.linkAccount(account);
        await expect(Promise.resolve().then(() => a.linkAccount(account))).rejects.toBeDefined();
      });
    });

    describe('sessions', () => {
      it('createSession, then getSessionAndUser returns both in one call', async () => {
        const user = await givenUser();
        const session = { sessionToken: uid(), userId: user.id, expires: inOneHour() };
        expect(await a.createSession(session)).toEqual(session);
        expect(await a.getSessionAndUser(session.sessionToken)).toEqual({ session, user });
      });

      it('returns an expired session as it is (expiry is the caller’s decision)', async () => {
        const user = await givenUser();
        const session = { sessionToken: uid(), userId: user.id, expires: new Date('2020-01-01T00:00:00.000Z') };
        await a.createSession(session);
        expect((await a.getSessionAndUser(session.sessionToken))?.session).toEqual(session);
      });

      it('updateSession moves the expiry', async () => {
        const user = await givenUser();
        const session = { sessionToken: uid(), userId: user.id, expires: inOneHour() };
        await a.createSession(session);
        const later = new Date(session.expires.getTime() + 86_400_000);
        const updated = await a.updateSession({ sessionToken: session.sessionToken, expires: later });
        expect(updated).toEqual({ ...session, expires: later });
        expect((await a.getSessionAndUser(session.sessionToken))?.session.expires).toEqual(later);
      });

      it('updateSession of an unknown token gives null and creates nothing', async () => {
        const token = uid();
        expect(await a.updateSession({ sessionToken: token, expires: inOneHour() })).toBeNull();
        expect(await a.getSessionAndUser(token)).toBeNull();
      });

      it('deleteSession removes only that session', async () => {
        const user = await givenUser();
        const [s1, s2] = [uid(), uid()];
        await a.createSession({ sessionToken: s1, userId: user.id, expires: inOneHour() });
        await a.createSession({ sessionToken: s2, userId: user.id, expires: inOneHour() });
        await a.deleteSession(s1);
        expect(await a.getSessionAndUser(s1)).toBeNull();
        expect((await a.getSessionAndUser(s2))?.user).toEqual(user);
        await a.deleteSession(s1); // deleting twice is harmless
      });

      it('unknown or forged session token gives null', async () => {
        expect(await a.getSessionAndUser(uid())).toBeNull();
        expect(await a.getSessionAndUser('')).toBeNull();
      });

      it('a session for an unknown user is refused', async () => {
        await expect(
          Promise.resolve().then(() => a.createSession({ sessionToken: uid(), userId: uid(), expires: inOneHour() })),
        ).rejects.toBeDefined();
      });
    });

    describe('verification tokens', () => {
      const newToken = () => ({ identifier: email(), token: 'hash-' + uid(), expires: inOneHour() });

      it('createVerificationToken, then useVerificationToken returns it once', async () => {
        const vt = newToken();
        expect(await a.createVerificationToken(vt)).toEqual(vt);
        expect(await a.useVerificationToken({ identifier: vt.identifier, token: vt.token })).toEqual(vt);
        expect(await a.useVerificationToken({ identifier: vt.identifier, token: vt.token })).toBeNull();
      });

      it('a wrong identifier gives null and leaves the token usable', async () => {
        const vt = newToken();
        await a.createVerificationToken(vt);
        expect(await a.useVerificationToken({ identifier: email(), token: vt.token })).toBeNull();
        expect(await a.useVerificationToken({ identifier: vt.identifier, token: 'hash-' + uid() })).toBeNull();
        expect(await a.useVerificationToken(vt)).toEqual(vt);
      });

      it('returns an expired token (the caller checks expiry) and still consumes it', async () => {
        const vt = { ...newToken(), expires: new Date('2020-01-01T00:00:00.000Z') };
        await a.createVerificationToken(vt);
        expect(await a.useVerificationToken(vt)).toEqual(vt);
        expect(await a.useVerificationToken(vt)).toBeNull();
      });

      it('two concurrent uses of one token: exactly one succeeds', async () => {
        for (let round = 0; round < 5; round++) {
          const vt = newToken();
          await a.createVerificationToken(vt);
          const results = await Promise.all(
            Array.from({ length: 4 }, () => Promise.resolve().then(() => a.useVerificationToken(vt))),
          );
          expect(results.filter((r) => r !== null)).toEqual([vt]);
        }
      });
    });

    describe('authenticators', () => {
      it('createAuthenticator, then getAuthenticator and listAuthenticatorsByUserId find it', async () => {
        const user = await givenUser();
        const auth = newAuthenticator(user.id);
        expect(await a.createAuthenticator(auth)).toMatchObject(auth);
        expect(await a.getAuthenticator(auth.credentialID)).toMatchObject(auth);
        const second = newAuthenticator(user.id, { transports: null, credentialBackedUp: true, credentialDeviceType: 'multiDevice' });
        await a.createAuthenticator(second);
        const list = await a.listAuthenticatorsByUserId(user.id);
        expect(list).toHaveLength(2);
        expect(list.map((x) => x.credentialID).sort()).toEqual([auth.credentialID, second.credentialID].sort());
        expect(list.find((x) => x.credentialID === second.credentialID)).toMatchObject({
          ...second,
          transports: null,
        });
      });

      it('updateAuthenticatorCounter sets the counter (beyond 2^31) and returns the authenticator', async () => {
        const user = await givenUser();
        const auth = newAuthenticator(user.id, { counter: 5 });
        await a.createAuthenticator(auth);
        const big = 2 ** 32 - 1; // the WebAuthn counter is an unsigned 32-bit integer
        const updated = await a.updateAuthenticatorCounter(auth.credentialID, big);
        expect(updated).toMatchObject({ ...auth, counter: big });
        expect((await a.getAuthenticator(auth.credentialID))?.counter).toBe(big);
      });

      it('updateAuthenticatorCounter of a missing authenticator rejects', async () => {
        await expect(Promise.resolve().then(() => a.updateAuthenticatorCounter(uid(), 1))).rejects.toBeDefined();
      });

      it('createAuthenticator with a duplicate credential id rejects', async () => {
        const user = await givenUser();
        const auth = newAuthenticator(user.id);
        await a.createAuthenticator(auth);
        await expect(Promise.resolve().then(() => a.createAuthenticator(auth))).rejects.toBeDefined();
      });

      it('unknown credential and unknown user give null and []', async () => {
        expect(await a.getAuthenticator(Buffer.from(uid()).toString('base64'))).toBeNull();
        expect(await a.listAuthenticatorsByUserId(uid())).toEqual([]);
      });
    });

    describe('hostile input is data', () => {
      it('stores and matches injection strings in e-mails, provider ids and tokens', async () => {
        const bystander = await givenUser();
        for (const bad of injections) {
          const user = await givenUser({ email: `${bad}-${uid()}`, name: bad });
          expect(await a.getUserByEmail(user.email!)).toEqual(user);
          expect(await a.getUserByEmail(bad)).toBeNull();

          const account = newAccount(user.id, { provider: bad, providerAccountId: bad + uid() });
          await a.linkAccount(account);
          expect((await a.getUserByAccount(account))?.id).toBe(user.id);
          expect(await a.getUserByAccount({ provider: bad, providerAccountId: bad })).toBeNull();
          expect((await a.getAccount(account.providerAccountId, bad))?.provider).toBe(bad);

          const sessionToken = bad + uid();
          await a.createSession({ sessionToken, userId: user.id, expires: inOneHour() });
          expect((await a.getSessionAndUser(sessionToken))?.user.id).toBe(user.id);
          expect(await a.getSessionAndUser(bad)).toBeNull();

          const vt = { identifier: user.email!, token: bad, expires: inOneHour() };
          await a.createVerificationToken(vt);
          expect(await a.useVerificationToken({ identifier: `' OR '1'='1`, token: bad })).toBeNull();
          expect(await a.useVerificationToken(vt)).toEqual(vt);

          const auth = newAuthenticator(user.id, { credentialID: bad + uid() });
          await a.createAuthenticator(auth);
          expect((await a.getAuthenticator(auth.credentialID))?.userId).toBe(user.id);
        }
        // Nothing was dropped or deleted along the way.
        expect(await a.getUser(bystander.id)).toEqual(bystander);
      });
    });

    if (options.withTransaction) {
      describe('withTransaction (authchart extension)', () => {
        it('commits when the function resolves', async () => {
          const input = newUser();
          const account = newAccount(input.id);
          const result = await a.withTransaction!(async (tx) => {
            const user = await tx.createUser!(input);
            await tx.linkAccount!(account);
            return user.id;
          });
          expect(result).toBe(input.id);
          expect((await a.getUserByAccount(account))?.id).toBe(input.id);
        });

        it('rolls back everything when the function throws, and rethrows its error', async () => {
          const input = newUser();
          const boom = new Error('link failed');
          await expect(
            a.withTransaction!(async (tx) => {
              await tx.createUser!(input);
              await tx.linkAccount!(newAccount(input.id));
              throw boom;
            }),
          ).rejects.toBe(boom);
          expect(await a.getUser(input.id)).toBeNull();
          expect(await a.getUserByEmail(input.email!)).toBeNull();
        });

        it('a call made on the adapter while a transaction is open is not part of it', async () => {
          const inside = newUser();
          const outside = newUser();
          let concurrent: Promise<unknown> | undefined;
          const undo = new Error('undo');
          await expect(
            a.withTransaction!(async (tx) => {
              await tx.createUser!(inside);
              concurrent = Promise.resolve(a.createUser(outside)); // another request, mid-transaction
              await new Promise((resolve) => setTimeout(resolve, 50));
              throw undo;
            }),
          ).rejects.toBe(undo);
          expect(await concurrent).toEqual(outside);
          expect(await a.getUser(outside.id)).toEqual(outside);
          expect(await a.getUser(inside.id)).toBeNull();
        });

        it('rolls back when a statement inside fails', async () => {
          const input = newUser();
          await expect(
            a.withTransaction!(async (tx) => {
              await tx.createUser!(input);
              await tx.linkAccount!(newAccount(uid())); // unknown user: foreign key violation
            }),
          ).rejects.toBeDefined();
          expect(await a.getUser(input.id)).toBeNull();
        });
      });
    }
  });
}
