// Password recovery end to end over HTTP: a real SMTP server (smtp-server) receives the reset mail from authchart's
// nodemailer sender, the link or the code is read from it, and the new password is set on the built-in pages. On
// embedded PGlite and on the real PostgreSQL server, under both session strategies: the old password's sessions end,
// the notice mail goes out, the address is marked verified, the new password signs in and the old one does not.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SessionStrategy } from '../../src/core/options.js';
import { argon2id, hashNewPassword, Password } from '../../src/providers/password/index.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import type { ClientResponse, TestClient } from '../support/client.js';
import { readForms } from './peers/html-form.js';
import { Email } from '../../src/providers/email.js';
import { useMailDatabases } from './peers/mail-databases.js';
import type { ReceivedMail } from './peers/smtp.js';

const FROM = 'authchart tests <no-reply@example.test>';
const OLD = 'old horse battery staple';
const NEW = 'new horse battery staple';
const hasher = argon2id({ memoryCost: 1024, timeCost: 1 });
const peers = useMailDatabases();

function app(db: 'pglite' | 'postgres', strategy: SessionStrategy): TestAuth {
  const mail = { server: { host: peers.smtp.host, port: peers.smtp.port, secure: false, ignoreTLS: true }, from: FROM };
  return testAuth({ providers: [Password({ hasher, mail })], adapter: peers.adapters[db], session: { strategy } });
}

async function account(db: 'pglite' | 'postgres'): Promise<{ id: string; email: string }> {
  const adapter = peers.adapters[db];
  const email = `kim-${randomUUID()}@recovery.test`;
  const { id } = await adapter.createUser({ id: randomUUID(), email, emailVerified: null });
  await adapter.setPasswordHash(id, await hashNewPassword(OLD, { hasher }));
  return { id, email };
}

async function signIn(t: TestAuth, client: TestClient, email: string, password: string): Promise<ClientResponse> {
  const csrfToken = await t.csrfToken(client);
  return client.post('/auth/callback/password', { csrfToken, email, password, callbackUrl: `${ORIGIN}/dashboard` });
}

const session = async (client: TestClient) => (await (await client.get('/auth/session')).json()) as { user?: { email?: string } } | null;

/** Submits the first form of `page` with `fields` added. */
async function submit(client: TestClient, page: ClientResponse, fields: Record<string, string>): Promise<ClientResponse> {
  const [form] = readForms(await page.text());
  return client.post(new URL(form!.action, page.requestUrl), { ...form!.fields, ...fields });
}

function codeIn(mail: ReceivedMail): string {
  const found = /code[^\n]*\r?\n\r?\n(\d{6})\r?\n/i.exec(mail.text);
  if (!found) throw new Error(`no code in the mail: ${mail.text}`);
  return found[1]!;
}

