// A factor changed ends every other session of the user (issue 19): whoever else holds a session (a thief's copy, a
// forgotten device) is signed out when the owner enrols an authenticator app, takes new backup codes or removes a
// factor. Database sessions are deleted at once; JWT sessions are refused at their next refresh (`updateAge`).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Credentials } from '../../src/providers/credentials.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';
import { activeTotp, codeNow, keyOnPage } from '../support/factors.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pg = useMigratedPGlite();
const UPDATE_AGE = 60;
let n = 0;

interface World {
  t: TestAuth;
  userId: string;
  email: string;
  owner: TestClient;
  thief: TestClient;
}

async function world(strategy: 'jwt' | 'database'): Promise<World> {
  const userId = `fc-${++n}-${process.pid}`;
  const email = `${userId}@example.com`;
  await pg.adapter.createUser({ id: userId, email, emailVerified: null });
  const t = testAuth({
    adapter: pg.adapter,
    session: { strategy, updateAge: UPDATE_AGE },
    secondFactor: { issuer: 'Test' },
    providers: [Credentials({ credentials: { email: {}, password: {} }, authorize: (c) => (c.password === 'pw' ? { id: String(c.email).split('@')[0], email: String(c.email) } : null) })],
  });
  const w = { t, userId, email, owner: t.newClient(), thief: t.newClient() };
  for (const client of [w.owner, w.thief]) {
    const csrfToken = await t.csrfToken(client);
    expect((await client.post('/auth/callback/credentials', { csrfToken, email, password: 'pw' })).status).toBe(302);
  }
  return w;
}

const signedIn = async (client: TestClient) => ((await (await client.get('/auth/session')).json()) as { user?: unknown } | null)?.user !== undefined;

/** The owner enrols an authenticator app (confirmed with its first code) and returns its key. */
async function enrol(w: World): Promise<Uint8Array> {
  const csrfToken = await w.t.csrfToken(w.owner);
  const key = keyOnPage(await (await w.owner.post('/auth/factors/totp', { csrfToken, callbackUrl: '/account' })).text());
  const res = await w.owner.post('/auth/factors/code', { csrfToken, code: codeNow(key) });
  expect(res.location?.pathname).toBe('/account');
  return key;
}

describe('a factor changed ends the other sessions', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 23, 12, 0, 10) }));
  afterEach(() => vi.useRealTimers());

  it('database sessions: enrolling an app deletes the other session at once; the owner stays signed in', async () => {
    const w = await world('database');
    await enrol(w);
    expect(await signedIn(w.thief)).toBe(false);
    expect(await signedIn(w.owner)).toBe(true);
    expect((await pg.adapter.listSessions(w.userId)).length).toBe(1);
  });

  it('database sessions: removing a factor (after its code) deletes the other session', async () => {
    const w = await world('database');
    const key = await activeTotp(pg.adapter, w.userId);
    const [factor] = await pg.adapter.listFactors(w.userId);
    const csrfToken = await w.t.csrfToken(w.owner);
    expect(await (await w.owner.post('/auth/factors/remove', { csrfToken, id: factor.id, callbackUrl: '/account' })).text()).toContain('Confirm it is you');
    expect(await signedIn(w.thief)).toBe(true);
    const done = await w.owner.post('/auth/factors/code', { csrfToken, code: codeNow(key) });
    expect(done.location?.pathname).toBe('/account');
    expect(await pg.adapter.listFactors(w.userId)).toEqual([]);
    expect(await signedIn(w.thief)).toBe(false);
    expect(await signedIn(w.owner)).toBe(true);
  });

  it('JWT sessions: enrolling an app ends the other token at its next refresh; the owner keeps the recorded factor check', async () => {
    const w = await world('jwt');
    vi.setSystemTime(Date.now() + 1000);
    await enrol(w);
    vi.setSystemTime(Date.now() + (UPDATE_AGE + 1) * 1000);
    expect(await signedIn(w.thief)).toBe(false);
    const verified = await w.owner.get('/auth/factors', { headers: { accept: 'application/json' } });
    expect(verified.status).toBe(200);
    expect(JSON.stringify(await verified.json())).toContain('"otp"');
    expect(await signedIn(w.owner)).toBe(true);
  });

  it('JWT sessions: a new set of backup codes ends the other token at its next refresh', async () => {
    const w = await world('jwt');
    vi.setSystemTime(Date.now() + 1000);
    const csrfToken = await w.t.csrfToken(w.owner);
    const codes = await w.owner.post('/auth/factors/backup-codes', { csrfToken, callbackUrl: '/account' });
    expect(await codes.text()).toMatch(/<li>[a-z2-9]{5}-[a-z2-9]{5}<\/li>/);
    vi.setSystemTime(Date.now() + (UPDATE_AGE + 1) * 1000);
    expect(await signedIn(w.thief)).toBe(false);
    expect(await signedIn(w.owner)).toBe(true);
  });
});
