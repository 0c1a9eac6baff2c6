// The activity log and the webhook outbox joined, as an app configures them: a sign-in over HTTP writes its record and
// its outbox row in the transaction of its session, and a deliverer (started later, in another "instance") sends it
// once, signed so that the standardwebhooks library verifies it. A sign-in the database refuses sends nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import { deliverWebhooks } from '../../src/activity/webhook-delivery.js';
import { webhookSink } from '../../src/activity/webhook-sink.js';
import type { WebhooksConfig } from '../../src/activity/webhook-options.js';
import { Credentials } from '../../src/providers/credentials.js';
import { testAuth } from '../support/auth-app.js';
import { newSecret, receiver, schemas } from './webhook-support.js';

const PASSWORD = 'correct horse battery staple';
const provider = Credentials({ credentials: { email: {}, password: {} }, authorize: (c) => (c.password === PASSWORD ? { id: String(c.email).split('@')[0], email: String(c.email) } : null) });

const db = schemas();
let hooks: Awaited<ReturnType<typeof receiver>>;
const secret = newSecret();
beforeAll(async () => {
  hooks = await receiver(secret);
});
afterAll(async () => {
  await hooks.close();
  await db.end();
});

async function world() {
  const schema = await db.create();
  const adapter = PostgresAdapter(db.pool(schema));
  await adapter.migrate();
  const webhooks: WebhooksConfig = { adapter, webhooks: { endpoints: [{ id: 'siem', url: hooks.url, secret }] } };
  return { schema, adapter, webhooks };
}

async function signIn(adapter: PostgresAdapterInstance, webhooks: WebhooksConfig, strategy: 'database' | 'jwt') {
  const userId = `u-${randomUUID()}`;
  await adapter.createUser({ id: userId, email: `${userId}@example.com`, emailVerified: null });
  const t = testAuth({ adapter, session: { strategy }, activity: { sinks: [webhookSink(webhooks)] }, providers: [provider] });
  const csrfToken = await t.csrfToken();
  const res = await t.client.post('/auth/callback/credentials', { csrfToken, email: `${userId}@example.com`, password: PASSWORD, callbackUrl: '/dashboard' });
  const session = (await (await t.client.get('/auth/session')).json()) as { user?: unknown } | null;
  return { userId, res, session };
}

describe.each(['database', 'jwt'] as const)('a sign-in and its webhook (%s sessions)', (strategy) => {
  it('commits the outbox row with the session; a deliverer started afterwards on another pool sends it once, verified', async () => {
    const { schema, adapter, webhooks } = await world();
    const { userId, session } = await signIn(adapter, webhooks, strategy);
    expect(session?.user).toBeTruthy();
    const [record] = (await adapter.listActivity({ userId, kinds: ['signIn.succeeded'] })).records;
    expect(record).toBeTruthy();

    // The instance that signed in is gone before it sent anything; another one, with its own pool, delivers.
    const other = PostgresAdapter(db.pool(schema));
    const later: WebhooksConfig = { ...webhooks, adapter: other };
    const report = await deliverWebhooks(later);
    expect(report.delivered).toBe(1);
    const mine = hooks.received.filter((r) => r.id === record.id);
    expect(mine).toHaveLength(1);
    expect(mine[0].verified).toBe(true);
    const body = JSON.parse(mine[0].body) as { type: string; data: { userId: string; id: string } };
    expect(body).toMatchObject({ type: 'signIn.succeeded', data: { userId, id: record.id } });
    // Once: a second pass finds nothing due.
    expect((await deliverWebhooks(later)).delivered).toBe(0);
    expect(hooks.received.filter((r) => r.id === record.id)).toHaveLength(1);
  });

  it('sends nothing for a sign-in the database refused: no session, no outbox row', async () => {
    const { schema, adapter, webhooks } = await world();
    const pool = db.pool(schema);
    await pool.query(`ALTER TABLE activity ADD CONSTRAINT refuse_sign_ins CHECK (kind <> 'signIn.succeeded')`);
    const { session } = await signIn(adapter, webhooks, strategy);
    expect(session).toBeNull();
    const rows = (await pool.query<{ type: string }>(`SELECT payload->>'type' AS type FROM webhook_outbox`)).rows.map((r) => r.type);
    expect(rows).not.toContain('signIn.succeeded');
  });

  it('refuses the sign-in when its outbox row cannot be written: no session, no record, nothing to send', async () => {
    const { schema, adapter, webhooks } = await world();
    const pool = db.pool(schema);
    await pool.query(`ALTER TABLE webhook_outbox ADD CONSTRAINT refuse_outbox CHECK (payload->>'type' <> 'signIn.succeeded')`);
    const { userId, res, session } = await signIn(adapter, webhooks, strategy);
    expect(res.headers.get('location')).toContain('/auth/error');
    expect(session).toBeNull();
    expect((await pool.query('SELECT 1 FROM sessions WHERE user_id = $1', [userId])).rows).toEqual([]);
    expect((await adapter.listActivity({ userId, kinds: ['signIn.succeeded'] })).records).toEqual([]);
  });
});
