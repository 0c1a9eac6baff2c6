// GET /auth/flow/:slot shows a paused flow's page from its flow cookie, so a client that reads redirects as data
// (next-auth's, authchart's) is answered `{ url }` of it: the e-mail code page, the second-factor check after a
// password. Attacks: the GET must not advance or replay the flow (no mail, no try spent, no cookie rewritten), and
// without a live flow cookie it shows nothing. PostgresAdapter on PGlite and on the PostgreSQL server (a schema of
// this file's own), under both session strategies.
import { PGlite } from '@electric-sql/pglite';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import type { SessionStrategy } from '../../src/core/options.js';
import { Credentials } from '../../src/providers/credentials.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';
import { activeTotp } from '../support/factors.js';
import { memoryOutbox } from '../support/magic-link.js';
import { useSharedStores } from '../support/shared-stores.js';
import { readForms } from '../e2e/peers/html-form.js';

const MAX = 3;
const DASHBOARD = `${ORIGIN}/dashboard`;
const stores = useSharedStores();
let pglite: PGlite;
const adapters: Record<string, PostgresAdapterInstance> = {};

beforeAll(async () => {
  pglite = await PGlite.create();
  adapters.pglite = PostgresAdapter(pglite);
  await adapters.pglite.migrate();
  adapters.postgres = PostgresAdapter(stores.pool(await stores.schema()));
}, 60_000);
afterAll(async () => {
  if (pglite && !pglite.closed) await pglite.close();
});

const flowCookies = (res: { setCookie: readonly string[] }) => res.setCookie.filter((l) => l.startsWith('authchart.flow.'));
const session = async (client: TestClient) => ((await (await client.get('/auth/session')).json()) as { user?: { email?: string } } | null)?.user?.email ?? null;

describe.each(['pglite', 'postgres'] as const)('paused flow pages on %s', (db) => {
  describe.each(['jwt', 'database'] as SessionStrategy[])('%s sessions', (strategy) => {
    const address = (tag: string) => `${tag}-${db}-${strategy}-${randomUUID().slice(0, 8)}@paused.test`;

    function emailApp() {
      const outbox = memoryOutbox({ confirm: false, code: { maxAttempts: MAX, resendCooldown: 0 } });
      const t = testAuth({ providers: [outbox.provider], adapter: adapters[db], session: { strategy } });
      return { t, outbox };
    }

    /** Starts an e-mail code sign-in as next-auth's client does (`json=true`); the answer is `{ url }`. */
    async function askAsClient(t: TestAuth, email: string, client: TestClient = t.client) {
      return client.post('/auth/signin/email', { csrfToken: await t.csrfToken(client), email, callbackUrl: DASHBOARD, json: 'true' });
    }

    it('a JSON client starting an e-mail code sign-in gets { url } of the code page, which signs in', async () => {
      const { t, outbox } = emailApp();
      const email = address('client');
      const res = await askAsClient(t, email);
      expect(res.status).toBe(200);
      const { url } = (await res.json()) as { url: string };
      expect(url).toBe(`${ORIGIN}/auth/flow/email`);
      const page = await t.client.get(url);
      expect(page.status).toBe(200);
      const [form] = readForms(await page.text()).filter((f) => 'code' in f.fields);
      expect(new URL(form.action, ORIGIN).pathname).toBe('/auth/callback/email');
      const done = await t.client.post(new URL(form.action, ORIGIN), { ...form.fields, code: outbox.sent.at(-1)!.code! });
      expect(done.location?.href).toBe(DASHBOARD);
      expect(await session(t.client)).toBe(email);
    });

    it('attack: showing the page again and again advances nothing: no mail, no try spent, no cookie rewritten', async () => {
      const { t, outbox } = emailApp();
      const email = address('shown');
      await askAsClient(t, email);
      const before = t.client.cookies.get('authchart.flow.email');
      expect(before).toBeTruthy();
      for (let i = 0; i < 5; i++) {
        const page = await t.client.get('/auth/flow/email');
        expect(page.status).toBe(200);
        expect(flowCookies(page)).toEqual([]);
      }
      expect(t.client.cookies.get('authchart.flow.email')).toBe(before);
      expect(outbox.sent.filter((m) => m.identifier === email)).toHaveLength(1);
      // A wrong code still has all its tries: the page after it says MAX - 1 are left, and shows so when fetched again.
      const code = outbox.sent.at(-1)!.code!;
      const wrong = await t.client.post('/auth/callback/email', { csrfToken: await t.csrfToken(), code: code === '000000' ? '111111' : '000000' });
      expect(await wrong.text()).toContain(`${MAX - 1} tries left`);
      expect(await (await t.client.get('/auth/flow/email')).text()).toContain(`${MAX - 1} tries left`);
      const done = await t.client.post('/auth/callback/email', { csrfToken: await t.csrfToken(), code });
      expect(done.location?.href).toBe(DASHBOARD);
      // The flow is over: the page is gone with its cookie, and nothing runs again.
      const after = await t.client.get('/auth/flow/email');
      expect(after.status).toBe(302);
      expect(after.location?.pathname).toBe('/auth/error');
      expect(flowCookies(after)).toEqual([]);
      expect(outbox.sent.filter((m) => m.identifier === email)).toHaveLength(1);
    });

    it('attack: without a flow cookie, or for a flow that shows no page, nothing is shown', async () => {
      const { t } = emailApp();
      const none = await t.client.get('/auth/flow/email');
      expect(none.status).toBe(302);
      expect(none.location?.pathname).toBe('/auth/error');
      expect(flowCookies(none)).toEqual([]);
      const unknown = await t.client.get('/auth/flow/nobody');
      expect(unknown.status).toBeLessThan(500);
    });

    it('the second-factor check after a password: { url } of the check page, which takes the code', async () => {
      const adapter = adapters[db];
      const t = testAuth({
        adapter,
        session: { strategy },
        secondFactor: {},
        providers: [
          Credentials({
            credentials: { email: { label: 'Email' } },
            authorize: async (c) => {
              const user = await adapter.getUserByEmail(String(c.email));
              return user ? { id: user.id, email: user.email, name: user.name } : null;
            },
          }),
        ],
      });
      const email = address('factor');
      const user = await adapter.createUser({ id: randomUUID(), email, emailVerified: null });
      await activeTotp(adapter, user.id);
      const res = await t.client.post('/auth/callback/credentials', { csrfToken: await t.csrfToken(), email, callbackUrl: DASHBOARD, json: 'true' });
      expect(res.status).toBe(200);
      const { url } = (await res.json()) as { url: string };
      expect(url).toBe(`${ORIGIN}/auth/flow/second-factor`);
      const page = await t.client.get(url);
      expect(page.status).toBe(200);
      const forms = readForms(await page.text()).filter((f) => 'code' in f.fields);
      expect(forms.map((f) => new URL(f.action, ORIGIN).pathname)).toEqual(['/auth/second-factor']);
      expect(flowCookies(page)).toEqual([]);
      expect(await session(t.client)).toBeNull();
    });
  });
});
