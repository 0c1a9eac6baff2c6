// Changing the e-mail address end to end over HTTP, on PGlite and on the PostgreSQL server, JWT and database sessions,
// with a real SMTP server: a signed-in user asks for a new address from the account page, a wrong code says how many
// tries are left, the mailed code makes it the account's (verified) address, the old address is told with a way
// back, which puts it back once, marked verified, and signs out every session. Then the attacks: an address of
// another account is answered alike and never mailed; a stale sign-in is sent to sign in again first; a way back that
// is tampered, expired or used again changes nothing.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SessionStrategy } from '../../src/core/options.js';
import { Email } from '../../src/providers/email.js';
import { argon2id, hashNewPassword, Password } from '../../src/providers/password/index.js';
import { revertIdentifier, revertTokenHash } from '../../src/flows/password/change-email-steps.js';
import { ORIGIN, TEST_SECRET, testAuth, type TestAuth } from '../support/auth-app.js';
import type { ClientResponse, TestClient } from '../support/client.js';
import { readForms } from './peers/html-form.js';
import { useMailDatabases } from './peers/mail-databases.js';
import type { ReceivedMail } from './peers/smtp.js';

const peers = useMailDatabases();
const PASSWORD = 'correct horse battery staple';
const hasher = argon2id({ memoryCost: 1024, timeCost: 1 });

function setup(db: 'pglite' | 'postgres', strategy: SessionStrategy, maxAge?: number, secret?: string[]): TestAuth {
  return testAuth({
    ...(secret ? { secret } : {}),
    adapter: peers.adapters[db],
    session: { strategy },
    throttle: { enabled: false },
    activity: {},
    providers: [Password({ hasher, ...(maxAge ? { change: { maxAge } } : {}) }), Email({ server: { host: peers.smtp.host, port: peers.smtp.port, secure: false, ignoreTLS: true }, from: 'tests <no-reply@example.test>' })],
  });
}

async function userIn(db: 'pglite' | 'postgres'): Promise<{ id: string; email: string }> {
  const email = `old-${randomUUID()}@change-email.test`;
  const { id } = await peers.adapters[db].createUser({ id: randomUUID(), email, emailVerified: new Date() });
  await peers.adapters[db].setPasswordHash(id, await hashNewPassword(PASSWORD, { hasher }));
  return { id, email };
}

async function signIn(t: TestAuth, client: TestClient, email: string): Promise<string | undefined> {
  const res = await client.post('/auth/callback/password', { csrfToken: await t.csrfToken(client), email, password: PASSWORD, callbackUrl: `${ORIGIN}/home` });
  return res.location?.href;
}

const sessionEmail = async (client: TestClient) => ((await (await client.get('/auth/session')).json()) as { user?: { email?: string } } | null)?.user?.email ?? null;

function codeIn(mail: ReceivedMail): string {
  const found = /\n(\d{6})\r?\n/.exec(mail.text);
  if (!found) throw new Error(`no code in the mail: ${mail.text}`);
  return found[1]!;
}

/** Starts the flow from the account page's button, as a person would; the address form. */
async function start(t: TestAuth, client: TestClient): Promise<ClientResponse> {
  const account = await client.get('/auth/account', { headers: { accept: 'text/html' } });
  const form = readForms(await account.text()).find((f) => f.action.endsWith('/auth/flows/change-email/start'));
  expect(form, 'the account page offers the change of address').toBeDefined();
  return client.post(new URL(form!.action).pathname, form!.fields);
}

async function ask(t: TestAuth, client: TestClient, email: string): Promise<ClientResponse> {
  return client.post('/auth/flows/change-email', { csrfToken: await t.csrfToken(client), email });
}

async function answer(t: TestAuth, client: TestClient, code: string): Promise<ClientResponse> {
  return client.post('/auth/flows/change-email', { csrfToken: await t.csrfToken(client), code });
}

/** A user on PGlite who changed their address: the old address's mailed way back. */
async function changedWithWayBack(): Promise<{ t: TestAuth; user: { id: string; email: string }; fresh: string; link: URL }> {
    const t = setup('pglite', 'database');
    const user = await userIn('pglite');
    await signIn(t, t.client, user.email);
    await start(t, t.client);
    const fresh = `moved-${randomUUID()}@change-email.test`;
    await ask(t, t.client, fresh);
    await answer(t, t.client, codeIn(await peers.smtp.waitForMessage(fresh)));
    const link = new URL((await peers.smtp.waitForMessage(user.email)).links.find((l) => l.includes('/auth/email/revert?'))!);
  return { t, user, fresh, link };
}

