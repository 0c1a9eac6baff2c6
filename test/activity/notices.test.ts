// Notice mails from the activity log, over HTTP with the PostgresAdapter on PGlite and a real SMTP server: a sign-in
// from a device the user never signed in from brings a mail, the same device again none; a passkey removed brings
// one; each in the user's language. Without the notice sink, nothing is read or sent.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityNotices } from '../../src/activity/notices.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { accountApp, CHROME_LINUX, FIREFOX_WINDOWS, postForm, signIn, userWithPasskeys } from '../http/account/account-world.js';
import { startSmtpServer, type SmtpHarness } from '../e2e/peers/smtp.js';

const pglite = useMigratedPGlite();
let smtp: SmtpHarness;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp.stop();
});

const locales = new Map<string, string>();

function app() {
  const notices = activityNotices({
    site: 'example.test',
    log: pglite.adapter,
    user: async (id) => {
      const user = await pglite.adapter.getUser(id);
      return user ? { email: user.email, locale: locales.get(id) ?? null } : null;
    },
    server: { host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true },
    from: 'auth@example.test',
  });
  return accountApp(pglite.adapter, { activity: { sinks: [notices] } });
}

const quiet = async (to: string, ms = 600) => {
  await new Promise((r) => setTimeout(r, ms));
  return smtp.messages.filter((m) => m.to.includes(to));
};

describe('notice mails', () => {
  it('a new device brings a mail, the same device again none, another device one more', async () => {
    const t = app();
    const { user } = await userWithPasskeys(pglite.adapter, 1);
    await signIn(t, t.newClient(), user, CHROME_LINUX);
    const first = await smtp.waitForMessage(user.email!);
    expect(first.subject).toBe('example.test: Sign-in from a new device');
    expect(first.text).toContain('Chrome/131');
    await signIn(t, t.newClient(), user, CHROME_LINUX);
    expect(await quiet(user.email!)).toHaveLength(1);
    await signIn(t, t.newClient(), user, FIREFOX_WINDOWS);
    expect((await smtp.waitForMessage(user.email!)).text).toContain('Firefox/133');
  });

  it("a passkey removed brings a mail in the user's language", async () => {
    const t = app();
    const { user, credentials } = await userWithPasskeys(pglite.adapter, 2);
    locales.set(user.id, 'de');
    await signIn(t, t.client, user, CHROME_LINUX);
    expect((await smtp.waitForMessage(user.email!)).subject).toBe('example.test: Anmeldung von einem neuen Gerät');
    expect((await postForm(t, t.client, '/auth/account/passkeys/remove', { id: credentials[0]! })).status).toBe(302);
    const notice = await smtp.waitForMessage(user.email!);
    expect(notice.subject).toBe('example.test: Passkey entfernt');
    expect(notice.text).toContain('Wenn Sie das nicht waren');
  });

  it('without the notice sink, no mail', async () => {
    const t = accountApp(pglite.adapter, { activity: {} });
    const { user } = await userWithPasskeys(pglite.adapter, 1);
    await signIn(t, t.newClient(), user, `${CHROME_LINUX} ${randomUUID()}`);
    expect(await quiet(user.email!)).toHaveLength(0);
  });
});