describe.each(['pglite', 'postgres'] as const)('password recovery on %s', (db) => {
  describe.each(['jwt', 'database'] as SessionStrategy[])('%s sessions', (strategy) => {
    it('the code from the mail sets a new password: sessions ended, notice sent, address verified, no sign-in', async () => {
      const t = app(db, strategy);
      const user = await account(db);
      const other = t.newClient();
      expect((await signIn(t, other, user.email, OLD)).status).toBe(302);
      expect((await session(other))?.user?.email).toBe(user.email);

      const form = await t.client.get('/auth/recover/password');
      expect(form.status).toBe(200);
      const sent = await submit(t.client, form, { email: user.email.toUpperCase() });
      expect(sent.status).toBe(200);
      expect(await sent.clone().text()).toContain('If an account exists for');
      const mail = await peers.smtp.waitForMessage(user.email);
      expect(mail.subject).toMatch(/^Reset your password for /);
      const code = codeIn(mail);

      const choose = await submit(t.client, sent, { code });
      expect(choose.status).toBe(200);
      expect(await choose.clone().text()).toContain('autocomplete="new-password"');
      const done = await submit(t.client, choose, { password: NEW });
      expect(done.status).toBe(302);
      const location = new URL(done.headers.get('location')!);
      expect(location.pathname).toBe('/auth/signin');
      expect(location.searchParams.get('notice')).toBe('passwordReset');
      // No sign-in after a reset.
      expect(done.setCookie.some((l) => l.startsWith('authchart.session-token=') && !/max-age=0/i.test(l))).toBe(false);
      expect(await (await t.client.get(location.pathname + location.search)).text()).toContain('Your password was changed.');

      // The other browser's session ended; the notice went out; the address is verified now.
      expect(await session(other)).toBeNull();
      const notice = await peers.smtp.waitForMessage(user.email);
      expect(notice.subject).toMatch(/^Your password for .* was changed$/);
      expect((await peers.adapters[db].getUser(user.id))?.emailVerified).toBeInstanceOf(Date);

      expect((await signIn(t, t.newClient(), user.email, OLD)).headers.get('location')).toContain('error=CredentialsSignin');
      const fresh = t.newClient();
      expect((await signIn(t, fresh, user.email, NEW)).headers.get('location')).toBe(`${ORIGIN}/dashboard`);
      expect((await session(fresh))?.user?.email).toBe(user.email);
    });

    it('the link opens in another browser, works once, and a wrong code counts down on the page', async () => {
      const t = app(db, strategy);
      const user = await account(db);
      const form = await t.client.get('/auth/recover/password');
      const sent = await submit(t.client, form, { email: user.email });
      const mail = await peers.smtp.waitForMessage(user.email);
      const link = mail.links.find((l) => l.startsWith(`${ORIGIN}/auth/recover/password?token=`))!;
      expect(link).toBeDefined();

      const wrong = await submit(t.client, sent, { code: '000000' === codeIn(mail) ? '111111' : '000000' });
      expect(wrong.status).toBe(200);
      expect(await wrong.clone().text()).toContain('tries left');

      const elsewhere = t.newClient();
      const choose = await elsewhere.get(link);
      expect(choose.status).toBe(200);
      const short = await submit(elsewhere, choose, { password: 'short' });
      expect(short.status).toBe(400);
      expect(await short.clone().text()).toContain('Use at least 8 characters.');
      const done = await submit(elsewhere, short, { password: NEW });
      expect(done.status).toBe(302);

      // Used once: the link now leads back to the request form, saying so.
      const again = await t.newClient().get(link);
      expect(again.status).toBe(200);
      expect(await again.text()).toContain('This link or code is used, expired or no longer valid.');
    });

    it('an unknown address gets the same page, and no mail', async () => {
      const t = app(db, strategy);
      const email = `nobody-${randomUUID()}@recovery.test`;
      const form = await t.client.get('/auth/recover/password');
      const sent = await submit(t.client, form, { email });
      expect(sent.status).toBe(200);
      expect(await sent.text()).toContain('If an account exists for');
      await expect(peers.smtp.waitForMessage(email, { timeout: 500 })).rejects.toThrow();
    });
  });
});

describe('password recovery without a mail option of its own', () => {
  it("sends the reset mail through the e-mail provider's server and sender", async () => {
    const server = { host: peers.smtp.host, port: peers.smtp.port, secure: false, ignoreTLS: true };
    const t = testAuth({ providers: [Password({ hasher }), Email({ server, from: 'via the email provider <auth@example.test>' })], adapter: peers.adapters.pglite });
    const user = await account('pglite');
    const sent = await submit(t.client, await t.client.get('/auth/recover/password'), { email: user.email });
    expect(sent.status).toBe(200);
    const mail = await peers.smtp.waitForMessage(user.email);
    expect(mail.subject).toMatch(/^Reset your password for /);
    expect(mail.headers.from).toContain('auth@example.test');
    expect(t.logger.errors).toEqual([]);
  });
});
