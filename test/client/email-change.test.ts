// authchart/client's changeEmail and confirmEmailChange against a real authchart instance (PostgreSQL on PGlite, a
// real SMTP server): the client's fetch goes to the instance through a cookie-keeping test browser, signed in with a
// password.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeEmail, confirmEmailChange } from '../../src/client/email-change.js';
import { Email } from '../../src/providers/email.js';
import { argon2id, hashNewPassword, Password } from '../../src/providers/password/index.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { startSmtpServer, type SmtpHarness } from '../e2e/peers/smtp.js';

const hasher = argon2id({ memoryCost: 1024, timeCost: 1 });
const PASSWORD = 'correct horse battery staple';
const pg = useMigratedPGlite();
let t: TestAuth;
let smtp: SmtpHarness;
let browser: TestClient;
const saved = { fetch: globalThis.fetch, window: (globalThis as { window?: unknown }).window };

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = testAuth({ providers: [Password({ hasher }), Email({ server: { host: smtp.host, port: smtp.port, secure: false, ignoreTLS: true }, from: 'tests <no-reply@example.test>' })], adapter: pg.adapter, session: { strategy: 'database' }, throttle: { enabled: false } });
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => browser.request(new Request(new URL(String(input), ORIGIN), init))) as typeof fetch;
  (globalThis as { window?: unknown }).window = { location: { href: `${ORIGIN}/settings`, assign: () => {}, reload: () => {} } };
});
afterAll(async () => {
  globalThis.fetch = saved.fetch;
  (globalThis as { window?: unknown }).window = saved.window;
  await smtp?.stop();
});

describe('changeEmail and confirmEmailChange', () => {
  it('signed out: a sign-in first', async () => {
    browser = t.newClient();
    expect(await changeEmail({ email: 'new@example.test' })).toMatchObject({ ok: false, error: 'RecentSignInRequired' });
  });

  it('a refused address, then a code to the new one, a wrong code, and the right one makes it the address', async () => {
    const email = `kim-${randomUUID()}@example.test`;
    const fresh = `new-${randomUUID()}@example.test`;
    const { id } = await pg.adapter.createUser({ id: randomUUID(), email, emailVerified: new Date() });
    await pg.adapter.setPasswordHash(id, await hashNewPassword(PASSWORD, { hasher }));
    browser = t.newClient();
    const signIn = await browser.post('/auth/callback/password', { csrfToken: await t.csrfToken(browser), email, password: PASSWORD, callbackUrl: `${ORIGIN}/home` });
    expect(signIn.location?.href).toBe(`${ORIGIN}/home`);

    expect(await changeEmail({ email })).toMatchObject({ ok: false, error: 'InvalidRequest' });
    const asked = await changeEmail({ email: fresh });
    expect(asked).toMatchObject({ ok: true });
    const code = /\n(\d{6})\r?\n/.exec((await smtp.waitForMessage(fresh)).text)![1]!;
    expect(await confirmEmailChange({ code: code === '000000' ? '111111' : '000000' })).toMatchObject({ ok: false, error: 'InvalidRequest' });
    const done = await confirmEmailChange({ code });
    expect(done).toMatchObject({ ok: true });
    expect((await pg.adapter.getUser(id))?.email).toBe(fresh);
  });
});
