// The resend cooldown of e-mail codes, raced: twelve requests for a code to one address, sent at once from twelve
// browsers on two instances, with the throttle off (so the cooldown is the only thing in the way). The cooldown
// must be claimed in one atomic step of the flow store: a read followed by a write lets every request read "no
// code lately" before any writes, and each then mails a live code. On the PostgreSQL flow store (the adapter's
// table) and on the Redis flow store, both real servers (DATABASE_URL, REDIS_URL).
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { redisFlowStore, type FlowStore } from '../../src/core/flow-store/store.js';
import { ORIGIN, testAuth } from '../support/auth-app.js';
import { memoryOutbox } from '../support/magic-link.js';
import { useSharedStores } from '../support/shared-stores.js';

const stores = useSharedStores();
const db = {} as { pool: Pool };
beforeAll(async () => {
  db.pool = stores.pool(await stores.schema(), { max: 12 });
}, 60_000);

const PARALLEL = 12;

const flowStores: [name: string, store: () => Promise<FlowStore | undefined>][] = [
  ['the PostgreSQL flow store', async () => undefined], // the adapter's own table
  ['the Redis flow store', async () => redisFlowStore(await stores.redis(), { prefix: `${stores.redisPrefix}cooldown-race:` })],
];

describe.each(flowStores)('e-mail code resend cooldown on %s', (_name, storeOf) => {
  it(`${PARALLEL} parallel requests for a code with the throttle off send exactly one code`, async () => {
    const outbox = memoryOutbox({ code: { resendCooldown: 60 } });
    const flowStore = await storeOf();
    const instance = () =>
      testAuth({ providers: [outbox.provider], adapter: PostgresAdapter(db.pool), throttle: { enabled: false }, ...(flowStore ? { flowStore } : {}) });
    const [a, b] = [instance(), instance()];
    const email = `cooldown-${randomUUID()}@attack.test`;
    // Each browser gets its CSRF token first, so the twelve requests for a code leave together.
    const browsers = await Promise.all(
      Array.from({ length: PARALLEL }, async (_, i) => {
        const t = i % 2 === 0 ? a : b;
        const client = t.newClient();
        return { client, csrfToken: await t.csrfToken(client) };
      }),
    );
    const answers = await Promise.all(
      browsers.map(({ client, csrfToken }) => client.post('/auth/signin/email', { csrfToken, email, callbackUrl: `${ORIGIN}/dashboard` })),
    );
    expect(answers.map((r) => r.status).filter((s) => s >= 500), 'no request fails on the server').toEqual([]);
    const mailed = outbox.sent.filter((m) => m.identifier === email);
    expect(mailed.map((m) => typeof m.code), 'codes mailed').toEqual(['string']);
    // Only the browser that claimed the cooldown holds a pending code; the others were told to wait.
    const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM verification_token WHERE identifier = $1', [email]);
    expect(rows[0]!.n, 'live tokens behind codes').toBe(1);
  });
});
