// authchart/client's changePassword against a real authchart instance (PostgreSQL on PGlite): the client's fetch goes
// to the instance through a cookie-keeping test browser, signed in with a password.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changePassword } from '../../src/client/password-change.js';
import { argon2id, hashNewPassword, Password } from '../../src/providers/password/index.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';
import { useMigratedPGlite } from '../support/pglite.js';

const hasher = argon2id({ memoryCost: 1024, timeCost: 1 });
const OLD = 'old horse battery staple';
const NEW = 'new horse battery staple';
const pg = useMigratedPGlite();
let t: TestAuth;
let browser: TestClient;
const saved = { fetch: globalThis.fetch, window: (globalThis as { window?: unknown }).window };

beforeAll(() => {
  t = testAuth({ providers: [Password({ hasher })], adapter: pg.adapter, session: { strategy: 'database' }, throttle: { enabled: false } });
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => browser.request(new Request(new URL(String(input), ORIGIN), init))) as typeof fetch;
  (globalThis as { window?: unknown }).window = { location: { href: `${ORIGIN}/settings`, assign: () => {}, reload: () => {} } };
});
afterAll(() => {
  globalThis.fetch = saved.fetch;
  (globalThis as { window?: unknown }).window = saved.window;
});

async function signedIn(client: TestClient, email: string, password: string): Promise<boolean> {
  const res = await client.post('/auth/callback/password', { csrfToken: await t.csrfToken(client), email, password, callbackUrl: `${ORIGIN}/home` });
  return res.location?.href === `${ORIGIN}/home`;
}

describe('changePassword', () => {
  it('asks for a sign-in when there is none', async () => {
    browser = t.newClient();
    const result = await changePassword({ currentPassword: OLD, newPassword: NEW });
    expect(result).toMatchObject({ ok: false, error: 'RecentSignInRequired' });
    expect(new URL(result.url!).pathname).toBe('/auth/signin');
  });

  it('refuses a wrong current password with the page that says so, then stores the new one and ends the other sessions', async () => {
    const email = `kim-${randomUUID()}@example.test`;
    const { id } = await pg.adapter.createUser({ id: randomUUID(), email, emailVerified: new Date() });
    await pg.adapter.setPasswordHash(id, await hashNewPassword(OLD, { hasher }));
    browser = t.newClient();
    const other = t.newClient();
    expect(await signedIn(browser, email, OLD)).toBe(true);
    expect(await signedIn(other, email, OLD)).toBe(true);

    const wrong = await changePassword({ currentPassword: 'not my password', newPassword: NEW });
    expect(wrong).toMatchObject({ ok: false, error: 'InvalidRequest', status: 400 });
    expect(new URL(wrong.url!).pathname).toBe('/auth/flow/signed-in.change-password');
    const shown = await browser.get(wrong.url!, { headers: { accept: 'text/html' } });
    expect(await shown.text()).toContain('That is not your current password.');

    const short = await changePassword({ currentPassword: OLD, newPassword: 'short' });
    expect(short).toMatchObject({ ok: false, error: 'InvalidRequest' });

    const done = await changePassword({ currentPassword: OLD, newPassword: NEW, callbackUrl: `${ORIGIN}/settings` });
    expect(done).toMatchObject({ ok: true, error: null, url: `${ORIGIN}/settings` });
    expect(await hasher.verify((await pg.adapter.getPasswordHash(id))!, NEW)).toBe(true);
    expect(await (await browser.get('/auth/session')).json()).toMatchObject({ user: { email } });
    expect(await (await other.get('/auth/session')).json()).toBeNull();
  });

  it('sets a first password without a current one', async () => {
    const email = `lee-${randomUUID()}@example.test`;
    const { id } = await pg.adapter.createUser({ id: randomUUID(), email, emailVerified: new Date() });
    await pg.adapter.setPasswordHash(id, await hashNewPassword(OLD, { hasher }));
    browser = t.newClient();
    expect(await signedIn(browser, email, OLD)).toBe(true);
    // The password goes away (as for an account made with OAuth); the recent sign-in is the proof.
    await pg.db.query('DELETE FROM passwords WHERE user_id = $1', [id]);
    const done = await changePassword({ newPassword: NEW });
    expect(done.ok).toBe(true);
    expect(await hasher.verify((await pg.adapter.getPasswordHash(id))!, NEW)).toBe(true);
  });
});
