// One-time e-mail codes end to end: a real SMTP server (smtp-server) receives the mail from authchart's default
// nodemailer sender; the code is read from it and typed back on the code page. On embedded PGlite and on the real
// PostgreSQL server (DATABASE_URL, a schema of this file's own), under both session strategies; the adapter's
// database is also the flow store that keeps the code's hash and its tries.
import { describe, expect, it } from 'vitest';
import type { SessionStrategy } from '../../src/core/options.js';
import { Email, type EmailUserConfig } from '../../src/providers/email.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import type { ClientResponse, TestClient } from '../support/client.js';
import { readForms } from './peers/html-form.js';
import { useMailDatabases } from './peers/mail-databases.js';
import type { ReceivedMail } from './peers/smtp.js';

const FROM = 'authchart tests <no-reply@example.test>';
const peers = useMailDatabases();

function provider(overrides: EmailUserConfig = {}) {
  return Email({ server: { host: peers.smtp.host, port: peers.smtp.port, secure: false, ignoreTLS: true, pool: true }, from: FROM, code: true, ...overrides });
}

/** Asks for a code as the sign-in form does; the answer is the code page. */
async function ask(t: TestAuth, email: string, client: TestClient = t.client): Promise<ClientResponse> {
  const csrfToken = await t.csrfToken(client);
  return client.post('/auth/signin/email', { csrfToken, email, callbackUrl: `${ORIGIN}/dashboard` });
}

function codeIn(mail: ReceivedMail): string {
  const found = /enter this code[^\n]*\r?\n(\d{6})\r?\n/i.exec(mail.text);
  if (!found) throw new Error(`no code in the mail: ${mail.text}`);
  return found[1];
}

/** Types `code` into the code page `page` answered with, and posts it. */
async function typeCode(client: TestClient, page: ClientResponse, code: string): Promise<ClientResponse> {
  const [form] = readForms(await page.text());
  expect(form.fields).toHaveProperty('code');
  return client.post(new URL(form.action, page.requestUrl), { ...form.fields, code });
}

const session = async (client: TestClient) => (await (await client.get('/auth/session')).json()) as { user?: { email?: string } } | null;

describe.each(['pglite', 'postgres'] as const)('e-mail codes on %s', (db) => {
  describe.each(['jwt', 'database'] as SessionStrategy[])('%s sessions', (strategy) => {
    const app = (overrides: EmailUserConfig = {}) => testAuth({ providers: [provider(overrides)], adapter: peers.adapters[db], session: { strategy } });
    const address = (tag: string) => `${tag}-${db}-${strategy}-${Date.now()}@codes.test`;

    it('a code read from the mail signs in, and the link in the same mail is spent with it', async () => {
      const t = app();
      const email = address('both');
      const page = await ask(t, email);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('autocomplete="one-time-code"');
      const mail = await peers.smtp.waitForMessage(email);
      const link = mail.links.find((l) => l.startsWith(`${ORIGIN}/auth/callback/email?`));
      expect(link, 'the mail carries the link too').toBeDefined();
      const code = codeIn(mail);
      expect(mail.html).toContain(code);

      const res = await typeCode(t.client, Object.assign(page, { text: async () => html }), code);
      expect(res.status).toBe(302);
      expect(res.location?.href).toBe(`${ORIGIN}/dashboard`);
      expect((await session(t.client))?.user?.email).toBe(email);

      // The link from the same mail, in another browser: used up by the code.
      const other = t.newClient();
      const opened = await other.get(link!);
      const [confirm] = readForms(await opened.text());
      const after = confirm ? await other.post(new URL(confirm.action, opened.requestUrl), confirm.fields) : opened;
      expect(after.location?.href).toBe(`${ORIGIN}/auth/error?error=Verification`);
      expect(await session(other)).toBeNull();
    });

    it('with `link: false` the mail carries the code alone, and the code signs in', async () => {
      const t = app({ code: { link: false } });
      const email = address('only');
      const page = await ask(t, email);
      expect(page.status).toBe(200);
      const mail = await peers.smtp.waitForMessage(email);
      expect(mail.links.filter((l) => l.includes('/auth/callback/'))).toEqual([]);
      const res = await typeCode(t.client, page, codeIn(mail));
      expect(res.location?.href).toBe(`${ORIGIN}/dashboard`);
      expect((await session(t.client))?.user?.email).toBe(email);
    });

    it('a wrong code shows the page again with the tries left; the right one still signs in', async () => {
      const t = app();
      const email = address('retry');
      const page = await ask(t, email);
      const code = codeIn(await peers.smtp.waitForMessage(email));
      const wrong = await typeCode(t.client, page, code === '000000' ? '111111' : '000000');
      expect(wrong.status).toBe(200);
      const html = await wrong.text();
      expect(html).toContain('4 tries left');
      const res = await typeCode(t.client, Object.assign(wrong, { text: async () => html }), code);
      expect(res.location?.href).toBe(`${ORIGIN}/dashboard`);
      expect((await session(t.client))?.user?.email).toBe(email);
    });
  });
});