describe.each(['pglite', 'postgres'] as const)('change of e-mail address on %s', (db) => {
  describe.each(['jwt', 'database'] as SessionStrategy[])('%s sessions', (strategy) => {
    it('the code makes the new address the account’s; the old one gets a way back, which restores it once and signs out everywhere', async () => {
      const t = setup(db, strategy);
      const user = await userIn(db);
      const other = t.newClient();
      expect(await signIn(t, t.client, user.email)).toBe(`${ORIGIN}/home`);
      expect(await signIn(t, other, user.email)).toBe(`${ORIGIN}/home`);

      const form = await start(t, t.client);
      expect(form.status).toBe(200);
      expect(await form.text()).toContain('name="email"');
      const fresh = `new-${randomUUID()}@change-email.test`;
      const codePage = await ask(t, t.client, fresh.toUpperCase());
      expect(codePage.status).toBe(200);
      expect(await codePage.text()).toContain(fresh);
      const code = codeIn(await peers.smtp.waitForMessage(fresh));

      const wrong = await answer(t, t.client, code === '000000' ? '111111' : '000000');
      expect(wrong.status).toBe(400);
      expect(await wrong.text()).toContain('4 tries left');
      const done = await answer(t, t.client, code);
      expect(done.status).toBe(302);
      expect(done.location?.href).toBe(`${ORIGIN}/auth/account`);
      const changed = await peers.adapters[db].getUser(user.id);
      expect(changed?.email).toBe(fresh);
      expect(changed?.emailVerified).toBeInstanceOf(Date);
      // The new address signs in; the old one no longer finds the account.
      expect(await signIn(t, t.newClient(), fresh)).toBe(`${ORIGIN}/home`);
      expect(await signIn(t, t.newClient(), user.email)).toContain('error=CredentialsSignin');

      // The old address is told, with its way back.
      const notice = await peers.smtp.waitForMessage(user.email);
      expect(notice.subject).toMatch(/^Your e-mail address on .* was changed$/);
      expect(notice.text).toContain(fresh);
      const link = notice.links.find((l) => l.includes('/auth/email/revert?'))!;
      expect(link).toBeDefined();

      // Opened, it only asks; confirmed, the old address is back and every session ends.
      const owner = t.newClient();
      const question = await owner.get(link);
      expect(question.status).toBe(200);
      expect(await peers.adapters[db].getUser(user.id)).toMatchObject({ email: fresh });
      const [confirm] = readForms(await question.text());
      const restored = await owner.post(new URL(confirm!.action).pathname, confirm!.fields);
      expect(restored.status).toBe(302);
      expect(restored.location?.searchParams.get('notice')).toBe('emailRestored');
      expect(await peers.adapters[db].getUser(user.id)).toMatchObject({ email: user.email });
      expect(await sessionEmail(t.client)).toBeNull();
      expect(await sessionEmail(other)).toBeNull();
      expect(await (await owner.get(restored.location!.pathname + restored.location!.search)).text()).toContain('Your e-mail address was put back');

      // Both changes are on record: the change, and the way back.
      const records = (await peers.adapters[db].listActivity({ userId: user.id, kinds: ['email.changed'] })).records;
      expect(records.map((r) => r.reason ?? null).sort()).toEqual(['reverted', null].sort());
      expect(JSON.stringify(records)).not.toContain(link.split('token=')[1]!);

      // Used once: the same link changes nothing again.
      const again = await owner.post(new URL(confirm!.action).pathname, confirm!.fields);
      expect(again.location?.searchParams.get('error')).toBe('Verification');
    });
  });
});

