// authchart/client's password recovery against a real authchart instance (PostgreSQL on PGlite): the client's fetch
// goes to the instance through a cookie-keeping test browser, the mail to an outbox.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestPasswordReset, resetPassword } from '../../src/client/recovery.js';
import { argon2id, hashNewPassword, Password, type PasswordMail } from '../../src/providers/password/index.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';

const hasher = argon2id({ memoryCost: 1024, timeCost: 1 });
const outbox: PasswordMail[] = [];
const pg = useMigratedPGlite();
let t: TestAuth;
const saved = { fetch: globalThis.fetch, window: (globalThis as { window?: unknown }).window };

beforeAll(() => {
  t = testAuth({ providers: [Password({ hasher, mail: { send: (m) => void outbox.push(m) } })], adapter: pg.adapter, session: { strategy: 'database' } });
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => t.client.request(new Request(new URL(String(input), ORIGIN), init))) as typeof fetch;
  (globalThis as { window?: unknown }).window = { location: { href: `${ORIGIN}/forgot`, assign: () => {}, reload: () => {} } };
});
afterAll(() => {
  globalThis.fetch = saved.fetch;
  (globalThis as { window?: unknown }).window = saved.window;
});

async function mailTo(email: string): Promise<PasswordMail> {
  for (let i = 0; i < 100; i++) {
    const found = outbox.find((m) => m.to === email);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no mail');
}

describe('requestPasswordReset and resetPassword', () => {
  it('ask alike for any address, then set the password with the link\'s token; a used token says so', async () => {
    const email = `kim-${randomUUID()}@example.test`;
    const { id } = await pg.adapter.createUser({ id: randomUUID(), email, emailVerified: null });
    await pg.adapter.setPasswordHash(id, await hashNewPassword('old horse battery staple', { hasher }));

    // An address asked for ends the request this browser held before: the known address is asked for last.
    const unknown = await requestPasswordReset(`nobody-${randomUUID()}@example.test`);
    const known = await requestPasswordReset(email);
    expect(known).toEqual(unknown);
    expect(known.ok).toBe(true);
    expect(known.url).toBe(`${ORIGIN}/auth/flow/account.recover.password`);

    const token = new URL((await mailTo(email)).url).searchParams.get('token')!;
    const short = await resetPassword(token, 'short');
    expect(short).toMatchObject({ ok: false, error: 'PasswordNotReset', url: `${ORIGIN}/auth/flow/account.recover.password` });
    const done = await resetPassword(token, 'new horse battery staple');
    expect(done.ok).toBe(true);
    expect(new URL(done.url!).searchParams.get('notice')).toBe('passwordReset');
    expect(await hasher.verify((await pg.adapter.getPasswordHash(id))!, 'new horse battery staple')).toBe(true);
    expect(await resetPassword(token, 'another password here')).toMatchObject({ ok: false, error: 'PasswordNotReset' });
  });
});
