// A signed-in user's factors through HTTP (PGlite, JWT and database sessions): enrolling an authenticator app
// (inactive until a first code), backup codes shown once and stored hashed, removal behind a fresh code, the JSON
// list, and the session's record of when and how it was verified.
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Credentials } from '../../../src/providers/credentials.js';
import { hashBackupCode } from '../../../src/flows/second-factor/backup-codes.js';
import { totpCode, totpStep } from '../../../src/flows/second-factor/totp.js';
import type { SessionCallbackParams } from '../../../src/core/options.js';
import { testAuth, type TestAuth } from '../../support/auth-app.js';
import { useMigratedPGlite } from '../../support/pglite.js';

const pg = useMigratedPGlite();
const FACTORS = 'authchart.flow-second-factor';
let n = 0;

interface World {
  t: TestAuth;
  userId: string;
  email: string;
  events: { type: string; message: Record<string, unknown> }[];
  seen: SessionCallbackParams[];
}

async function world(strategy: 'jwt' | 'database' = 'jwt'): Promise<World> {
  const userId = `m-${++n}-${Date.now()}`;
  const email = `${userId}@example.com`;
  await pg.adapter.createUser({ id: userId, email, emailVerified: null });
  const events: World['events'] = [];
  const seen: SessionCallbackParams[] = [];
  const record = (type: string) => (message: unknown) => void events.push({ type, message: message as Record<string, unknown> });
  const t = testAuth({
    adapter: pg.adapter,
    session: { strategy },
    secondFactor: { issuer: 'Test' },
    callbacks: {
      session: (params) => {
        seen.push(params);
        return { ...params.session, amr: params.token?.amr ?? params.verification?.amr, authTime: params.token?.auth_time ?? params.verification?.authTime?.getTime() };
      },
    },
    events: { factorEnrolled: record('factorEnrolled'), factorRemoved: record('factorRemoved'), secondFactorFailed: record('secondFactorFailed'), signIn: record('signIn') },
    providers: [Credentials({ credentials: { email: {}, password: {} }, authorize: (c) => (c.password === 'pw' ? { id: String(c.email).split('@')[0], email: String(c.email) } : null) })],
  });
  return { t, userId, email, events, seen };
}

async function signIn(w: World) {
  const csrfToken = await w.t.csrfToken();
  return w.t.client.post('/auth/callback/credentials', { csrfToken, email: w.email, password: 'pw' });
}

async function session(w: World): Promise<{ user?: { email: string }; amr?: string[]; authTime?: number } | null> {
  return (await w.t.client.get('/auth/session')).json() as never;
}

/** The base32 key an enrolment page shows, as bytes. */
function keyOf(page: string): Uint8Array {
  const typed = /data-copy-value>([A-Z2-7 ]+)</.exec(page)?.[1];
  if (!typed) throw new Error('no key on the page');
  return decodeBase32IgnorePadding(typed.replace(/ /g, ''));
}

const other = (code: string) => (code === '000000' ? '111111' : '000000');
const stepCode = (key: Uint8Array, offset = 0) => totpCode(key, totpStep(Date.now()) + offset);

async function enrol(w: World): Promise<Uint8Array> {
  const csrfToken = await w.t.csrfToken();
  const page = await (await w.t.client.post('/auth/factors/totp', { csrfToken, callbackUrl: '/account' })).text();
  const key = keyOf(page);
  const res = await w.t.client.post('/auth/factors/code', { csrfToken, code: stepCode(key) });
  expect(res.headers.get('location')).toBe('http://localhost:3000/account');
  return key;
}

