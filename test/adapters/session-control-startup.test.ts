// Session control is checked at start like second factors and passkeys: `session.control: true` with an adapter that
// cannot list or end sessions (every Auth.js adapter; here @auth/unstorage-adapter on its memory driver) is refused
// with MissingAdapterMethods; left unset, start-up warns once, and the routes answer 400 naming why.
import { UnstorageAdapter } from '@auth/unstorage-adapter';
import { createStorage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/core/config.js';
import { MissingAdapterMethods } from '../../src/core/errors.js';
import type { Adapter } from '../../src/core/adapter.js';
import type { AuthConfig } from '../../src/core/options.js';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { recordingLogger, TEST_SECRET } from '../support/auth-app.js';
import { passwordProvider } from '../session/database-harness.js';

const authjs = () => UnstorageAdapter(createStorage({ driver: memoryDriver() })) as Adapter;
const config = (adapter: Adapter, control?: boolean): AuthConfig => ({
  secret: TEST_SECRET,
  logger: recordingLogger(),
  adapter,
  providers: [passwordProvider()],
  session: { strategy: 'database', ...(control === undefined ? {} : { control }) },
});
const warnings = (c: AuthConfig) => (c.logger as ReturnType<typeof recordingLogger>).warnings;

describe('session control at start-up', () => {
  it('control: true with an adapter lacking listSessions/deleteSessions is refused, naming them', () => {
    const c = config(authjs(), true);
    expect(() => resolveConfig(c, { env: {} })).toThrow(MissingAdapterMethods);
    expect(() => resolveConfig(c, { env: {} })).toThrow(/listSessions, deleteSessions/);
  });

  it('unset: starts, with one warning saying what answers 400 and how to require it', () => {
    const c = config(authjs());
    resolveConfig(c, { env: {} });
    expect(warnings(c)).toContain('session-control-unavailable');
  });

  it('control: false silences it; PostgresAdapter passes control: true without a warning', () => {
    const off = config(authjs(), false);
    resolveConfig(off, { env: {} });
    expect(warnings(off)).not.toContain('session-control-unavailable');
    const own = config(PostgresAdapter({ query: async () => ({ rows: [] }), transaction: async (fn: (tx: never) => unknown) => fn(undefined as never) } as never), true);
    expect(() => resolveConfig(own, { env: {} })).not.toThrow();
    expect(warnings(own)).not.toContain('session-control-unavailable');
  });
});
