// The e-mail code page's other ways on (issue 30): "send a new code" posts a new sign-in for the same address (the
// resend cooldown and its answers are the sign-in's own, alike for known and unknown addresses; a refused resend
// leaves the first code usable), and "use a different address" goes back to the sign-in page. Over HTTP, with a
// real SMTP server, on embedded PGlite and on the PostgreSQL server (a schema of this file's own), both strategies.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SessionStrategy } from '../../src/core/options.js';
import { Email } from '../../src/providers/email.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import type { ClientResponse, TestClient } from '../support/client.js';
import { readForms, readLinks } from './peers/html-form.js';
import { useMailDatabases } from './peers/mail-databases.js';
import type { ReceivedMail } from './peers/smtp.js';

const COOLDOWN = 2;
const DASHBOARD = `${ORIGIN}/dashboard`;
const peers = useMailDatabases();

function codeIn(mail: ReceivedMail): string {
  const found = /enter this code[^\n]*\r?\n(\d{6})\r?\n/i.exec(mail.text);
  if (!found) throw new Error(`no code in the mail: ${mail.text}`);
  return found[1];
}

const mailsTo = (email: string) => peers.smtp.messages.filter((m) => m.to.includes(email.toLowerCase())).length;
const session = async (client: TestClient) => ((await (await client.get('/auth/session')).json()) as { user?: { email?: string } } | null)?.user?.email ?? null;

/** The code page's forms: the code form, and the "send a new code" form beside it. */
function pageForms(html: string) {
  const forms = readForms(html);
  const code = forms.find((f) => 'code' in f.fields)!;
  const resend = forms.find((f) => f.action.endsWith('/auth/signin/email'))!;
  return { code, resend };
}

describe.each(['pglite', 'postgres'] as const)('the e-mail code page on %s', (db) => {
  describe.each(['jwt', 'database'] as SessionStrategy[])('%s sessions', (strategy) => {
    const app = () =>
      testAuth({
        providers: [Email({ server: { host: peers.smtp.host, port: peers.smtp.port, secure: false, ignoreTLS: true }, from: 'tests <no-reply@example.test>', code: { resendCooldown: COOLDOWN } })],
        adapter: peers.adapters[db],
        session: { strategy },
      });
    const address = (tag: string) => `${tag}-${db}-${strategy}-${randomUUID().slice(0, 8)}@code-page.test`;

    async function ask(t: TestAuth, email: string, client: TestClient): Promise<{ res: ClientResponse; html: string }> {
      const res = await client.post('/auth/signin/email', { csrfToken: await t.csrfToken(client), email, callbackUrl: DASHBOARD });
      return { res, html: await res.text() };
    }
    const press = (client: TestClient, form: { action: string; fields: Record<string, string> }, extra: Record<string, string> = {}) =>
      client.post(new URL(form.action, ORIGIN), { ...form.fields, ...extra });

    it('"send a new code": refused alike within the cooldown (the first code still signs in), a new code after it', async () => {
      const t = app();
      const known = address('known');
      await peers.adapters[db].createUser({ id: randomUUID(), email: known, emailVerified: new Date() });
      const unknown = address('unknown');
      const refused: { status: number; location: string | null; mails: number }[] = [];
      type Form = { action: string; fields: Record<string, string> };
      const browsers: Record<string, { client: TestClient; first: string; code: Form; resend: Form }> = {};
      for (const email of [known, unknown]) {
        const client = t.newClient();
        const { res, html } = await ask(t, email, client);
        expect(res.status).toBe(200);
        const { code, resend } = pageForms(html);
        expect(resend.fields).toMatchObject({ email, callbackUrl: DASHBOARD });
        expect(resend.fields.csrfToken).toBeTruthy();
        const first = codeIn(await peers.smtp.waitForMessage(email));
        // Pressed at once: the cooldown refuses it (the sign-in's RateLimited answer), and nothing is mailed.
        const again = await press(client, resend);
        refused.push({ status: again.status, location: again.location?.href ?? null, mails: mailsTo(email) });
        browsers[email] = { client, first, code, resend };
      }
      expect(refused[1]).toEqual(refused[0]);
      expect(refused[0]).toEqual({ status: 302, location: `${ORIGIN}/auth/signin?error=RateLimited`, mails: 1 });

      // The refused resend spent nothing: the first code still signs the known address in.
      const k = browsers[known];
      const signedIn = await press(k.client, k.code, { code: k.first });
      expect(signedIn.location?.href).toBe(DASHBOARD);
      expect(await session(k.client)).toBe(known);

      // After the cooldown, "send a new code" mails a new one, which signs in.
      await new Promise((r) => setTimeout(r, COOLDOWN * 1000 + 200));
      const u = browsers[unknown];
      const resent = await press(u.client, u.resend);
      expect(resent.status).toBe(200);
      const { code } = pageForms(await resent.text());
      const second = codeIn(await peers.smtp.waitForMessage(unknown));
      expect(mailsTo(unknown)).toBe(2);
      const done = await press(u.client, code, { code: second });
      expect(done.location?.href).toBe(DASHBOARD);
      expect(await session(u.client)).toBe(unknown);
    });

    it('"use a different address" goes back to the sign-in page, keeping where the sign-in was going', async () => {
      const t = app();
      const email = address('other');
      const { html } = await ask(t, email, t.client);
      await peers.smtp.waitForMessage(email);
      const back = readLinks(html).find((l) => new URL(l, ORIGIN).pathname === '/auth/signin');
      expect(back).toBeDefined();
      expect(new URL(back!, ORIGIN).searchParams.get('callbackUrl')).toBe(DASHBOARD);
      const page = await t.client.get(new URL(back!, ORIGIN).href);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('name="email"');
    });
  });
});
