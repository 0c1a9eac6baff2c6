// Attacks on the second-factor stage (issue 18), over HTTP against real PostgreSQL (concurrent requests really run
// in parallel on a pool): wrong, reused, expired and out-of-window codes, another user's pending sign-in, a backup
// code twice, one code submitted many times at once, tampered, foreign and outdated stage cookies, a post without
// the CSRF token. Each ends in a typed error or the code page again: never a 500, never a session.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type pg from 'pg';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import { FACTOR_TTL_MS } from '../../src/flows/second-factor/steps.js';
import { secondFactorStage, secondFactorMachine } from '../../src/flows/second-factor/machine.js';
import { Credentials } from '../../src/providers/credentials.js';
import { encryptJwe } from '../../src/session/jwe.js';
import { decodeSync } from '../../src/session/jwt.js';
import { deriveSessionKey } from '../../src/session/keys.js';
import { ORIGIN, TEST_SECRET, testAuth, type TestAuth } from '../support/auth-app.js';
import { createClient, type ClientResponse, type TestClient } from '../support/client.js';
import { activeBackupCode, activeTotp, codeNow, otherCode, setsSession, STAGE_COOKIE } from '../support/factors.js';
import { useSharedStores } from '../support/shared-stores.js';

const stores = useSharedStores();
const PASSWORD = 'pw-of-everyone';
// 10 s into a 30-second step: one step either way is in the window, two are not.
const NOW = Date.UTC(2026, 10, 23, 12, 0, 10);

let pool: pg.Pool;
let adapter: PostgresAdapterInstance;
let n = 0;

interface Person {
  id: string;
  email: string;
  key: Uint8Array;
}

async function person(): Promise<Person> {
  const id = `att-${++n}-${process.pid}`;
  const email = `${id}@example.com`;
  await adapter.createUser({ id, email, emailVerified: null });
  return { id, email, key: await activeTotp(adapter, id) };
}

function app(secret = TEST_SECRET): TestAuth {
  return testAuth({
    secret,
    adapter,
    session: { strategy: 'database' },
    secondFactor: {},
    providers: [
      Credentials({
        credentials: { email: {}, password: { type: 'password' } },
        authorize: async (c) => {
          const user = c.password === PASSWORD ? await adapter.getUserByEmail(String(c.email)) : null;
          return user ? { id: user.id, email: user.email } : null;
        },
      }),
    ],
  });
}

/** The password step: answers the stage (asserted) and the CSRF token of the browser. */
async function password(t: TestAuth, who: Person, client: TestClient = t.client): Promise<string> {
  const csrfToken = await t.csrfToken(client);
  const res = await client.post('/auth/callback/credentials', { csrfToken, email: who.email, password: PASSWORD });
  expect(res.status, `${res.location?.href} ${t.logger.errors.map((e) => e.message).join('; ')}`).toBe(200);
  expect(client.cookies.get(STAGE_COOKIE)).toBeTruthy();
  return csrfToken;
}

const submit = (client: TestClient, csrfToken: string, code: string) => client.post('/auth/second-factor', { csrfToken, code });

/** Another browser holding copies of every cookie `client` holds (the stage cookie, the CSRF cookie). */
function copyOf(t: TestAuth, client: TestClient): TestClient {
  const copy = createClient({ fetch: t.handle, baseUrl: ORIGIN });
  for (const c of client.cookies.all()) copy.cookies.set(c.name, c.value, ORIGIN);
  return copy;
}

const sessionRows = async (who: Person) => (await pool.query('SELECT 1 FROM sessions WHERE user_id = $1', [who.id])).rowCount;

/** A refusal: the code page again (`asked`), or a redirect to the error page naming `error`; no session either way. */
async function expectRefused(t: TestAuth, res: ClientResponse, outcome: { asked: true } | { error: string; logged: string }) {
  expect(res.status, 'never a 500').not.toBeGreaterThanOrEqual(500);
  expect(setsSession(res), 'no session cookie').toBe(false);
  if ('asked' in outcome) {
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('That code did not match');
  } else {
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe(`${ORIGIN}/auth/error?error=${outcome.error}`);
    expect(t.logger.errorTypes().at(-1)).toBe(outcome.logged);
  }
}

