// An outage is never the client's failure. Ten right-password sign-ins while PostgreSQL refuses connections or stalls
// past `storeTimeout` count against no limit: a sign-in right after the database is back goes through (it was
// `429 RateLimited, Retry-After: 900` for fifteen minutes).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { testAuth } from '../support/auth-app.js';
import { passwordProvider, signIn, writes } from '../session/database-harness.js';
import type { FaultMode } from './fault-proxy.js';
import { modeName, settled, useProxiedPostgres } from './proxied-postgres.js';

const DEADLINE = 300;
const address = () => `lockout-${randomBytes(4).toString('hex')}@outage.test`;

describe('an outage counts against no limit', () => {
  const db = useProxiedPostgres('lockout', DEADLINE);

  const modes: FaultMode[] = ['refuse', 'blackhole', { latency: 2 * DEADLINE }];
  for (const mode of modes) {
    it(`${modeName(mode)}: ten right-password sign-ins answered 503, then one right after the outage signs in (no lock-out)`, async () => {
      db.proxy.mode = 'pass';
      const t = testAuth({ adapter: PostgresAdapter(db.pool), providers: [passwordProvider()], session: { strategy: 'database' }, storeTimeout: DEADLINE, throttle: { enabled: true } });
      const email = address();
      db.proxy.mode = mode;
      for (let i = 0; i < 10; i++) {
        const res = await signIn(t, email);
        expect(res.location?.searchParams.get('error')).toBe('ServiceUnavailable');
      }
      db.proxy.mode = 'pass';
      await settled(mode);
      const res = await signIn(t, email);
      expect(res.status, res.headers.get('retry-after') ?? '').toBe(302);
      expect(res.location?.pathname).toBe('/home');
      expect(writes(res)).toHaveLength(1);
    });
  }
});