describe('managing factors', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 23, 12, 0, 10) }));
  afterEach(() => vi.useRealTimers());

  it('signed out: the list answers 401 to JSON and sends a browser to sign in; actions need the CSRF token', async () => {
    const w = await world();
    const api = await w.t.client.get('/auth/factors', { headers: { accept: 'application/json' } });
    expect(api.status).toBe(401);
    const page = await w.t.client.get('/auth/factors', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(302);
    expect(page.location?.pathname).toBe('/auth/signin');
    expect(page.location?.searchParams.get('callbackUrl')).toBe('http://localhost:3000/auth/factors');
    await signIn(w);
    const forged = await w.t.client.post('/auth/factors/totp', {});
    expect(forged.location?.searchParams.get('error')).toBe('MissingCSRF');
    expect(await pg.adapter.listFactors(w.userId)).toEqual([]);
  });

  it('enrolment shows a QR code and the key; the factor is inactive until a code confirms it; a wrong code shows it again', async () => {
    const w = await world();
    await signIn(w);
    const before = (await session(w))!;
    expect(before.amr).toEqual(['pwd']);
    const csrfToken = await w.t.csrfToken();
    const res = await w.t.client.post('/auth/factors/totp', { csrfToken, callbackUrl: '/account' });
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('src="data:image/svg+xml;base64,');
    expect(page).toMatch(/href="otpauth:\/\/totp\/Test:[^"]+"/);
    expect(page).toMatch(/action="http:\/\/localhost:3000\/auth\/second-factor"/);
    const key = keyOf(page);
    const [pending] = await pg.adapter.listFactors(w.userId);
    expect(pending.activatedAt).toBeNull();
    // Not a factor yet: a sign-in now needs no code.
    const again = w.t.newClient();
    const ct = await w.t.csrfToken(again);
    expect((await again.post('/auth/callback/credentials', { csrfToken: ct, email: w.email, password: 'pw' })).status).toBe(302);

    const wrong = await w.t.client.post('/auth/factors/code', { csrfToken, code: other(stepCode(key)) });
    expect(wrong.status).toBe(200);
    expect(await wrong.text()).toContain('That code did not match');
    expect(w.events.map((e) => e.type)).toContain('secondFactorFailed');

    vi.setSystemTime(Date.now() + 60_000);
    const ok = await w.t.client.post('/auth/factors/code', { csrfToken, code: stepCode(key) });
    expect(ok.status).toBe(302);
    expect(ok.headers.get('location')).toBe('http://localhost:3000/account');
    expect(ok.setCookie.some((l) => l.startsWith(`${FACTORS}=;`))).toBe(true);
    const [active] = await pg.adapter.listFactors(w.userId);
    expect(active.activatedAt).not.toBeNull();
    expect(w.events.find((e) => e.type === 'factorEnrolled')?.message.factor).toEqual({ id: active.id, kind: 'totp' });
    // Confirming with a code is a factor check: the session says so.
    const after = (await session(w))!;
    expect(after.amr).toEqual(['pwd', 'otp']);
    expect(after.authTime).toBe(Math.floor(Date.now() / 1000));
    // And from now on a sign-in stops at the stage.
    const third = w.t.newClient();
    const ct3 = await w.t.csrfToken(third);
    const stage = await third.post('/auth/callback/credentials', { csrfToken: ct3, email: w.email, password: 'pw' });
    expect(stage.status).toBe(200);
    expect(await stage.text()).toContain('Two-step verification');
  });

  it('backup codes: ten, shown once, stored hashed; fresh after enrolment no code is asked; later a new set needs one and replaces the old', async () => {
    const w = await world();
    await signIn(w);
    const key = await enrol(w);
    const csrfToken = await w.t.csrfToken();
    const res = await w.t.client.post('/auth/factors/backup-codes', { csrfToken, callbackUrl: '/account' });
    expect(res.status).toBe(200);
    const first = [...(await res.text()).matchAll(/<li>([a-z2-9]{5}-[a-z2-9]{5})<\/li>/g)].map((m) => m[1]);
    expect(first).toHaveLength(10);
    expect(new Set(first).size).toBe(10);
    const stored = (await pg.adapter.listFactors(w.userId)).filter((f) => f.kind === 'backup');
    expect(stored.map((f) => f.secret).sort()).toEqual(first.map(hashBackupCode).sort());
    expect(stored.every((f) => !first.includes(f.secret))).toBe(true);
    expect(w.events.filter((e) => e.type === 'factorEnrolled').at(-1)?.message.factor).toEqual({ id: 'backup', kind: 'backup' });

    // Six minutes on, the last check is stale: a code first.
    vi.setSystemTime(Date.now() + 6 * 60_000);
    const ask = await w.t.client.post('/auth/factors/backup-codes', { csrfToken, callbackUrl: '/account' });
    expect(ask.status).toBe(200);
    expect(await ask.text()).toContain('Confirm it is you');
    expect((await pg.adapter.listFactors(w.userId)).filter((f) => f.kind === 'backup')).toHaveLength(10);
    const codes = await w.t.client.post('/auth/factors/code', { csrfToken, code: stepCode(key) });
    const second = [...(await codes.text()).matchAll(/<li>([a-z2-9]{5}-[a-z2-9]{5})<\/li>/g)].map((m) => m[1]);
    expect(second).toHaveLength(10);
    expect(await pg.adapter.useBackupCode({ userId: w.userId, secret: hashBackupCode(first[0]) })).toBe(false);
    expect(await pg.adapter.useBackupCode({ userId: w.userId, secret: hashBackupCode(second[0]) })).toBe(true);
  });

  it('a new set of backup codes that fails half-way leaves the old set, whole and working (one transaction)', async () => {
    const w = await world();
    await signIn(w);
    await enrol(w);
    const csrfToken = await w.t.csrfToken();
    const res = await w.t.client.post('/auth/factors/backup-codes', { csrfToken, callbackUrl: '/account' });
    const first = [...(await res.text()).matchAll(/<li>([a-z2-9]{5}-[a-z2-9]{5})<\/li>/g)].map((m) => m[1]);
    expect(first).toHaveLength(10);
    // The database refuses the sixth code of this user (a disk full, a lost connection, half-way through).
    const fn = `fail_sixth_${n}`;
    await pg.db.exec(`CREATE FUNCTION ${fn}() RETURNS trigger AS $$ BEGIN
        IF NEW.user_id = '${w.userId}' AND (SELECT count(*) FROM factors WHERE user_id = NEW.user_id AND kind = 'backup') >= 5 THEN
          RAISE EXCEPTION 'disk full';
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql;
      CREATE TRIGGER ${fn} BEFORE INSERT ON factors FOR EACH ROW EXECUTE FUNCTION ${fn}();`);
    try {
      const failed = await w.t.client.post('/auth/factors/backup-codes', { csrfToken, callbackUrl: '/account' });
      expect(failed.status).toBe(302);
      expect(failed.location?.searchParams.get('error')).toBe('Configuration');
      expect(await failed.text()).not.toMatch(/[a-z2-9]{5}-[a-z2-9]{5}/);
    } finally {
      await pg.db.exec(`DROP TRIGGER ${fn} ON factors; DROP FUNCTION ${fn}();`);
    }
    const stored = (await pg.adapter.listFactors(w.userId)).filter((f) => f.kind === 'backup');
    expect(stored.map((f) => f.secret).sort()).toEqual(first.map(hashBackupCode).sort());
    expect(await pg.adapter.useBackupCode({ userId: w.userId, secret: hashBackupCode(first[3]) })).toBe(true);
  });

  it('removal always asks for a current code; five wrong ones end it; the right one removes the factor (factorRemoved)', async () => {
    const w = await world();
    await signIn(w);
    const key = await enrol(w);
    const [factor] = await pg.adapter.listFactors(w.userId);
    const csrfToken = await w.t.csrfToken();
    const remove = () => w.t.client.post('/auth/factors/remove', { csrfToken, id: factor.id, callbackUrl: '/account' });
    expect(await (await remove()).text()).toContain('Confirm it is you');
    for (let i = 0; i < 4; i++) expect((await w.t.client.post('/auth/factors/code', { csrfToken, code: '000001' })).status).toBe(200);
    const locked = await w.t.client.post('/auth/factors/code', { csrfToken, code: '000001' });
    expect(locked.location?.searchParams.get('error')).toBe('SecondFactorFailed');
    expect(await pg.adapter.listFactors(w.userId)).toHaveLength(1);

    vi.setSystemTime(Date.now() + 30_000);
    await remove();
    const done = await w.t.client.post('/auth/factors/code', { csrfToken, code: stepCode(key) });
    expect(done.headers.get('location')).toBe('http://localhost:3000/account');
    expect(await pg.adapter.listFactors(w.userId)).toEqual([]);
    expect(w.events.find((e) => e.type === 'factorRemoved')?.message.factor).toEqual({ id: factor.id, kind: 'totp' });
  });

  it('the page removes a factor in two steps: a confirmation naming the consequence changes nothing, then the check', async () => {
    const w = await world();
    await signIn(w);
    await enrol(w);
    const [factor] = await pg.adapter.listFactors(w.userId);
    const csrfToken = await w.t.csrfToken();
    const list = await (await w.t.client.get('/auth/factors', { headers: { accept: 'text/html' } })).text();
    expect(list).toMatch(/<input type="hidden" name="step" value="confirm"><button type="submit" class="button danger" data-factor-action="remove">Remove<\/button>/);
    const ask = await w.t.client.post('/auth/factors/remove', { csrfToken, id: factor.id, step: 'confirm', callbackUrl: '/account' });
    expect(ask.status).toBe(200);
    const confirm = await ask.text();
    expect(confirm).toContain('Remove this authenticator app? Signing in will no longer ask for its codes.');
    expect(confirm).toContain('It is your last second factor: after this, your password alone signs you in.');
    expect(confirm).toMatch(/<button type="submit" class="button danger" data-confirm>Remove<\/button>/);
    expect(confirm).not.toContain('name="step"');
    expect(confirm).toContain('href="http://localhost:3000/auth/factors" data-cancel');
    expect(await pg.adapter.listFactors(w.userId)).toHaveLength(1);
    expect(w.t.client.cookies.get(FACTORS)).toBeFalsy();
    // The confirmed form goes on to the check, as before.
    const next = await w.t.client.post('/auth/factors/remove', { csrfToken, id: factor.id, callbackUrl: '/account' });
    expect(await next.text()).toContain('Confirm it is you');
    // Another user's factor: no confirmation page, back to the list.
    const stranger = await world();
    await pg.adapter.createFactor({ id: `y-${stranger.userId}`, userId: stranger.userId, kind: 'totp', secret: 'sealed', createdAt: new Date(), activatedAt: new Date() });
    const foreign = await w.t.client.post('/auth/factors/remove', { csrfToken, id: `y-${stranger.userId}`, step: 'confirm' });
    expect(foreign.location?.href).toBe('http://localhost:3000/auth/factors');
  });

  it('the enrolment page shows the setup key as its own block with a copy button and a Cancel; backup codes have copy, download and print', async () => {
    const w = await world();
    await signIn(w);
    const csrfToken = await w.t.csrfToken();
    const page = await (await w.t.client.post('/auth/factors/totp', { csrfToken, callbackUrl: '/account' })).text();
    expect(page).toMatch(/<div class="copyable" data-copyable><p class="copy-label" id="copy-label">Setup key<\/p><code id="copy-value"[^>]*>[A-Z2-7 ]+<\/code><button type="button" class="button secondary" data-copy="copy-value"[^>]*hidden>Copy<\/button>/);
    expect(page).not.toMatch(/type this key/);
    expect(page).toContain('href="http://localhost:3000/auth/factors" data-form-leave>Cancel</a>');
    expect(page).toMatch(/<script nonce="[^"]+">/);
    const key = keyOf(page);
    await w.t.client.post('/auth/factors/code', { csrfToken, code: stepCode(key) });
    const codesPage = await (await w.t.client.post('/auth/factors/backup-codes', { csrfToken, callbackUrl: '/account' })).text();
    const codes = [...codesPage.matchAll(/<li>([a-z2-9]{5}-[a-z2-9]{5})<\/li>/g)].map((m) => m[1]!);
    expect(codes).toHaveLength(10);
    expect(codesPage).toContain('data-copy="backup-codes"');
    expect(codesPage).toContain('data-print hidden>Print</button>');
    const href = /download="backup-codes.txt" href="([^"]+)"/.exec(codesPage)![1]!.replace(/&amp;/g, '&');
    expect(href.startsWith('data:text/plain;charset=utf-8,')).toBe(true);
    const file = decodeURIComponent(href.slice('data:text/plain;charset=utf-8,'.length));
    expect(file.startsWith('Backup codes for localhost:3000\r\n')).toBe(true);
    for (const code of codes) expect(file).toContain(`\r\n${code}\r\n`);
  });

  it('removing a factor the user does not have is a bad request, not a removal', async () => {
    const w = await world();
    await signIn(w);
    await enrol(w);
    const stranger = await world();
    await pg.adapter.createFactor({ id: `x-${stranger.userId}`, userId: stranger.userId, kind: 'totp', secret: 'sealed', createdAt: new Date(), activatedAt: new Date() });
    const csrfToken = await w.t.csrfToken();
    const res = await w.t.client.post('/auth/factors/remove', { csrfToken, id: `x-${stranger.userId}` }, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'InvalidRequest' });
    expect(await pg.adapter.listFactors(stranger.userId)).toHaveLength(1);
  });

  it('a paused factor flow carried to another user\'s session is refused', async () => {
    const w = await world();
    await signIn(w);
    const csrfToken = await w.t.csrfToken();
    await w.t.client.post('/auth/factors/totp', { csrfToken });
    const sealed = w.t.client.cookies.get(FACTORS)!;
    const mallory = await world();
    const browser = w.t.newClient();
    const ct = await w.t.csrfToken(browser);
    await browser.post('/auth/callback/credentials', { csrfToken: ct, email: mallory.email, password: 'pw' });
    browser.cookies.set(FACTORS, sealed, 'localhost:3000');
    const [pending] = await pg.adapter.listFactors(w.userId);
    const res = await browser.post('/auth/factors/code', { csrfToken: ct, code: '123456' });
    expect(res.location?.searchParams.get('error')).toBe('AccessDenied');
    expect((await pg.adapter.listFactors(w.userId))[0].activatedAt).toBeNull();
    expect(pending.id).toBeTruthy();
  });

  it('the JSON list shows each factor without its secret, and when and how the session was verified', async () => {
    const w = await world();
    await signIn(w);
    await enrol(w);
    const res = await w.t.client.get('/auth/factors', { headers: { accept: 'application/json' } });
    const body = (await res.json()) as { factors: Record<string, unknown>[]; verifiedAt: string; amr: string[] };
    expect(body.factors).toHaveLength(1);
    expect(Object.keys(body.factors[0]).sort()).toEqual(['activatedAt', 'createdAt', 'id', 'kind', 'label']);
    expect(body.amr).toEqual(['pwd', 'otp']);
    expect(body.verifiedAt).toBe(new Date(Math.floor(Date.now() / 1000) * 1000).toISOString());
    const page = await (await w.t.client.get('/auth/factors', { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('Authenticator app');
    expect(page).toMatch(/action="http:\/\/localhost:3000\/auth\/factors\/remove"/);
  });

  it('database sessions: the row records the sign-in and the factor check; the session callback sees it', async () => {
    const w = await world('database');
    await signIn(w);
    expect((await session(w))!.amr).toEqual(['pwd']);
    expect(w.seen.at(-1)!.verification!.authTime.getTime()).toBe(Date.now());
    vi.setSystemTime(Date.now() + 1000);
    await enrol(w);
    const after = (await session(w))!;
    expect(after.amr).toEqual(['pwd', 'otp']);
    expect(after.authTime).toBe(Date.now());
  });
});