const signedIn = (res: ClientResponse) => res.status === 302 && setsSession(res) && !res.location?.searchParams.has('error');

describe('attacks on the second-factor stage', () => {
  beforeAll(async () => {
    pool = stores.pool(await stores.schema(), { max: 8 });
    adapter = PostgresAdapter(pool);
  });
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: NOW }));
  afterEach(() => vi.useRealTimers());

  it('a wrong code: the page asks again and the miss is counted in the database, not in the cookie', async () => {
    const t = app();
    const who = await person();
    const csrf = await password(t, who);
    await expectRefused(t, await submit(t.client, csrf, otherCode(codeNow(who.key))), { asked: true });
    const { rows } = await pool.query<{ failures: number; passed: boolean }>('SELECT failures, passed FROM factor_challenges ORDER BY expires DESC LIMIT 1');
    expect(rows[0]).toEqual({ failures: 1, passed: false });
    expect(await sessionRows(who)).toBe(0);
  });

  it('malformed codes are wrong codes: never a 500', async () => {
    const t = app();
    const who = await person();
    // Each in a pending sign-in of its own (five misses would end one).
    for (const code of ['', '12345', '1234567', 'abcdef', '1'.repeat(5000), '١٢٣٤٥٦', '12345\u0000', '12345-67890']) {
      const browser = t.newClient();
      await expectRefused(t, await submit(browser, await password(t, who, browser), code), { asked: true });
    }
    expect(await sessionRows(who)).toBe(0);
  });

  it('a code is accepted once: the same code, or an older one, in a later sign-in is refused', async () => {
    const t = app();
    const who = await person();
    const code = codeNow(who.key);
    expect(signedIn(await submit(t.client, await password(t, who), code))).toBe(true);
    const later = t.newClient();
    const csrf = await password(t, who, later);
    await expectRefused(t, await submit(later, csrf, code), { asked: true });
    await expectRefused(t, await submit(later, csrf, codeNow(who.key, -1)), { asked: true });
    expect(await sessionRows(who)).toBe(1);
  });

  it('codes two steps away are refused; one step either way is accepted (drift)', async () => {
    const t = app();
    const who = await person();
    const client = t.newClient();
    const csrf = await password(t, who, client);
    await expectRefused(t, await submit(client, csrf, codeNow(who.key, 2)), { asked: true });
    await expectRefused(t, await submit(client, csrf, codeNow(who.key, -2)), { asked: true });
    expect(signedIn(await submit(client, csrf, codeNow(who.key, -1)))).toBe(true);
    const next = t.newClient();
    expect(signedIn(await submit(next, await password(t, who, next), codeNow(who.key, 1)))).toBe(true);
  });

  it('an expired pending sign-in: the right code after 10 minutes is refused (SecondFactorExpired)', async () => {
    const t = app();
    const who = await person();
    const csrf = await password(t, who);
    vi.setSystemTime(NOW + FACTOR_TTL_MS + 1_000);
    await expectRefused(t, await submit(t.client, csrf, codeNow(who.key)), { error: 'SecondFactorExpired', logged: 'SecondFactorExpired' });
    // In time it would have passed.
    const intime = t.newClient();
    const csrf2 = await password(t, who, intime);
    vi.setSystemTime(Date.now() + FACTOR_TTL_MS - 1_000);
    expect(signedIn(await submit(intime, csrf2, codeNow(who.key)))).toBe(true);
  });

  it("another user's pending sign-in: codes are checked against the user the stage cookie is sealed for", async () => {
    const t = app();
    const victim = await person();
    const attacker = await person();
    const attackerBackup = await activeBackupCode(adapter, attacker.id);
    // The attacker knows the victim's password: the victim's stage, with the attacker's own code or backup code.
    const browser = t.newClient();
    const csrf = await password(t, victim, browser);
    await expectRefused(t, await submit(browser, csrf, codeNow(attacker.key)), { asked: true });
    await expectRefused(t, await submit(browser, csrf, attackerBackup), { asked: true });
    // Swapped: the attacker's own stage cookie with the victim's (phished) code, in the victim's browser or another.
    const own = t.newClient();
    const ownCsrf = await password(t, attacker, own);
    const victimBrowser = t.newClient();
    await password(t, victim, victimBrowser);
    victimBrowser.cookies.set(STAGE_COOKIE, own.cookies.get(STAGE_COOKIE)!, ORIGIN);
    const victimCode = codeNow(victim.key);
    await expectRefused(t, await submit(victimBrowser, (await t.csrfToken(victimBrowser)) as string, victimCode), { asked: true });
    await expectRefused(t, await submit(own, ownCsrf, victimCode), { asked: true });
    expect(await sessionRows(victim)).toBe(0);
    expect(await sessionRows(attacker)).toBe(0);
    // Each pending sign-in still takes its own user's code.
    expect(signedIn(await submit(browser, csrf, codeNow(victim.key)))).toBe(true);
    expect(signedIn(await submit(own, ownCsrf, codeNow(attacker.key)))).toBe(true);
  });

  it('a backup code works once', async () => {
    const t = app();
    const who = await person();
    const backup = await activeBackupCode(adapter, who.id);
    expect(signedIn(await submit(t.client, await password(t, who), backup))).toBe(true);
    const again = t.newClient();
    await expectRefused(t, await submit(again, await password(t, who, again), backup), { asked: true });
    expect(await sessionRows(who)).toBe(1);
  });

  describe('one code submitted many times at once: exactly one session', () => {
    it('copies of one stage cookie, the same app code', async () => {
      const t = app();
      const who = await person();
      const csrf = await password(t, who);
      const code = codeNow(who.key);
      const answers = await Promise.all(Array.from({ length: 8 }, () => submit(copyOf(t, t.client), csrf, code)));
      expect(answers.filter(signedIn)).toHaveLength(1);
      for (const res of answers) expect(res.status).toBeLessThan(500);
      expect(await sessionRows(who)).toBe(1);
    });

    it('copies of one stage cookie, each with another valid code (the app code and backup codes)', async () => {
      const t = app();
      const who = await person();
      const backups = await Promise.all(Array.from({ length: 5 }, () => activeBackupCode(adapter, who.id)));
      const csrf = await password(t, who);
      const answers = await Promise.all([codeNow(who.key), ...backups].map((code) => submit(copyOf(t, t.client), csrf, code)));
      expect(answers.filter(signedIn)).toHaveLength(1);
      for (const res of answers) expect(res.status).toBeLessThan(500);
      expect(await sessionRows(who)).toBe(1);
    });

    it('separate pending sign-ins, the same app code', async () => {
      const t = app();
      const who = await person();
      const browsers = Array.from({ length: 6 }, () => t.newClient());
      const tokens: string[] = [];
      for (const b of browsers) tokens.push(await password(t, who, b));
      const code = codeNow(who.key);
      const answers = await Promise.all(browsers.map((b, i) => submit(b, tokens[i], code)));
      expect(answers.filter(signedIn)).toHaveLength(1);
      expect(await sessionRows(who)).toBe(1);
    });

    it('separate pending sign-ins, the same backup code', async () => {
      const t = app();
      const who = await person();
      const backup = await activeBackupCode(adapter, who.id);
      const browsers = Array.from({ length: 6 }, () => t.newClient());
      const tokens: string[] = [];
      for (const b of browsers) tokens.push(await password(t, who, b));
      const answers = await Promise.all(browsers.map((b, i) => submit(b, tokens[i], backup)));
      expect(answers.filter(signedIn)).toHaveLength(1);
      expect(await sessionRows(who)).toBe(1);
    });
  });

  describe('stage cookies that are not a genuine pending sign-in of this app', () => {
    it('tampered, garbage or empty: InvalidCheck, the cookie cleared', async () => {
      const t = app();
      const who = await person();
      const csrf = await password(t, who);
      const sealed = t.client.cookies.get(STAGE_COOKIE)!;
      const middle = Math.floor(sealed.length / 2);
      const flipped = `${sealed.slice(0, middle)}${sealed[middle] === 'A' ? 'B' : 'A'}${sealed.slice(middle + 1)}`;
      for (const value of [flipped, 'garbage', sealed.split('.').slice(0, 3).join('.')]) {
        t.client.cookies.set(STAGE_COOKIE, value, ORIGIN);
        const res = await submit(t.client, csrf, codeNow(who.key));
        await expectRefused(t, res, { error: 'Configuration', logged: 'InvalidCheck' });
        expect(res.setCookie.some((l) => l.startsWith(`${STAGE_COOKIE}=;`))).toBe(true);
      }
      const none = t.newClient();
      await expectRefused(t, await submit(none, await t.csrfToken(none), codeNow(who.key)), { error: 'Configuration', logged: 'InvalidCheck' });
      expect(await sessionRows(who)).toBe(0);
    });

    it("sealed by another app (another secret), for the same user: InvalidCheck", async () => {
      const ours = app();
      const theirs = app('another-app-secret-that-is-long-enough-42');
      const who = await person();
      await password(theirs, who);
      const foreign = theirs.client.cookies.get(STAGE_COOKIE)!;
      const csrf = await ours.csrfToken();
      ours.client.cookies.set(STAGE_COOKIE, foreign, ORIGIN);
      await expectRefused(ours, await submit(ours.client, csrf, codeNow(who.key)), { error: 'Configuration', logged: 'InvalidCheck' });
      expect(await sessionRows(who)).toBe(0);
    });

    /** The claims of a genuine stage cookie, resealed as `change` says (what a stolen key, or an older release, makes). */
    function resealed(value: string, change: (claims: Record<string, unknown>) => void): string {
      const claims = decodeSync({ token: value, secret: [TEST_SECRET], salt: STAGE_COOKIE }) as unknown as Record<string, unknown>;
      change(claims);
      return encryptJwe(Buffer.from(JSON.stringify(claims)), deriveSessionKey(TEST_SECRET, STAGE_COOKIE).key);
    }

    it('sealed by another release of the second-factor machine (another version): InvalidCheck, even with the right code', async () => {
      const t = app();
      const who = await person();
      const csrf = await password(t, who);
      const genuine = t.client.cookies.get(STAGE_COOKIE)!;
      expect((decodeSync({ token: genuine, secret: [TEST_SECRET], salt: STAGE_COOKIE }) as { m: string; v: number }).m).toBe(secondFactorMachine.id);
      t.client.cookies.set(STAGE_COOKIE, resealed(genuine, (c) => (c.v = secondFactorStage.version + 1)), ORIGIN);
      await expectRefused(t, await submit(t.client, csrf, codeNow(who.key)), { error: 'Configuration', logged: 'InvalidCheck' });
      expect(await sessionRows(who)).toBe(0);
    });

    it('sealed at a state past the check (passed, choosing, a state that does not wait, one that no longer exists): InvalidCheck', async () => {
      const t = app();
      const who = await person();
      const csrf = await password(t, who);
      const genuine = t.client.cookies.get(STAGE_COOKIE)!;
      for (const state of ['passed', 'choosing', 'verifyingCode', 'issuingSession']) {
        t.client.cookies.set(STAGE_COOKIE, resealed(genuine, (c) => (c.s = state)), ORIGIN);
        await expectRefused(t, await submit(t.client, csrf, otherCode(codeNow(who.key))), { error: 'Configuration', logged: 'InvalidCheck' });
      }
      expect(await sessionRows(who)).toBe(0);
    });
  });

  it('a code posted without the CSRF token: MissingCSRF; nothing counted, the pending sign-in intact', async () => {
    const t = app();
    const who = await person();
    const csrf = await password(t, who);
    const forged = await t.client.post('/auth/second-factor', { code: codeNow(who.key) });
    expect(forged.status).toBeLessThan(500);
    expect(setsSession(forged)).toBe(false);
    expect(t.logger.errorTypes()).toContain('MissingCSRF');
    const wrongToken = await t.client.post('/auth/second-factor', { code: codeNow(who.key), csrfToken: 'x'.repeat(64) });
    expect(setsSession(wrongToken)).toBe(false);
    expect(await sessionRows(who)).toBe(0);
    // Nothing was spent: the same code with the token still passes.
    expect(signedIn(await submit(t.client, csrf, codeNow(who.key)))).toBe(true);
  });
});