describe('change of e-mail address under attack', () => {
  it('an address of another account: the same page, no mail to it, and no code ever passes', async () => {
    const t = setup('pglite', 'database');
    const user = await userIn('pglite');
    const taken = await userIn('pglite');
    const free = `free-${randomUUID()}@change-email.test`;
    await signIn(t, t.client, user.email);
    const pages: { status: number; page: string }[] = [];
    for (const email of [taken.email, free]) {
      await start(t, t.client);
      const res = await ask(t, t.client, email);
      pages.push({ status: res.status, page: (await res.text()).replaceAll(email, 'ADDRESS').replace(/value="[0-9a-f]{64}"/g, '').replace(/nonce="[^"]*"/g, '') });
    }
    expect(pages[0]).toEqual(pages[1]);
    await peers.smtp.waitForMessage(free);
    await expect(peers.smtp.waitForMessage(taken.email, { timeout: 300 })).rejects.toThrow();

    // Back to the taken address: every code is wrong, then the code is dead; the address never moves.
    await start(t, t.client);
    await ask(t, t.client, taken.email);
    let last: ClientResponse | undefined;
    for (let i = 0; i < 5; i++) last = await answer(t, t.client, String(100000 + i));
    expect(await last!.text()).toContain('Too many wrong codes');
    expect((await peers.adapters.pglite.getUser(user.id))?.email).toBe(user.email);
    expect((await peers.adapters.pglite.getUser(taken.id))?.email).toBe(taken.email);
  });

  it('a sign-in older than the change allows is sent to sign in again before the form', async () => {
    const t = setup('pglite', 'database', 1);
    const user = await userIn('pglite');
    await signIn(t, t.client, user.email);
    await new Promise((r) => setTimeout(r, 1200));
    const res = await t.client.post('/auth/flows/change-email/start', { csrfToken: await t.csrfToken(), callbackUrl: `${ORIGIN}/auth/account` });
    expect(res.status).toBe(302);
    expect(res.location?.pathname).not.toBe('/auth/account');
    expect(await res.text()).not.toContain('name="email"');
  });

  it('a way back mailed before a new secret was put first still works, once', async () => {
    const { user, link } = await changedWithWayBack();
    // The site rotates: a new secret first, the old one kept to read what it made.
    const rotated = setup('pglite', 'database', undefined, ['a-new-secret-put-first-for-the-rotation-0123456789', TEST_SECRET]);
    const client = rotated.newClient();
    const csrfToken = await rotated.csrfToken(client);
    const confirm = () => client.post('/auth/email/revert', { csrfToken, user: link.searchParams.get('user')!, email: link.searchParams.get('email')!, token: link.searchParams.get('token')! });
    expect((await confirm()).location?.searchParams.get('notice')).toBe('emailRestored');
    expect((await peers.adapters.pglite.getUser(user.id))?.email).toBe(user.email);
    // Used once: again it does nothing.
    expect((await confirm()).location?.searchParams.get('error')).toBe('Verification');
  });

  it('a way back tampered with, or expired, changes nothing', async () => {
    const { t, user, fresh, link } = await changedWithWayBack();
    const attacker = t.newClient();
    const post = async (params: URLSearchParams) => attacker.post('/auth/email/revert', { csrfToken: await t.csrfToken(attacker), user: params.get('user')!, email: params.get('email')!, token: params.get('token')! });
    // Another address in the link (to take over a victim's): no token matches it.
    const forged = new URLSearchParams(link.search);
    forged.set('email', `victim-${randomUUID()}@change-email.test`);
    expect((await post(forged)).location?.searchParams.get('error')).toBe('Verification');
    // Another token.
    const guessed = new URLSearchParams(link.search);
    guessed.set('token', 'A'.repeat(43));
    expect((await post(guessed)).location?.searchParams.get('error')).toBe('Verification');
    // Expired.
    // The real link's row, aged past its 7 days.
    const identifier = revertIdentifier(user.id, user.email);
    const token = revertTokenHash(TEST_SECRET, link.searchParams.get('token')!);
    expect(await peers.adapters.pglite.useVerificationToken({ identifier, token })).not.toBeNull();
    await peers.adapters.pglite.createVerificationToken({ identifier, token, expires: new Date(Date.now() - 1000) });
    expect((await post(link.searchParams)).location?.searchParams.get('error')).toBe('Verification');
    expect((await peers.adapters.pglite.getUser(user.id))?.email).toBe(fresh);
    // Without the CSRF token the confirmation is refused.
    const noCsrf = await attacker.post('/auth/email/revert', { user: link.searchParams.get('user')!, email: link.searchParams.get('email')!, token: link.searchParams.get('token')! });
    expect(noCsrf.status).toBeGreaterThanOrEqual(300);
    expect((await peers.adapters.pglite.getUser(user.id))?.email).toBe(fresh);
  });
});
