// The second-factor stage through HTTP: a user with an active authenticator-app factor gets the code form instead
// of a session after their password; the right code issues the session, wrong ones are counted in the database.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Credentials } from '../../../src/providers/credentials.js';
import { sealFactorKey } from '../../../src/flows/second-factor/secret-box.js';
import { newTotpKey, totpCode, totpStep } from '../../../src/flows/second-factor/totp.js';
import { hashBackupCode } from '../../../src/flows/second-factor/backup-codes.js';
import { TEST_SECRET, testAuth, type TestAuth } from '../../support/auth-app.js';
import { useMigratedPGlite } from '../../support/pglite.js';
import type { TestClient } from '../../support/client.js';

const pg = useMigratedPGlite();
const SESSION = 'authchart.session-token';
const STAGE = 'authchart.flow-second-factor';
let n = 0;

interface World {
  t: TestAuth;
  userId: string;
  email: string;
  key: Uint8Array;
  events: { type: string; message: unknown }[];
}

async function world(options: { factor?: boolean; backup?: string } = {}): Promise<World> {
  const userId = `u-${++n}-${Date.now()}`;
  const email = `${userId}@example.com`;
  await pg.adapter.createUser({ id: userId, email, emailVerified: null });
  const key = newTotpKey();
  if (options.factor !== false) {
    await pg.adapter.createFactor({ id: `f-${userId}`, userId, kind: 'totp', secret: sealFactorKey([TEST_SECRET], key), createdAt: new Date(), activatedAt: new Date(), lastStep: null });
  }
  if (options.backup) {
    await pg.adapter.createFactor({ id: `b-${userId}`, userId, kind: 'backup', secret: hashBackupCode(options.backup), createdAt: new Date(), activatedAt: new Date() });
  }
  const events: World['events'] = [];
  const record = (type: string) => (message: unknown) => void events.push({ type, message });
  const t = testAuth({
    adapter: pg.adapter,
    session: { strategy: 'jwt' },
    secondFactor: {},
    events: { signIn: record('signIn'), secondFactorFailed: record('secondFactorFailed') },
    providers: [Credentials({ credentials: { email: {}, password: {} }, authorize: (c) => (c.password === 'pw' ? { id: userId, email } : null) })],
  });
  return { t, userId, email, key, events };
}

const sessionSet = (res: { setCookie: readonly string[] }) => res.setCookie.some((l) => l.startsWith(`${SESSION}=`) && !/max-age=0/i.test(l));

async function password(w: World, client: TestClient = w.t.client) {
  const csrfToken = await w.t.csrfToken(client);
  const res = await client.post('/auth/callback/credentials', { csrfToken, email: w.email, password: 'pw' });
  return { res, csrfToken };
}
const submit = (w: World, csrfToken: string, code: string, client: TestClient = w.t.client) => client.post('/auth/second-factor', { csrfToken, code });

