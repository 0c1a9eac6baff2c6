// Attacks on a passkey as the second factor (issue 18), over HTTP on real PostgreSQL with software authenticators:
// another user's passkey, assertions over challenges the pending sign-in never sealed (the first-factor options,
// another pending sign-in's, options asked for before newer ones), a replayed assertion (in turn and at once), no
// options at all, a late answer, malformed and repeated bad assertions. Each is a counted miss or a typed error:
// never a 500, never a session.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type pg from 'pg';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import { FACTOR_TTL_MS } from '../../src/flows/second-factor/steps.js';
import { Credentials } from '../../src/providers/credentials.js';
import { DEFAULT_WEBAUTHN_TIMEOUT_MS, Passkey } from '../../src/providers/webauthn.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import { createClient, type ClientResponse, type TestClient } from '../support/client.js';
import { activeTotp, registeredPasskey, setsSession, STAGE_COOKIE } from '../support/factors.js';
import { useSharedStores } from '../support/shared-stores.js';
import type { SoftAuthenticator } from '../flows/webauthn/webauthn-authenticator.js';

const stores = useSharedStores();
const PASSWORD = 'pw-of-everyone';
const NOW = Date.UTC(2026, 10, 23, 12, 0, 10);

let pool: pg.Pool;
let adapter: PostgresAdapterInstance;
let n = 0;

interface Person {
  id: string;
  email: string;
  device: SoftAuthenticator;
}

async function person(): Promise<Person> {
  const id = `pka-${++n}-${process.pid}`;
  const email = `${id}@example.com`;
  await adapter.createUser({ id, email, emailVerified: null });
  await activeTotp(adapter, id);
  return { id, email, device: await registeredPasskey(adapter, id) };
}

function app(): TestAuth & { events: string[] } {
  const events: string[] = [];
  const t = testAuth({
    adapter,
    session: { strategy: 'database' },
    secondFactor: {},
    experimental: { enableWebAuthn: true },
    events: { signIn: () => void events.push('signIn'), secondFactorFailed: () => void events.push('secondFactorFailed') },
    providers: [
      Credentials({
        credentials: { email: {}, password: { type: 'password' } },
        authorize: async (c) => {
          const user = c.password === PASSWORD ? await adapter.getUserByEmail(String(c.email)) : null;
          return user ? { id: user.id, email: user.email } : null;
        },
      }),
      Passkey(),
    ],
  });
  return Object.assign(t, { events });
}

/** The password step, the stage offering a passkey: the browser's CSRF token. */
async function password(t: TestAuth, who: Person, client: TestClient = t.client): Promise<string> {
  const csrfToken = await t.csrfToken(client);
  const res = await client.post('/auth/callback/credentials', { csrfToken, email: who.email, password: PASSWORD });
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('data-webauthn');
  return csrfToken;
}

type RequestOptions = Parameters<SoftAuthenticator['authenticate']>[0];

