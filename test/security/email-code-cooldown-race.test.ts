// The resend cooldown of e-mail codes, raced: twelve requests for a code to one address, sent at once from twelve
// browsers on two instances, with the throttle off (so the cooldown is the only thing in the way). The cooldown
// must be claimed in one atomic step of the flow store: a read followed by a write lets every request read "no
// code lately" before any writes, and each then mails a live code. On the PostgreSQL flow store (the adapter's
// table) and on the Redis flow store, both real servers (DATABASE_URL, REDIS_URL). Beside it, the count of tries at
// a code under the same kind of race: every try is counted before it is compared, so parallel guesses get no more.
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

describe.each(flowStores)('tries at one e-mail code on %s', (_name, storeOf) => {
  it(`${PARALLEL} parallel wrong guesses from one flow cookie: exactly maxAttempts are compared, and the code dies`, async () => {
    const MAX = 3;
    const outbox = memoryOutbox({ code: { maxAttempts: MAX, resendCooldown: 0 } });
    const flowStore = await storeOf();
    const t = testAuth({ providers: [outbox.provider], adapter: PostgresAdapter(db.pool), throttle: { enabled: false }, ...(flowStore ? { flowStore } : {}) });
    const email = `tries-${randomUUID()}@attack.test`;
    await t.client.post('/auth/signin/email', { csrfToken: await t.csrfToken(), email, callbackUrl: `${ORIGIN}/dashboard` });
    const code = outbox.sent.find((m) => m.identifier === email)!.code!;
    const wrong = code === '000000' ? '111111' : '000000';
    const csrfToken = await t.csrfToken();
    const answers = await Promise.all(Array.from({ length: PARALLEL }, () => t.client.post('/auth/callback/email', { csrfToken, code: wrong })));
    // Tries 1 and 2 show the code page again with the tries left; the third is the last allowed and ends the code;
    // the rest find it spent. None is compared beyond the third. Every answer is a page (a code page, or the page
    // that offers a new code), none a session.
    expect(answers.map((r) => r.status)).toEqual(Array(PARALLEL).fill(200));
    const pages = await Promise.all(answers.map((r) => r.text()));
    expect(pages.filter((html) => html.includes('name="code"')), 'answers with the code page again').toHaveLength(MAX - 1);
    expect(pages.filter((html) => html.includes('Too many wrong codes'))).toHaveLength(PARALLEL - (MAX - 1));
    expect(answers.flatMap((r) => r.setCookie).filter((line) => line.startsWith('authchart.session-token=') && !/max-age=0/i.test(line))).toEqual([]);
    const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM verification_token WHERE identifier = $1', [email]);
    expect(rows[0]!.n, 'the token behind code and link is revoked').toBe(0);
  });
});
