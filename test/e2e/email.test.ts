// E-mail sign-in end to end against a real SMTP server (smtp-server on 127.0.0.1) with authchart's default
// nodemailer sender (pooled), and a real PostgreSQL schema on embedded PGlite: request a link, receive and decode
// the mail, open the link, confirm, signed in; and every way a link can be misused.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import type { AuthConfig } from '../../src/core/options.js';
import { hashToken } from '../../src/flows/email/steps.js';
import { Email, type EmailUserConfig } from '../../src/providers/email.js';
import { ORIGIN, TEST_SECRET, testAuth, type TestAuth } from '../support/auth-app.js';
import type { ClientResponse, TestClient } from '../support/client.js';
import { readForms } from './peers/html-form.js';
import { startSmtpServer, type ReceivedMail, type SmtpHarness } from './peers/smtp.js';

const SESSION_COOKIE = 'authchart.session-token';
const FROM = 'authchart tests <no-reply@example.test>';

let db: PGlite;
let adapter: PostgresAdapterInstance;
let smtp: SmtpHarness;

beforeAll(async () => {
  [db, smtp] = await Promise.all([PGlite.create(), startSmtpServer()]);
  adapter = PostgresAdapter(db);
  await adapter.migrate();
}, 30_000);
afterAll(async () => {
  await smtp?.stop();
  if (db && !db.closed) await db.close();
});
afterEach(() => {
  vi.useRealTimers();
  smtp.rejectAll(false);
});

function emailProvider(overrides: EmailUserConfig = {}) {
  // Transport options rather than a URL: `pool: true` keeps one connection (smtp-server greets new ones after 100 ms).
  return Email({ server: { host: smtp.host, port: smtp.port, secure: false, ignoreTLS: true, pool: true }, from: FROM, ...overrides });
}

function app(config: Partial<AuthConfig> = {}, provider = emailProvider()): TestAuth {
  return testAuth({ providers: [provider], adapter, ...config });
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params);
  return rows[0].n;
}
const tokensFor = (email: string) => count('verification_token WHERE identifier = $1', [email]);
const sessionsOf = async (email: string) => count('sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1', [email]);

/** POSTs the sign-in form as the built-in page would. */
async function requestLink(t: TestAuth, email: string, client: TestClient = t.client): Promise<ClientResponse> {
  const csrfToken = await t.csrfToken(client);
  return client.post('/auth/signin/email', { csrfToken, email, callbackUrl: `${ORIGIN}/dashboard` });
}

function linkIn(mail: ReceivedMail): string {
  const link = mail.links.find((l) => l.startsWith(`${ORIGIN}/auth/callback/email?`));
  if (!link) throw new Error(`no sign-in link in the mail: ${mail.links.join(' ')}`);
  return link;
}

/** Requests a link for `email` and returns it as received over SMTP. */
async function mailedLink(t: TestAuth, email: string, client?: TestClient): Promise<string> {
  const res = await requestLink(t, email, client);
  expect(res.status, `request for ${email}`).toBe(302);
  expect(res.location?.href).toBe(`${ORIGIN}/auth/verify-request?provider=email&type=email`);
  return linkIn(await smtp.waitForMessage(email.trim().normalize('NFKC').toLowerCase()));
}

/** Opens the link (the confirmation page) and presses its button. */
async function openAndConfirm(client: TestClient, link: string): Promise<ClientResponse> {
  const page = await client.get(link);
  expect(page.status).toBe(200);
  const [form] = readForms(await page.text());
  expect(form?.method).toBe('POST');
  return client.post(new URL(form.action, page.requestUrl), form.fields);
}

async function sessionOf(client: TestClient): Promise<{ user?: { email?: string } } | null> {
  return (await (await client.get('/auth/session')).json()) as { user?: { email?: string } } | null;
}

const setsSession = (res: ClientResponse) => res.setCookie.some((line) => line.startsWith(`${SESSION_COOKIE}=`) && !/max-age=0/i.test(line));

