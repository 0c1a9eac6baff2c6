// The e-mail code page's other ways on (issues 30 and 46): "send a new code" is an event of the paused flow, which
// keeps the address. Within the resend cooldown it answers with the same page, counting down, and the code already
// sent still works (alike for known and unknown addresses); after it, a new code goes out. A code dead after too many
// wrong tries pauses on a page that says so in terms of codes and offers a new code for the same address. "Use a
// different address" goes back to the sign-in page. Over HTTP, with a real SMTP server, on embedded PGlite and on the
// PostgreSQL server (a schema of this file's own), both strategies.
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

/** The code page's forms: the code form (none once the code is dead), and the "send a new code" form. */
function pageForms(html: string) {
  const forms = readForms(html);
  const code = forms.find((f) => 'code' in f.fields)!;
  const resend = forms.find((f) => f.fields.action === 'resend')!;
  return { code, resend };
}

/** What a page says: its HTML without the head, the tags and the style. */
const textOf = (html: string) => html.replace(/<head>[^]*?<\/head>/, '').replace(/<style[^>]*>[^]*?<\/style>/g, '').replace(/<[^>]+>/g, ' ');

/** The countdown's seconds on a page (`data-wait`), or null when the page shows none. */
const waitOf = (html: string) => {
  const m = /data-wait="(\d+)"/.exec(html);
  return m ? Number(m[1]) : null;
};

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

    it('"send a new code" within the cooldown keeps the page, counting down, alike for every address (the first code still signs in); a new code after it', async () => {
      const t = app();
      const known = address('known');
      await peers.adapters[db].createUser({ id: randomUUID(), email: known, emailVerified: new Date() });
      const unknown = address('unknown');
      const refused: { status: number; wait: number | null; forms: string[]; mails: number }[] = [];
      type Form = { action: string; fields: Record<string, string> };
      const browsers: Record<string, { client: TestClient; first: string; code: Form; resend: Form }> = {};
      for (const email of [known, unknown]) {
        const client = t.newClient();
        const { res, html } = await ask(t, email, client);
        expect(res.status).toBe(200);
        expect(waitOf(html)).toBeNull();
        const { resend } = pageForms(html);
        expect(resend.action).toBe(`${ORIGIN}/auth/callback/email`);
        expect(resend.fields.csrfToken).toBeTruthy();
        const first = codeIn(await peers.smtp.waitForMessage(email));
        // Pressed at once: nothing is mailed, and the answer is the code page again with a countdown.
        const again = await press(client, resend);
        const page = await again.text();
        expect(page).toContain(email);
        refused.push({ status: again.status, wait: waitOf(page), forms: readForms(page).map((f) => Object.keys(f.fields).sort().join(',')), mails: mailsTo(email) });
        const forms = pageForms(page);
        browsers[email] = { client, first, code: forms.code, resend: forms.resend };
      }
      expect(refused[1]).toEqual(refused[0]);
      expect(refused[0]).toMatchObject({ status: 200, mails: 1 });
      expect(refused[0].wait).toBeGreaterThanOrEqual(1);
      expect(refused[0].wait).toBeLessThanOrEqual(COOLDOWN);
      expect(refused[0].forms).toEqual(['code,csrfToken', 'action,csrfToken,email']);

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
      const html = await resent.text();
      expect(waitOf(html)).toBeNull();
      const { code } = pageForms(html);
      const second = codeIn(await peers.smtp.waitForMessage(unknown));
      expect(mailsTo(unknown)).toBe(2);
      const done = await press(u.client, code, { code: second });
      expect(done.location?.href).toBe(DASHBOARD);
      expect(await session(u.client)).toBe(unknown);
    });

    it('too many wrong codes: the page says so in terms of codes, keeps the address and sends a new code for it', async () => {
      const t = app();
      const email = address('locked');
      const client = t.newClient();
      let { html } = await ask(t, email, client);
      const mailed = codeIn(await peers.smtp.waitForMessage(email));
      const wrong = mailed === '000000' ? '111111' : '000000';
      // The default is five tries: four say how many are left, the fifth ends the code.
      for (let left = 4; left >= 0; left--) {
        const res = await press(client, pageForms(html).code, { code: wrong });
        expect(res.status).toBe(200);
        html = await res.text();
        if (left > 0) expect(html).toContain(left === 1 ? '1 try left' : `${left} tries left`);
      }
      expect(html).toContain('Too many wrong codes');
      expect(html).toContain(email);
      expect(textOf(html)).not.toMatch(/\blink\b/i);
      expect(html).not.toContain('name="code"');
      // The right code, from the page before, no longer works: its token went with the last wrong try.
      const late = await client.post('/auth/callback/email', { csrfToken: await t.csrfToken(client), code: mailed });
      expect(late.location?.href).toBe(`${ORIGIN}/auth/error?error=Verification`);
      expect(await session(client)).toBeNull();

      // Start again in a fresh browser: five wrong codes, then the one action is "send a new code".
      const other = t.newClient();
      await new Promise((r) => setTimeout(r, COOLDOWN * 1000 + 200));
      ({ html } = await ask(t, email, other));
      const code2 = codeIn(await peers.smtp.waitForMessage(email));
      for (let i = 0; i < 5; i++) html = await (await press(other, pageForms(html).code, { code: code2 === '000000' ? '111111' : '000000' })).text();
      // At once, within the cooldown: the same page, counting down, nothing mailed.
      const cooling = await press(other, pageForms(html).resend);
      const coolingHtml = await cooling.text();
      expect(cooling.status).toBe(200);
      expect(waitOf(coolingHtml)).toBeGreaterThanOrEqual(1);
      expect(coolingHtml).toContain('Too many wrong codes');
      expect(mailsTo(email)).toBe(2);
      // After it, a new code goes to the same address, and signs in.
      await new Promise((r) => setTimeout(r, COOLDOWN * 1000 + 200));
      const fresh = await press(other, pageForms(coolingHtml).resend);
      expect(fresh.status).toBe(200);
      const third = codeIn(await peers.smtp.waitForMessage(email));
      const done = await press(other, pageForms(await fresh.text()).code, { code: third });
      expect(done.location?.href).toBe(DASHBOARD);
      expect(await session(other)).toBe(email);
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