describe('the second-factor stage', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 23, 12, 0, 10) }));
  afterEach(() => vi.useRealTimers());

  it('the paused check\'s cookie stays small whatever the user has (it held every factor once, and browsers drop a cookie over 4 KB)', async () => {
    const w = await world();
    for (let i = 0; i < 10; i++) {
      await pg.adapter.createFactor({ id: `b${i}-${w.userId}`, userId: w.userId, kind: 'backup', secret: hashBackupCode(`code${i}-abcde`), label: 'Backup code', createdAt: new Date(), activatedAt: new Date() });
    }
    await password(w);
    const sealed = w.t.client.cookies.get(STAGE)!;
    expect(sealed).toBeTruthy();
    expect(sealed.length).toBeLessThan(1500);
  });

  it('after the password: a code form and the stage cookie, no session, no signIn event', async () => {
    const w = await world();
    const { res } = await password(w);
    expect(res.status).toBe(200);
    expect(sessionSet(res)).toBe(false);
    const page = await res.text();
    expect(page).toContain('Two-step verification');
    expect(page).toMatch(/action="[^"]*\/auth\/second-factor"/);
    expect(w.t.client.cookies.get(STAGE)).toBeTruthy();
    expect(w.events.filter((e) => e.type === 'signIn')).toEqual([]);
    expect(await (await w.t.client.get('/auth/session')).json()).toBeNull();
  });

  it('the right code issues the session and emits signIn; the stage cookie is spent', async () => {
    const w = await world();
    const { csrfToken } = await password(w);
    const res = await submit(w, csrfToken, totpCode(w.key, totpStep(Date.now())));
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).not.toMatch(/error=/);
    expect(sessionSet(res)).toBe(true);
    expect(res.setCookie.some((l) => l.startsWith(`${STAGE}=;`) && /max-age=0/i.test(l))).toBe(true);
    expect(((await (await w.t.client.get('/auth/session')).json()) as { user: { email: string } }).user.email).toBe(w.email);
    expect(w.events.map((e) => e.type)).toEqual(['signIn']);
  });

  it('a wrong code asks again (counted, secondFactorFailed); five wrong codes kill the pending sign-in, even the right one after', async () => {
    const w = await world();
    const { csrfToken } = await password(w);
    const right = totpCode(w.key, totpStep(Date.now()));
    const wrong = right === '000000' ? '111111' : '000000';
    for (let i = 1; i <= 4; i++) {
      const res = await submit(w, csrfToken, wrong);
      expect(res.status).toBe(200);
      // Each answer says how many tries are left before the sign-in stops (issue 46).
      expect(await res.text()).toContain(i < 4 ? `That code did not match. ${5 - i} tries left.` : 'That code did not match. 1 try left: after another wrong code this sign-in stops.');
    }
    const fifth = await submit(w, csrfToken, wrong);
    expect(fifth.headers.get('location')).toMatch(/error=SecondFactorFailed/);
    // The error page it lands on says what happened in words and offers signing in again, never the bare id.
    const page = await w.t.client.get(fifth.headers.get('location')!);
    const html = await page.text();
    expect(html).toContain('Too many wrong codes');
    expect(html).toContain('use one of your backup codes, or use a passkey');
    expect(html).not.toContain('Error code');
    expect(html).toMatch(/<a class="button" href="[^"]*\/auth\/signin[^"]*">Sign in<\/a>/);
    expect(w.events.map((e) => [e.type, (e.message as { attempts: number }).attempts])).toEqual([1, 2, 3, 4, 5].map((a) => ['secondFactorFailed', a]));
    expect((w.events.at(-1)!.message as { locked: boolean }).locked).toBe(true);
    expect(sessionSet(fifth)).toBe(false);
    expect(await (await w.t.client.get('/auth/session')).json()).toBeNull();
  });

  it('a replayed stage cookie after a wrong attempt does not reset the count', async () => {
    const w = await world();
    const { csrfToken } = await password(w);
    const sealed = w.t.client.cookies.get(STAGE)!;
    const right = totpCode(w.key, totpStep(Date.now()));
    const wrong = right === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      w.t.client.cookies.set(STAGE, sealed, 'localhost:3000');
      await submit(w, csrfToken, wrong);
    }
    w.t.client.cookies.set(STAGE, sealed, 'localhost:3000');
    const res = await submit(w, csrfToken, right);
    expect(res.headers.get('location')).toMatch(/error=SecondFactorFailed/);
    expect(sessionSet(res)).toBe(false);
  });

  it('a code is accepted once: the same code again (a second sign-in, or a replayed cookie after success) is refused', async () => {
    const w = await world();
    const { csrfToken } = await password(w);
    const sealed = w.t.client.cookies.get(STAGE)!;
    const code = totpCode(w.key, totpStep(Date.now()));
    expect(sessionSet(await submit(w, csrfToken, code))).toBe(true);
    const other = w.t.newClient();
    const second = await password(w, other);
    const again = await submit(w, second.csrfToken, code, other);
    expect(again.status).toBe(200);
    expect(sessionSet(again)).toBe(false);
    const replay = w.t.newClient();
    replay.cookies.set(STAGE, sealed, 'localhost:3000');
    const replayCsrf = await w.t.csrfToken(replay);
    const res = await submit(w, replayCsrf, totpCode(w.key, totpStep(Date.now()) + 1), replay);
    expect(res.headers.get('location')).toMatch(/error=SecondFactorFailed/);
  });

  it('a backup code works once', async () => {
    const w = await world({ backup: 'abcde-fghjk' });
    const first = await password(w);
    expect(sessionSet(await submit(w, first.csrfToken, 'ABCDE-FGHJK'))).toBe(true);
    const other = w.t.newClient();
    const second = await password(w, other);
    const res = await submit(w, second.csrfToken, 'abcdefghjk', other);
    expect(res.status).toBe(200);
    expect(sessionSet(res)).toBe(false);
  });

  it('expires after 10 minutes', async () => {
    const w = await world();
    const { csrfToken } = await password(w);
    vi.setSystemTime(Date.now() + 10 * 60_000 + 1_000);
    const res = await submit(w, csrfToken, totpCode(w.key, totpStep(Date.now())));
    // Its own error, not "too many wrong codes": no code was wrong.
    expect(res.headers.get('location')).toMatch(/error=SecondFactorExpired$/);
    expect(sessionSet(res)).toBe(false);
  });

  it('a user without a factor signs in as before', async () => {
    const w = await world({ factor: false });
    const { res } = await password(w);
    expect(res.status).toBe(302);
    expect(sessionSet(res)).toBe(true);
  });
});