async function stageOptions(client: TestClient): Promise<RequestOptions> {
  const res = await client.get('/auth/second-factor?action=authenticate', { headers: { accept: 'application/json' } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { options: RequestOptions }).options;
}

const post = (client: TestClient, csrfToken: string, data: unknown) =>
  client.post('/auth/second-factor', { csrfToken, action: 'authenticate', data: typeof data === 'string' ? data : JSON.stringify(data) });

function copyOf(t: TestAuth, client: TestClient): TestClient {
  const copy = createClient({ fetch: t.handle, baseUrl: ORIGIN });
  for (const c of client.cookies.all()) copy.cookies.set(c.name, c.value, ORIGIN);
  return copy;
}

const sessionRows = async (who: Person) => (await pool.query('SELECT 1 FROM sessions WHERE user_id = $1', [who.id])).rowCount;
const signedIn = (res: ClientResponse) => res.status === 302 && setsSession(res) && !res.location?.searchParams.has('error');

/** A counted miss: the page again, saying so; no session. */
async function expectMiss(res: ClientResponse) {
  expect(res.status, 'never a 500').toBe(200);
  expect(setsSession(res)).toBe(false);
  expect(await res.text()).toContain('That passkey could not be verified');
}

describe('attacks on a passkey as the second factor', () => {
  beforeAll(async () => {
    pool = stores.pool(await stores.schema(), { max: 8 });
    adapter = PostgresAdapter(pool);
  });
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: NOW }));
  afterEach(() => vi.useRealTimers());

  it("another user's passkey, over the victim's own pending challenge: a miss, counted", async () => {
    const t = app();
    const victim = await person();
    const attacker = await person();
    const csrf = await password(t, victim);
    const options = await stageOptions(t.client);
    await expectMiss(await post(t.client, csrf, attacker.device.authenticate(options)));
    expect(t.events).toEqual(['secondFactorFailed']);
    expect(await sessionRows(victim)).toBe(0);
    expect(await sessionRows(attacker)).toBe(0);
  });

  it('an assertion over a challenge this pending sign-in did not seal: the first-factor options, another sign-in’s, older ones', async () => {
    const t = app();
    const who = await person();
    const csrf = await password(t, who);
    // The passkey sign-in's own options (the first-factor flow), fetched by the same browser.
    await stageOptions(t.client);
    const firstFactor = ((await (await t.client.get('/auth/webauthn-options/passkey?action=authenticate')).json()) as { options: RequestOptions }).options;
    await expectMiss(await post(t.client, csrf, who.device.authenticate(firstFactor)));
    // Another pending sign-in of the same user (another browser), and its options.
    await stageOptions(t.client);
    const other = t.newClient();
    await password(t, who, other);
    await expectMiss(await post(t.client, csrf, who.device.authenticate(await stageOptions(other))));
    // Options asked for again: only the newer challenge is sealed, and a miss spends it.
    const older = await stageOptions(t.client);
    const newer = await stageOptions(t.client);
    await expectMiss(await post(t.client, csrf, who.device.authenticate(older)));
    await expectMiss(await post(t.client, csrf, who.device.authenticate(newer)));
    expect(await sessionRows(who)).toBe(0);
    expect(signedIn(await post(t.client, csrf, who.device.authenticate(await stageOptions(t.client))))).toBe(true);
  });

  it('a replayed assertion: once in turn with a copy of the stage cookie, and many copies at once: one session', async () => {
    const t = app();
    const who = await person();
    const csrf = await password(t, who);
    const options = await stageOptions(t.client);
    const stale = copyOf(t, t.client);
    // A synced passkey's counter stays 0: only the single-use challenge and pending sign-in stop a replay.
    const assertion = who.device.authenticate(options, { counter: 0 });
    expect(signedIn(await post(t.client, csrf, assertion))).toBe(true);
    const replay = await post(stale, csrf, assertion);
    expect(replay.status).toBeLessThan(500);
    expect(signedIn(replay)).toBe(false);
    expect(await sessionRows(who)).toBe(1);

    const u = await person();
    const browser = t.newClient();
    const token = await password(t, u, browser);
    const once = u.device.authenticate(await stageOptions(browser), { counter: 0 });
    // Five copies: the four that lose the challenge count as misses, one short of the limit (maxAttempts 5), so the
    // winner is never refused for misses its own copies made; what this proves is that only one wins.
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(copyOf(t, browser), token, once)));
    expect(answers.filter(signedIn)).toHaveLength(1);
    for (const res of answers) expect(res.status).toBeLessThan(500);
    expect(await sessionRows(u)).toBe(1);
  });

  it('an assertion without options asked for, or after the options expired: a miss', async () => {
    const t = app();
    const who = await person();
    const csrf = await password(t, who);
    const madeUp = { challenge: Buffer.from('no options were asked for this').toString('base64url'), rpId: 'localhost' } as RequestOptions;
    await expectMiss(await post(t.client, csrf, who.device.authenticate(madeUp)));
    const options = await stageOptions(t.client);
    vi.setSystemTime(Date.now() + DEFAULT_WEBAUTHN_TIMEOUT_MS + 1_000);
    await expectMiss(await post(t.client, csrf, who.device.authenticate(options)));
    expect(await sessionRows(who)).toBe(0);
  });

  it('malformed assertions are misses; five misses end the pending sign-in, even for a valid assertion after', async () => {
    const t = app();
    const who = await person();
    const csrf = await password(t, who);
    const options = await stageOptions(t.client);
    for (const data of ['not json', '', JSON.stringify({ id: '../../etc' }), JSON.stringify({ id: 'x'.repeat(5000) })]) await expectMiss(await post(t.client, csrf, data));
    const fifth = await post(t.client, csrf, who.device.authenticate(options, { badSignature: true }));
    expect(fifth.location?.href).toBe(`${ORIGIN}/auth/error?error=SecondFactorFailed`);
    expect(t.events.filter((e) => e === 'secondFactorFailed')).toHaveLength(5);
    const after = await post(t.client, csrf, who.device.authenticate(options));
    expect(signedIn(after)).toBe(false);
    expect(after.status).toBeLessThan(500);
    expect(await sessionRows(who)).toBe(0);
  });

  it('options need a pending sign-in in time; the assertion needs the CSRF token', async () => {
    const t = app();
    const who = await person();
    const none = await t.newClient().get('/auth/second-factor?action=authenticate');
    expect(none.location?.href).toBe(`${ORIGIN}/auth/error?error=Configuration`);
    expect(t.logger.errorTypes().at(-1)).toBe('InvalidCheck');
    await password(t, who);
    const options = await stageOptions(t.client);
    const forged = await t.client.post('/auth/second-factor', { action: 'authenticate', data: JSON.stringify(who.device.authenticate(options)) });
    expect(setsSession(forged)).toBe(false);
    expect(t.logger.errorTypes().at(-1)).toBe('MissingCSRF');
    expect(t.client.cookies.get(STAGE_COOKIE)).toBeTruthy();
    vi.setSystemTime(Date.now() + FACTOR_TTL_MS + 1_000);
    const late = await t.client.get('/auth/second-factor?action=authenticate');
    expect(late.location?.href).toBe(`${ORIGIN}/auth/error?error=SecondFactorExpired`);
    expect(setsSession(late)).toBe(false);
    expect(await sessionRows(who)).toBe(0);
  });
});
