// Changing a password end to end, on PGlite and on the PostgreSQL server, with JWT and database sessions: a signed-in
// user opens the built-in change-password flow, a wrong current password is answered beside its field, the right
// one stores the new password (the old one no longer signs in), the user's other browser is signed out while this
// one stays, and a notice arrives by real SMTP. A user without a password sets one after a recent sign-in.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SessionStrategy } from '../../src/core/options.js';
import { Email } from '../../src/providers/email.js';
import { hashNewPassword, Password } from '../../src/providers/password/index.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';
import { readForms } from './peers/html-form.js';
import { useMailDatabases } from './peers/mail-databases.js';

const peers = useMailDatabases();
const OLD = 'correct horse battery staple';
const NEW = 'a brand new long passphrase';

function setup(db: 'pglite' | 'postgres', strategy: SessionStrategy): TestAuth {
  return testAuth({
    adapter: peers.adapters[db],
    session: { strategy },
    throttle: { enabled: false },
    providers: [Password(), Email({ server: { host: peers.smtp.host, port: peers.smtp.port, secure: false, ignoreTLS: true }, from: 'tests <no-reply@example.test>' })],
  });
}

async function userWith(db: 'pglite' | 'postgres', password?: string): Promise<{ id: string; email: string }> {
  const adapter = peers.adapters[db];
  const email = `pat-${randomUUID()}@example.com`;
  const { id } = await adapter.createUser({ id: randomUUID(), email, emailVerified: new Date() });
  if (password) await adapter.setPasswordHash(id, await hashNewPassword(password));
  return { id, email };
}

async function signIn(auth: TestAuth, client: TestClient, email: string, password: string) {
  const res = await client.post('/auth/callback/password', { csrfToken: await auth.csrfToken(client), email, password, callbackUrl: `${ORIGIN}/home` });
  return res.location?.href;
}

async function session(client: TestClient): Promise<unknown> {
  return (await client.get('/auth/session')).json();
}

for (const db of ['pglite', 'postgres'] as const) {
  for (const strategy of ['jwt', 'database'] as const) {
    describe(`change password on ${db} with ${strategy} sessions`, () => {
      it('asks for the current password, stores the new one, ends the other sessions and sends a notice', async () => {
        const auth = setup(db, strategy);
        const user = await userWith(db, OLD);
        const other = auth.newClient();
        expect(await signIn(auth, auth.client, user.email, OLD)).toBe(`${ORIGIN}/home`);
        expect(await signIn(auth, other, user.email, OLD)).toBe(`${ORIGIN}/home`);

        // Started from the account page's "Change password" button, as a person would.
        const account = await auth.client.get('/auth/account', { headers: { accept: 'text/html' } });
        const start = readForms(await account.text()).find((f) => f.action.endsWith('/auth/flows/change-password/start'));
        expect(start, 'the account page offers the change of password').toBeDefined();
        const page = await auth.client.post(new URL(start!.action, ORIGIN).pathname, start!.fields);
        expect(page.status).toBe(200);
        const html = await page.text();
        const [form] = readForms(html);
        expect(form!.action).toBe(`${ORIGIN}/auth/flows/change-password`);
        expect(Object.keys(form!.fields)).toEqual(expect.arrayContaining(['current', 'next', 'csrfToken']));
        expect(html).toContain('href="http://localhost:3000/auth/account"');

        const wrong = await auth.client.post('/auth/flows/change-password', { csrfToken: form!.fields.csrfToken!, current: 'not my password', next: NEW });
        expect(wrong.status).toBe(400);
        const wrongHtml = await wrong.text();
        expect(wrongHtml).toMatch(/aria-invalid="true" aria-describedby="field-0-error"/);
        expect(wrongHtml).toContain('That is not your current password.');

        const short = await auth.client.post('/auth/flows/change-password', { csrfToken: form!.fields.csrfToken!, current: OLD, next: 'short' });
        expect(short.status).toBe(400);
        expect(await short.text()).toContain('Use at least 8 characters.');

        const done = await auth.client.post('/auth/flows/change-password', { csrfToken: form!.fields.csrfToken!, current: OLD, next: NEW });
        expect(done.status).toBe(302);
        expect(done.location?.href).toBe(`${ORIGIN}/auth/account`);

        expect(await session(auth.client)).toMatchObject({ user: { email: user.email } });
        expect(await session(other)).toBeNull();
        const mail = await peers.smtp.waitForMessage(user.email);
        expect(mail.subject).toBe('Your password on localhost:3000 was changed');

        const fresh = auth.newClient();
        expect(await signIn(auth, fresh, user.email, OLD)).toContain('error=CredentialsSignin');
        expect(await signIn(auth, fresh, user.email, NEW)).toBe(`${ORIGIN}/home`);
      });
    });
  }
}

describe('a user without a password', () => {
  it('sets one after a recent sign-in, without being asked for a current one', async () => {
    const auth = setup('postgres', 'database');
    const user = await userWith('postgres');
    // Signed in by a magic link (no password yet), which is a recent sign-in.
    await auth.client.post('/auth/signin/email', { csrfToken: await auth.csrfToken(), email: user.email, callbackUrl: `${ORIGIN}/home` });
    const link = (await peers.smtp.waitForMessage(user.email)).links.find((l) => l.startsWith(`${ORIGIN}/auth/callback/email?`));
    const confirm = await auth.client.get(link!);
    const [button] = readForms(await confirm.text());
    expect((await auth.client.post(new URL(button!.action, confirm.requestUrl), button!.fields)).location?.href).toBe(`${ORIGIN}/home`);
    const page = await auth.client.post('/auth/flows/change-password/start', { csrfToken: await auth.csrfToken() });
    const html = await page.text();
    expect(html).toContain('Set a password');
    const [form] = readForms(html);
    expect(Object.keys(form!.fields)).not.toContain('current');
    const done = await auth.client.post('/auth/flows/change-password', { csrfToken: form!.fields.csrfToken!, next: NEW });
    expect(done.status).toBe(302);
    expect(await signIn(auth, auth.newClient(), user.email, NEW)).toBe(`${ORIGIN}/home`);
  });
});
