// A stalled store keeps what a refused one keeps: an e-mail code typed while PostgreSQL refuses connections, swallows
// everything, or answers past `storeTimeout` is answered ServiceUnavailable, its flow cookie is kept, and the same code
// signs in once the database is back. (A stalled database used to take the code's entry from the flow store after the
// answer was sent: the code was dead.)
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { testAuth } from '../support/auth-app.js';
import { memoryOutbox, requestLink } from '../support/magic-link.js';
import { readSession } from '../session/database-harness.js';
import type { FaultMode } from './fault-proxy.js';
import { modeName, settled, useProxiedPostgres } from './proxied-postgres.js';

const DEADLINE = 300;
const address = () => `code-${randomBytes(4).toString('hex')}@stalled.test`;

describe('an e-mail code typed during an outage', () => {
  const db = useProxiedPostgres('stalled', DEADLINE);

  const modes: FaultMode[] = ['refuse', 'blackhole', { latency: 2 * DEADLINE }, { latency: DEADLINE / 2 }];
  for (const mode of modes) {
    for (const strategy of ['database', 'jwt'] as const) {
      it(`${modeName(mode)}, ${strategy} sessions: 503, the flow cookie kept, and the same code signs in after`, async () => {
        db.proxy.mode = 'pass';
        const outbox = memoryOutbox({ confirm: false, code: { maxAttempts: 3, resendCooldown: 0 } });
        const t = testAuth({ adapter: PostgresAdapter(db.pool), providers: [outbox.provider], session: { strategy }, storeTimeout: DEADLINE });
        const email = address();
        await requestLink(t, email);
        const code = outbox.sent.findLast((m) => m.identifier === email)!.code!;
        const submit = async () => t.client.post('/auth/callback/email', { csrfToken: await t.csrfToken(), code });
        db.proxy.mode = mode;
        const res = await submit();
        db.proxy.mode = 'pass';
        await settled(mode);
        expect(res.location?.searchParams.get('error')).toBe('ServiceUnavailable');
        expect(res.setCookie.filter((c) => c.startsWith('authchart.flow') && /Max-Age=0/i.test(c)), 'the flow cookie is kept').toEqual([]);
        const again = await submit();
        expect(again.location?.searchParams.get('error') ?? null).toBeNull();
        expect(again.location?.pathname).toBe('/after');
        expect((await readSession(t.client)).body?.user?.email).toBe(email);
      });
    }
  }
});
