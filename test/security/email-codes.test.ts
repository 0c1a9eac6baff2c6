// Attacks on one-time e-mail codes: guessing past the allowed tries (also by replaying an earlier flow cookie to
// reset the count), replaying a used code, typing someone's code in another browser, using the code after the
// link (and the link after the code), learning from the answers whether an address has an account, and reading
// the code out of storage. Real flow, on the real PostgreSQL server (DATABASE_URL, a schema of this file's own),
// whose adapter is also the flow store.
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import { memoryOutbox } from '../support/magic-link.js';
import { codeKey } from '../../src/flows/email/codes.js';
import { hashToken } from '../../src/flows/email/steps.js';
import { ORIGIN, TEST_SECRET, testAuth, type TestAuth } from '../support/auth-app.js';
import type { ClientResponse, TestClient } from '../support/client.js';
import { parseSetCookie } from '../support/cookie-jar.js';
import { useSharedStores } from '../support/shared-stores.js';
import { readForms } from '../e2e/peers/html-form.js';

const stores = useSharedStores();
const pg = {} as { db: Pool; adapter: PostgresAdapterInstance };
beforeAll(async () => {
  pg.db = stores.pool(await stores.schema());
  pg.adapter = PostgresAdapter(pg.db);
}, 60_000);
const MAX = 3;
const VERIFICATION = `${ORIGIN}/auth/error?error=Verification`;

function setup(overrides: { resendCooldown?: number } = {}) {
  const outbox = memoryOutbox({ confirm: false, code: { maxAttempts: MAX, resendCooldown: overrides.resendCooldown ?? 0 } });
  const t = testAuth({ providers: [outbox.provider], adapter: pg.adapter });
  /** The code mailed to `email` most recently. */
  const codeFor = (email: string) => outbox.sent.findLast((m) => m.identifier === email)!.code!;
  return { t, outbox, codeFor };
}

const newAddress = (tag: string) => `${tag}-${randomUUID()}@attack.test`;

async function ask(t: TestAuth, email: string, client: TestClient = t.client): Promise<ClientResponse> {
  const csrfToken = await t.csrfToken(client);
  return client.post('/auth/signin/email', { csrfToken, email, callbackUrl: `${ORIGIN}/dashboard` });
}

/** Posts `code` as the code page's form would, from `client` (its flow cookie, if any, goes along). */
async function submit(t: TestAuth, client: TestClient, code: string): Promise<ClientResponse> {
  const csrfToken = await t.csrfToken(client);
  return client.post('/auth/callback/email', { csrfToken, code });
}

const flowCookie = (client: TestClient) => client.cookies.get('authchart.flow.email');
const signedIn = async (client: TestClient) => ((await (await client.get('/auth/session')).json()) as { user?: { email?: string } } | null)?.user?.email ?? null;
const wrongOf = (code: string) => (code === '000000' ? '111111' : '000000');

/**
 * The answer once a code is dead: the page that offers a new code (no code field), saying why, with no session.
 * Reads the body.
 */
async function deadCodePage(res: ClientResponse, why: 'tries' | 'gone'): Promise<void> {
  expect(res.status, 'the new-code page').toBe(200);
  const html = await res.text();
  expect(html).not.toContain('name="code"');
  expect(readForms(html).some((f) => f.fields.action === 'resend'), 'a new code offered').toBe(true);
  expect(html).toContain(why === 'tries' ? 'Too many wrong codes' : 'expired or was already used');
}

async function tokensLeft(email: string): Promise<number> {
  const { rows } = await pg.db.query<{ n: number }>('SELECT count(*)::int AS n FROM verification_token WHERE identifier = $1', [email]);
  return rows[0].n;
}

