// The adapter boundary: debug logging, AdapterError wrapping, the start-up check of required methods,
// and a database that is down reaching the caller as AdapterError.

import { createServer } from 'node:net';
import pg from 'pg';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { AdapterError, MissingAdapter, MissingAdapterMethods } from '../../src/core/errors.js';
import { adapterMethods, type Adapter, type AdapterMethod } from '../../src/core/adapter.js';
import { assertAdapter, requiredAdapterMethods, wrapAdapter } from '../../src/core/adapter-wrap.js';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';

function recorder() {
  const calls: [string, unknown][] = [];
  return { calls, logger: { debug: (code: string, meta?: unknown) => void calls.push([code, meta]) } };
}

/** An adapter with every method present, each returning its own name. */
function fullAdapter(): Adapter {
  return Object.fromEntries(adapterMethods.map((m) => [m, () => m])) as unknown as Adapter;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('wrapAdapter', () => {
  it('logs adapter_<method> with the arguments and returns the result', async () => {
    const { calls, logger } = recorder();
    const user = { id: 'u1', email: 'a@example.test', emailVerified: null };
    const adapter = wrapAdapter({ getUser: async (id: string) => ({ ...user, id }), getAccount: (p: string) => (p ? null : null) }, logger);
    expect(await adapter.getUser('u1')).toEqual(user);
    expect(await adapter.getAccount('123', 'github')).toBeNull();
    expect(calls).toEqual([
      ['adapter_getUser', ['u1']],
      ['adapter_getAccount', ['123', 'github']],
    ]);
  });

  it('turns a rejection into AdapterError with cause.err and cause.method', async () => {
    const original = new Error('connection reset');
    const adapter = wrapAdapter({ getSessionAndUser: async () => Promise.reject(original) }, recorder().logger);
    const error = await adapter.getSessionAndUser('t').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdapterError);
    expect(error).toMatchObject({ type: 'AdapterError', message: 'connection reset' });
    expect((error as AdapterError).cause).toMatchObject({ err: original, method: 'getSessionAndUser' });
  });

  it('turns a synchronous throw, and a thrown non-Error, into a rejected AdapterError', async () => {
    const adapter = wrapAdapter(
      {
        createUser: () => {
          throw new TypeError('sync');
        },
        deleteSession: () => {
          throw 'a string';
        },
      },
      recorder().logger,
    );
    const call = adapter.createUser({ id: 'x', email: 'x@example.test', emailVerified: null });
    expect(call).toBeInstanceOf(Promise);
    const e1 = (await call.catch((e: unknown) => e)) as AdapterError;
    expect(e1).toBeInstanceOf(AdapterError);
    expect(e1.cause?.err).toBeInstanceOf(TypeError);
    const e2 = (await adapter.deleteSession('t').catch((e: unknown) => e)) as AdapterError;
    expect(e2).toBeInstanceOf(AdapterError);
    expect(e2.cause?.err?.message).toBe('a string');
    expect(e2.cause?.method).toBe('deleteSession');
  });

  it('does not wrap twice when adapters are wrapped twice', async () => {
    const original = new Error('boom');
    const logger = recorder().logger;
    const twice = wrapAdapter(wrapAdapter({ getUser: () => Promise.reject(original) }, logger), logger);
    const error = (await twice.getUser('u').catch((e: unknown) => e)) as AdapterError;
    expect(error.cause?.err).toBe(original);
  });

  it('keeps `this` for class-based adapters', async () => {
    class ClassAdapter {
      prefix = 'user-';
      async getUser(id: string) {
        return { id: this.prefix + id, email: 'c@example.test', emailVerified: null };
      }
    }
    const adapter = wrapAdapter(new ClassAdapter(), recorder().logger);
    expect((await adapter.getUser('1'))?.id).toBe('user-1');
  });

  it('a method the adapter lacks rejects with AdapterError (MissingAdapterMethods inside), not a TypeError', async () => {
    const adapter = wrapAdapter({}, recorder().logger);
    const error = (await adapter.getAccount('1', 'github').catch((e: unknown) => e)) as AdapterError;
    expect(error).toBeInstanceOf(AdapterError);
    expect(error.cause?.err).toBeInstanceOf(MissingAdapterMethods);
    expect(error.cause?.method).toBe('getAccount');
  });

  it('wraps every method of the contract', async () => {
    const { calls, logger } = recorder();
    const adapter = wrapAdapter(fullAdapter(), logger);
    for (const m of adapterMethods) {
      expect(await (adapter[m] as () => Promise<unknown>)()).toBe(m);
    }
    expect(calls.map(([code]) => code)).toEqual(adapterMethods.map((m) => `adapter_${m}`));
  });

  describe('getVerificationToken', () => {
    it('is absent when the adapter has none (an Auth.js adapter), so a caller can tell "cannot look" from "none"', () => {
      expect(wrapAdapter(fullAdapter(), recorder().logger).getVerificationToken).toBeUndefined();
    });

    it('logs, reads through, and wraps failures as AdapterError', async () => {
      const { calls, logger } = recorder();
      const token = { identifier: 'a@example.test', token: 'h', expires: new Date(0) };
      const adapter = wrapAdapter({ getVerificationToken: ({ token: t }) => (t === 'h' ? token : null) }, logger);
      expect(await adapter.getVerificationToken!({ identifier: 'a@example.test', token: 'h' })).toEqual(token);
      expect(await adapter.getVerificationToken!({ identifier: 'a@example.test', token: 'x' })).toBeNull();
      expect(calls.map(([code]) => code)).toEqual(['adapter_getVerificationToken', 'adapter_getVerificationToken']);
      const broken = wrapAdapter({ getVerificationToken: () => { throw new Error('down'); } }, logger);
      const error = await broken.getVerificationToken!({ identifier: 'a', token: 'b' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AdapterError);
      expect((error as AdapterError).cause).toMatchObject({ method: 'getVerificationToken' });
    });
  });

  describe('withTransaction', () => {
    const tx = (inner: Adapter): Adapter['withTransaction'] =>
      async function <T>(fn: (tx: Adapter) => Promise<T>) {
        return fn(inner);
      };

    it('is absent when the adapter has none (an Auth.js adapter)', () => {
      expect(wrapAdapter(fullAdapter(), recorder().logger).withTransaction).toBeUndefined();
    });

    it('hands the function a wrapped transaction adapter and passes its errors through unchanged', async () => {
      const { calls, logger } = recorder();
      const inner: Adapter = { getUser: () => Promise.reject(new Error('inside')) };
      const adapter = wrapAdapter({ withTransaction: tx(inner) }, logger);
      const error = await adapter.withTransaction!((t) => t.getUser('u')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AdapterError);
      expect((error as AdapterError).cause?.method).toBe('getUser');
      const mine = new RangeError('caller');
      await expect(adapter.withTransaction!(async () => Promise.reject(mine))).rejects.toBe(mine);
      expect(calls.map(([c]) => c)).toEqual(['adapter_withTransaction', 'adapter_getUser', 'adapter_withTransaction']);
    });

    it('a failure to begin or commit is an AdapterError', async () => {
      const adapter = wrapAdapter(
        { withTransaction: () => Promise.reject(new Error('could not connect')) } as Adapter,
        recorder().logger,
      );
      const error = await adapter.withTransaction!(async () => 1).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AdapterError);
      expect((error as AdapterError).cause?.method).toBe('withTransaction');
    });
  });

  it('a pg Pool pointing at a closed port: AdapterError, not an uncaught exception', async () => {
    const port = await closedPort();
    const pool = new pg.Pool({ host: '127.0.0.1', port, user: 'postgres', database: 'test', connectionTimeoutMillis: 2000 });
    try {
      const adapter = wrapAdapter(PostgresAdapter(pool), recorder().logger);
      const error = (await adapter.getSessionAndUser('token').catch((e: unknown) => e)) as AdapterError;
      expect(error).toBeInstanceOf(AdapterError);
      expect(error.cause?.method).toBe('getSessionAndUser');
      expect((error.cause?.err as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
      await expect(adapter.useVerificationToken({ identifier: 'a', token: 'b' })).rejects.toBeInstanceOf(AdapterError);
      await expect(adapter.withTransaction!(async (t) => t.getUser('u'))).rejects.toBeInstanceOf(AdapterError);
    } finally {
      await pool.end();
    }
  });
});

describe('assertAdapter', () => {
  it('accepts no adapter when no feature needs one', () => {
    expect(() => assertAdapter(undefined, {})).not.toThrow();
    expect(() => assertAdapter(null, { database: false, email: false, webauthn: false })).not.toThrow();
  });

  it.each(['database', 'email', 'webauthn'] as const)('throws MissingAdapter when %s needs one', (feature) => {
    expect(() => assertAdapter(undefined, { [feature]: true })).toThrow(MissingAdapter);
  });

  it('accepts an adapter with every method for every feature', () => {
    expect(() => assertAdapter(fullAdapter(), { database: true, email: true, webauthn: true })).not.toThrow();
  });

  it('names every missing method in the message and in cause.missing', () => {
    const { getSessionAndUser: _g, updateSession: _u, ...partial } = fullAdapter();
    const error = (() => {
      try {
        assertAdapter(partial, { database: true });
      } catch (e) {
        return e as MissingAdapterMethods;
      }
    })();
    expect(error).toBeInstanceOf(MissingAdapterMethods);
    expect(error?.message).toContain('getSessionAndUser');
    expect(error?.message).toContain('updateSession');
    expect(error?.cause?.missing).toEqual(['getSessionAndUser', 'updateSession']);
  });

  it('requires the D and W sets of the reference, and E plus the user writes a magic link makes', () => {
    const D = ['createUser', 'getUser', 'getUserByEmail', 'getUserByAccount', 'updateUser', 'linkAccount', 'createSession', 'getSessionAndUser', 'updateSession', 'deleteSession'];
    const E = ['getUserByEmail', 'createVerificationToken', 'useVerificationToken', 'createUser', 'updateUser'];
    const W = ['createUser', 'getUser', 'linkAccount', 'getAccount', 'getAuthenticator', 'createAuthenticator', 'listAuthenticatorsByUserId', 'updateAuthenticatorCounter'];
    const cases = [['database', D], ['email', E], ['webauthn', W]] as const;
    for (const [feature, set] of cases) {
      expect([...requiredAdapterMethods[feature]].sort()).toEqual([...set].sort());
      // Each method of the set is needed: removing it alone fails the check; anything else may be absent.
      for (const m of adapterMethods) {
        const { [m]: _removed, ...rest } = fullAdapter();
        const check = () => assertAdapter(rest, { [feature]: true });
        if ((set as readonly string[]).includes(m)) expect(check, `${feature} without ${m}`).toThrow(MissingAdapterMethods);
        else expect(check, `${feature} without ${m}`).not.toThrow();
      }
    }
  });

  it('needs nothing beyond the features that are on', () => {
    expect(() => assertAdapter({ getUserByEmail() { return null; }, createVerificationToken: () => null, useVerificationToken: () => null, createUser: (u) => u, updateUser: (u) => ({ ...u, email: 'x@example.test', emailVerified: null }) }, { email: true })).not.toThrow();
    expect(() => assertAdapter({}, { email: true, database: false })).toThrow(/createVerificationToken/);
  });
});

describe('adapterMethods', () => {
  it('lists each of the 19 contract methods once', () => {
    expect(new Set(adapterMethods).size).toBe(19);
    // Compile-time: a method added to Adapter but not to the list fails type-checking here.
    expectTypeOf<Exclude<AdapterMethod, (typeof adapterMethods)[number]>>().toBeNever();
  });
});