describe('e-mail sign-in over real SMTP', () => {
  it('requests a link, receives it, opens the confirmation page, confirms, and is signed in', async () => {
    const events: string[] = [];
    const signInCalls: unknown[] = [];
    const t = app({
      events: { createUser: () => void events.push('createUser'), updateUser: () => void events.push('updateUser'), signIn: () => void events.push('signIn') },
      callbacks: { signIn: (p) => (signInCalls.push(p.email ?? null), true) },
    });
    const started = performance.now();
    const res = await requestLink(t, 'ada@example.test');
    expect(res.status).toBe(302);
    const mail = await smtp.waitForMessage('ada@example.test');
    const roundTripMs = performance.now() - started;

    expect(mail.from).toBe('no-reply@example.test');
    expect(mail.subject).toBe('Sign in to localhost:3000');
    expect(mail.headers['content-type']).toMatch(/^multipart\/alternative/);
    const link = linkIn(mail);
    expect(mail.text).toContain(link);
    expect(mail.html).toContain('href="');
    const url = new URL(link);
    expect(url.searchParams.get('email')).toBe('ada@example.test');
    expect(url.searchParams.get('callbackUrl')).toBe(`${ORIGIN}/dashboard`);
    const token = url.searchParams.get('token')!;
    expect(token).toMatch(/^[0-9a-f]{64}$/);

    // Stored hashed with the secret, never in clear.
    const { rows } = await db.query<{ token: string }>('SELECT token FROM verification_token WHERE identifier = $1', ['ada@example.test']);
    expect(rows).toEqual([{ token: hashToken(token, TEST_SECRET) }]);
    expect(rows[0].token).not.toContain(token);

    // Opening the link only shows the page; a second GET (a mail scanner) burns nothing either.
    const scanner = t.newClient();
    expect((await scanner.get(link)).status).toBe(200);
    const page = await t.client.get(link);
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain('ada@example.test');
    expect(await tokensFor('ada@example.test')).toBe(1);
    expect(setsSession(page)).toBe(false);

    const [form] = readForms(body);
    expect(Object.keys(form.fields).sort()).toEqual(['csrfToken']);
    const done = await t.client.post(new URL(form.action, page.requestUrl), form.fields);
    expect(done.status).toBe(302);
    expect(done.location?.href).toBe(`${ORIGIN}/dashboard`);
    expect(setsSession(done)).toBe(true);
    expect((await sessionOf(t.client))?.user?.email).toBe('ada@example.test');

    expect(await tokensFor('ada@example.test')).toBe(0);
    const user = await adapter.getUserByEmail('ada@example.test');
    expect(user?.emailVerified).toBeInstanceOf(Date);
    expect(events).toEqual(['createUser', 'signIn']);
    // The signIn callback is asked before the mail (verificationRequest) and again after the link, without it.
    expect(signInCalls).toEqual([{ verificationRequest: true }, null]);
    console.log(`mail round trip (POST signin -> message received): ${roundTripMs.toFixed(1)} ms`);
  });

  it('marks an existing user verified again and emits updateUser, not createUser', async () => {
    const events: string[] = [];
    const t = app({ events: { createUser: () => void events.push('createUser'), updateUser: () => void events.push('updateUser') } });
    const existing = await adapter.createUser({ id: crypto.randomUUID(), email: 'grace@example.test', emailVerified: null });
    const res = await openAndConfirm(t.client, await mailedLink(t, 'grace@example.test'));
    expect(res.location?.href).toBe(`${ORIGIN}/dashboard`);
    expect((await adapter.getUser(existing.id))?.emailVerified).toBeInstanceOf(Date);
    expect(events).toEqual(['updateUser']);
  });

  it('refuses a link used twice with Verification, and grants no second session', async () => {
    const t = app();
    const link = await mailedLink(t, 'twice@example.test');
    expect(setsSession(await openAndConfirm(t.client, link))).toBe(true);

    // A used link says so as soon as it is opened: no confirmation page for a token that is gone.
    const other = t.newClient();
    const again = await other.get(link);
    expect(again.status).toBe(302);
    expect(again.location?.href).toBe(`${ORIGIN}/auth/error?error=Verification`);
    expect(setsSession(again)).toBe(false);
    expect(await sessionOf(other)).toBeNull();
    expect(await sessionsOf('twice@example.test')).toBe(1);
    expect(t.logger.errorTypes()).toContain('Verification');
  });

  it('accepts a link until it expires and refuses it after (frozen clock)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = new Date('2030-01-01T12:00:00Z').getTime();
    vi.setSystemTime(t0);
    const t = app();
    const early = await mailedLink(t, 'clock@example.test');
    const late = await mailedLink(t, 'clock@example.test');
    const day = 24 * 60 * 60 * 1000;

    vi.setSystemTime(t0 + day - 1000);
    const inTime = await openAndConfirm(t.newClient(), early);
    expect(inTime.location?.href).toBe(`${ORIGIN}/dashboard`);

    vi.setSystemTime(t0 + day + 1000);
    const client = t.newClient();
    // Refused when opened, before any confirmation page: opening consumes nothing, so the dead row stays.
    const expired = await client.get(late);
    expect(expired.location?.href).toBe(`${ORIGIN}/auth/error?error=Verification`);
    expect(setsSession(expired)).toBe(false);
    expect(await sessionOf(client)).toBeNull();
    expect(await tokensFor('clock@example.test')).toBe(1);
    const error = t.logger.errors.find((e) => (e as { type?: string }).type === 'Verification') as { cause?: { state?: string } };
    expect(error.cause?.state).toBe('failed.linkExpired');
    // Opened in time but confirmed too late: refused too. Nothing is spent: a token is deleted only in the
    // transaction that writes the session (store faults), and an expired row signs no one in until it is pruned.
    vi.setSystemTime(t0);
    const slow = await mailedLink(t, 'slow@example.test');
    vi.setSystemTime(t0 + day - 1000);
    const page = await client.get(slow);
    const [form] = readForms(await page.text());
    vi.setSystemTime(t0 + day + 1000);
    const tooLate = await client.post(new URL(form.action, page.requestUrl), form.fields);
    expect(tooLate.location?.href).toBe(`${ORIGIN}/auth/error?error=Verification`);
    expect(setsSession(tooLate)).toBe(false);
    expect(await tokensFor('slow@example.test')).toBe(1);
    const again = await client.post(new URL(form.action, page.requestUrl), form.fields);
    expect(again.location?.href).toBe(`${ORIGIN}/auth/error?error=Verification`);
    expect(setsSession(again)).toBe(false);
  });

  it('refuses a token presented for another address, and leaves it usable by its owner', async () => {
    const t = app();
    const link = await mailedLink(t, 'owner@example.test');
    const forged = new URL(link);
    forged.searchParams.set('email', 'intruder@example.test');
    const intruder = t.newClient();
    // Refused on opening: the page never says "Sign in as intruder@…?" for a token that is not theirs.
    const refused = await intruder.get(forged.href);
    expect(refused.location?.href).toBe(`${ORIGIN}/auth/error?error=Verification`);
    expect(await sessionOf(intruder)).toBeNull();
    expect(await adapter.getUserByEmail('intruder@example.test')).toBeNull();

    expect(await tokensFor('owner@example.test')).toBe(1);
    const owner = await openAndConfirm(t.client, link);
    expect(owner.location?.href).toBe(`${ORIGIN}/dashboard`);
    expect((await sessionOf(t.client))?.user?.email).toBe('owner@example.test');
  });

  it('lets exactly one of two concurrent confirmations of one link sign in', async () => {
    const t = app();
    const link = await mailedLink(t, 'race@example.test');
    const clients = [t.newClient(), t.newClient()];
    const forms = await Promise.all(
      clients.map(async (c) => {
        const page = await c.get(link);
        const [form] = readForms(await page.text());
        return { url: new URL(form.action, page.requestUrl), fields: form.fields };
      }),
    );
    const results = await Promise.all(clients.map((c, i) => c.post(forms[i].url, forms[i].fields)));
    const outcomes = results.map((r) => r.location?.href).sort();
    expect(outcomes).toEqual([`${ORIGIN}/auth/error?error=Verification`, `${ORIGIN}/dashboard`]);
    expect(results.filter(setsSession)).toHaveLength(1);
    expect(await sessionsOf('race@example.test')).toBe(1);
    expect(await count('users WHERE email = $1', ['race@example.test'])).toBe(1);
  });

  it('maps look-alike spellings of one address (full-width ＠, case, spaces) to one mailbox and one user', async () => {
    const t = app();
    const spellings = ['Carol＠Example.Test', '  CAROL@example.test  ', 'carol@EXAMPLE.TEST\t'];
    const ids = new Set<string>();
    for (const spelling of spellings) {
      const client = t.newClient();
      const res = await requestLink(t, spelling, client);
      expect(res.status).toBe(302);
      const mail = await smtp.waitForMessage('carol@example.test');
      expect(mail.to).toEqual(['carol@example.test']);
      expect(new URL(linkIn(mail)).searchParams.get('email')).toBe('carol@example.test');
      expect((await openAndConfirm(client, linkIn(mail))).location?.href).toBe(`${ORIGIN}/dashboard`);
      const session = await sessionOf(client);
      expect(session?.user?.email).toBe('carol@example.test');
      ids.add((await adapter.getUserByEmail('carol@example.test'))!.id);
    }
    expect(ids.size).toBe(1);
    expect(await count('users WHERE lower(email) LIKE $1', ['%carol%'])).toBe(1);
  });

  it('reports a refusing mail server as EmailSignInError on the sign-in page and leaves no token behind', async () => {
    const t = app();
    smtp.rejectAll(true);
    const before = smtp.messages.length;
    const res = await requestLink(t, 'down@example.test');
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe(`${ORIGIN}/auth/signin?error=EmailSignInError`);
    expect(await tokensFor('down@example.test')).toBe(0);
    expect(smtp.messages.length).toBe(before);
    const page = await t.client.get(res.location!.href);
    expect(await page.text()).toContain('The sign-in e-mail could not be sent.');
    const error = t.logger.errors.find((e) => (e as { type?: string }).type === 'EmailSignInError') as Error & { cause?: { err?: Error; state?: string } };
    expect(error.cause?.state).toBe('failed.emailSignIn');
    expect(error.cause?.err?.message).toMatch(/550|Mailbox unavailable/);

    smtp.rejectAll(false);
    expect((await openAndConfirm(t.client, await mailedLink(t, 'down@example.test'))).location?.href).toBe(`${ORIGIN}/dashboard`);
  });

  it('sends nothing when the signIn callback refuses the address', async () => {
    const t = app({ callbacks: { signIn: ({ user, email }) => !(email?.verificationRequest && user.email === 'mallory@example.test') } });
    const before = smtp.messages.length;
    const refused = await requestLink(t, 'mallory@example.test');
    expect(refused.location?.href).toBe(`${ORIGIN}/auth/error?error=AccessDenied`);
    expect(smtp.messages.length).toBe(before);
    expect(await tokensFor('mallory@example.test')).toBe(0);

    const thrower = app({ callbacks: { signIn: () => { throw new Error('directory offline'); } } });
    const thrown = await requestLink(thrower, 'mallory@example.test');
    expect(thrown.location?.href).toBe(`${ORIGIN}/auth/error?error=AccessDenied`);
    expect(smtp.messages.length).toBe(before);
    expect(await tokensFor('mallory@example.test')).toBe(0);
  });

  it('signs in on GET with confirm: false (one click)', async () => {
    const t = app({}, emailProvider({ confirm: false }));
    const link = await mailedLink(t, 'oneclick@example.test');
    const res = await t.client.get(link);
    expect(res.location?.href).toBe(`${ORIGIN}/dashboard`);
    expect(setsSession(res)).toBe(true);
    expect(await tokensFor('oneclick@example.test')).toBe(0);
    const replay = await t.newClient().get(link);
    expect(replay.location?.href).toBe(`${ORIGIN}/auth/error?error=Verification`);
    expect(setsSession(replay)).toBe(false);
  });

  it("leaves a one-click link working after a mail scanner's HEAD request", async () => {
    const t = app({}, emailProvider({ confirm: false }));
    const link = await mailedLink(t, 'scanned@example.test');
    const probe = await t.newClient().request(new Request(link, { method: 'HEAD' }));
    expect(probe.status).toBe(405);
    expect(await tokensFor('scanned@example.test')).toBe(1);
    const res = await t.client.get(link);
    expect(res.location?.href).toBe(`${ORIGIN}/dashboard`);
    expect(setsSession(res)).toBe(true);
    expect(t.logger.errorTypes()).toEqual([]);
  });

  it('ends the session of another user when a browser follows a link to a different address', async () => {
    const t = app();
    await openAndConfirm(t.client, await mailedLink(t, 'first@example.test'));
    expect(await sessionsOf('first@example.test')).toBe(1);
    await openAndConfirm(t.client, await mailedLink(t, 'second@example.test'));
    expect((await sessionOf(t.client))?.user?.email).toBe('second@example.test');
    expect(await sessionsOf('first@example.test')).toBe(0);
    expect(await sessionsOf('second@example.test')).toBe(1);
  });

  it('refuses a confirmation without the CSRF token', async () => {
    const t = app();
    const link = await mailedLink(t, 'csrf@example.test');
    const page = await t.client.get(link);
    const [form] = readForms(await page.text());
    const res = await t.client.post(new URL(form.action, page.requestUrl), { csrfToken: 'f'.repeat(64) });
    expect(res.location?.href).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`);
    expect(setsSession(res)).toBe(false);
    expect(await tokensFor('csrf@example.test')).toBe(1);
  });
});