describe('e-mail codes under attack', () => {
  it('guessing: after the allowed wrong tries the code is dead, the right code then fails, and the link died with it', async () => {
    const { t, outbox, codeFor } = setup();
    const email = newAddress('guess');
    await ask(t, email);
    const code = codeFor(email);
    for (let i = 1; i < MAX; i++) expect((await submit(t, t.client, wrongOf(code))).status, `wrong try ${i}`).toBe(200);
    const last = await submit(t, t.client, wrongOf(code));
    // The last allowed miss ends the code: the page offers a new one for the same address, and nothing else.
    await deadCodePage(last, 'tries');
    expect(await tokensLeft(email), 'the token behind code and link is revoked').toBe(0);
    // The right code now, posted from the old page: refused.
    expect((await submit(t, t.client, code)).location?.href).toBe(VERIFICATION);
    expect((await t.client.get(outbox.linkFor(email))).location?.href).toBe(VERIFICATION);
    expect(await signedIn(t.client)).toBeNull();
  });

  it('guessing with a replayed flow cookie buys no fresh tries: they are counted on the server', async () => {
    const { t, codeFor } = setup();
    const email = newAddress('replay-tries');
    await ask(t, email);
    const code = codeFor(email);
    const sealed = flowCookie(t.client)!;
    let last: ClientResponse | undefined;
    for (let i = 0; i < MAX; i++) {
      // Every try goes with the cookie as it was when the code was sent, as an attacker resetting a client-side count would.
      t.client.cookies.set('authchart.flow.email', sealed, ORIGIN);
      last = await submit(t, t.client, wrongOf(code));
    }
    await deadCodePage(last!, 'tries');
    // The right code with the replayed cookie finds no code left to compare.
    t.client.cookies.set('authchart.flow.email', sealed, ORIGIN);
    await deadCodePage(await submit(t, t.client, code), 'gone');
    expect(await signedIn(t.client)).toBeNull();
  });

  it('replaying a used code, with the flow cookie it was typed with, signs nobody in again', async () => {
    const { t, codeFor } = setup();
    const email = newAddress('replay');
    await ask(t, email);
    const code = codeFor(email);
    const sealed = flowCookie(t.client)!;
    expect((await submit(t, t.client, code)).location?.href).toBe(`${ORIGIN}/dashboard`);
    expect(await signedIn(t.client)).toBe(email);

    const attacker = t.newClient();
    attacker.cookies.set('authchart.flow.email', sealed, ORIGIN);
    await deadCodePage(await submit(t, attacker, code), 'gone');
    expect(await signedIn(attacker)).toBeNull();
  });

  it("another browser cannot use someone's code: without the asking browser's flow cookie it names no code", async () => {
    const { t, codeFor } = setup();
    const email = newAddress('victim');
    await ask(t, email);
    const code = codeFor(email);

    // A browser that never asked.
    const stranger = t.newClient();
    expect((await submit(t, stranger, code)).location?.href).toBe(VERIFICATION);
    expect(await signedIn(stranger)).toBeNull();
    // A browser that asked for a code of its own (for the same address): the victim's code is just wrong there.
    const rival = t.newClient();
    await ask(t, email, rival);
    expect((await submit(t, rival, code)).status).toBe(200);
    expect(await signedIn(rival)).toBeNull();

    // Neither try cost the asking browser anything: its own code still signs it in.
    expect((await submit(t, t.client, code)).location?.href).toBe(`${ORIGIN}/dashboard`);
    expect(await signedIn(t.client)).toBe(email);
  });

  it('the code after the link: the link used first spends the code', async () => {
    const { t, outbox, codeFor } = setup();
    const email = newAddress('link-first');
    await ask(t, email);
    const code = codeFor(email);
    const elsewhere = t.newClient();
    expect((await elsewhere.get(outbox.linkFor(email))).location?.href).toBe(`${ORIGIN}/dashboard`);
    await deadCodePage(await submit(t, t.client, code), 'gone');
    expect(await signedIn(t.client)).toBeNull();
    const tokenHash = hashToken(outbox.sent.findLast((m) => m.identifier === email)!.token, TEST_SECRET);
    const { rows } = await pg.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM flow_store WHERE key LIKE $1`, [`%${codeKey(tokenHash)}`]);
    expect(rows[0].n, 'the code entry went with the link').toBe(0);
  });

  it('the link after the code: the code used first spends the link', async () => {
    const { t, outbox, codeFor } = setup();
    const email = newAddress('code-first');
    await ask(t, email);
    expect((await submit(t, t.client, codeFor(email))).location?.href).toBe(`${ORIGIN}/dashboard`);
    const elsewhere = t.newClient();
    expect((await elsewhere.get(outbox.linkFor(email))).location?.href).toBe(VERIFICATION);
    expect(await signedIn(elsewhere)).toBeNull();
  });

  it('the code is stored only as a keyed hash: neither the database nor the flow store holds it', async () => {
    const { t, codeFor } = setup();
    const email = newAddress('stored');
    await ask(t, email);
    const code = codeFor(email);
    const { rows } = await pg.db.query<{ dump: string }>(
      `SELECT coalesce(string_agg(key || ' ' || value, ' '), '') AS dump FROM flow_store UNION ALL SELECT coalesce(string_agg(identifier || ' ' || token, ' '), '') FROM verification_token`,
    );
    expect(rows.map((r) => r.dump).join(' ')).not.toContain(code);
    // And the flow cookie, opened, holds no code either (it is sealed; its plaintext never carries the code).
    expect(flowCookie(t.client)).not.toContain(code);
  });

  describe('no enumeration', () => {
    /** What a response shows apart from its random parts. */
    function observable(res: ClientResponse, body: string, email: string) {
      const cookies = res.setCookie.map((line) => {
        const { value: _v, expires: _e, ...rest } = parseSetCookie(line)!;
        return rest;
      });
      const page = body.replaceAll(email, 'ADDRESS').replace(/name="csrfToken" value="[^"]*"/g, '').replace(/nonce="[^"]*"/g, '');
      return { status: res.status, location: res.location?.href ?? null, contentType: res.headers.get('content-type'), cookies, page };
    }

    it('a known and an unknown address get the same code page, the same mail, and the same cooldown', async () => {
      const { t, outbox } = setup({ resendCooldown: 60 });
      const known = newAddress('known');
      await pg.adapter.createUser({ id: randomUUID(), email: known, emailVerified: new Date() });
      const unknown = newAddress('unknown');
      const seen = [];
      for (const email of [known, unknown]) {
        const client = t.newClient();
        const res = await ask(t, email, client);
        seen.push(observable(res, await res.text(), email));
      }
      expect(seen[1]).toEqual(seen[0]);
      expect(seen[0].status).toBe(200);
      expect(outbox.sent.filter((m) => m.identifier === known || m.identifier === unknown).map((m) => [m.identifier, /^\d{6}$/.test(m.code!)])).toEqual([
        [known, true],
        [unknown, true],
      ]);

      // Within the cooldown, both are refused alike, and nothing more is mailed.
      const again = [];
      for (const email of [known, unknown]) {
        const res = await ask(t, email, t.newClient());
        again.push(observable(res, await res.text(), email));
      }
      expect(again[1]).toEqual(again[0]);
      expect(again[0].location).toBe(`${ORIGIN}/auth/signin?error=RateLimited`);
      expect(outbox.sent.filter((m) => m.identifier === known || m.identifier === unknown)).toHaveLength(2);
    });
  });
});
