// Attacks on the Password provider's sign-up, over real HTTP from 127.0.0.1 against the real PostgreSQL and a real
// SMTP server, with the default argon2id parameters: telling known addresses from unknown ones by the answer or its
// timing, squatting an address (an unproven account never blocks its owner nor gets linked to their accounts),
// passwords made to be expensive or malformed, and one mailed link used twice or at once.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import type { AuthConfig } from '../../src/core/options.js';
import { Email } from '../../src/providers/email.js';
import { hashNewPassword, Password, type PasswordOptions } from '../../src/providers/password/index.js';
import { startSmtpServer, type SmtpHarness } from '../e2e/peers/smtp.js';
import { serveLoopback, type LoopbackApp } from '../support/loopback-app.js';
import { useSharedStores } from '../support/shared-stores.js';
import { SignUpBrowser } from '../support/signup-browser.js';

const SECRET = 'password-signup-attacks-secret-0123456789';
const PASSWORD = 'correct horse battery staple';

const stores = useSharedStores();
let adapter: PostgresAdapterInstance;
let smtp: SmtpHarness;
beforeAll(async () => {
  adapter = PostgresAdapter(stores.pool(await stores.schema(), { max: 6 }));
  smtp = await startSmtpServer();
});
afterAll(async () => smtp.stop());

const apps: LoopbackApp[] = [];
afterEach(async () => {
  while (apps.length) await apps.pop()!.close();
});

async function serve(password: PasswordOptions = {}, config: Partial<AuthConfig> = {}): Promise<LoopbackApp> {
  const app = await serveLoopback({
    secret: SECRET,
    trustHost: true,
    adapter,
    providers: [Password(password), Email({ server: { host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true, pool: true }, from: 'auth@example.test' })],
    session: { strategy: 'database' },
    throttle: { enabled: false },
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    ...config,
  } as AuthConfig);
  apps.push(app);
  return app;
}

async function existingUser(verified = true): Promise<string> {
  const email = `owner-${randomUUID()}@example.test`;
  const { id } = await adapter.createUser({ id: randomUUID(), email, emailVerified: verified ? new Date() : null });
  await adapter.setPasswordHash(id, await hashNewPassword('the owner’s own password'));
  return email;
}

/** What a response shows a client: status, which cookies it sets (names, and whether cleared), the page minus the address. */
async function shape(res: Response, email: string): Promise<string> {
  const cookies = res.headers.getSetCookie().map((c) => `${c.split('=', 1)[0]}${/max-age=0/i.test(c) ? ':cleared' : ''}`).sort();
  const body = (await res.text()).replaceAll(email, 'ADDRESS').replace(/value="[^"]*"/g, 'value=""').replace(/nonce="[^"]*"/g, '').replace(/'nonce-[^']*'/g, '');
  const headers = [...res.headers].filter(([k]) => !['date', 'set-cookie', 'content-security-policy', 'content-length'].includes(k)).map(([k, v]) => `${k}: ${v}`);
  return JSON.stringify({ status: res.status, cookies, headers, body });
}

describe('enumeration', () => {
  it('a known address gets the same answer as an unknown one, and its owner a notice (no link to use)', async () => {
    const app = await serve();
    const known = await existingUser();
    const unknown = `new-${randomUUID()}@example.test`;
    const a = await new SignUpBrowser(app).post('/auth/signup/password', { email: known, password: PASSWORD });
    const b = await new SignUpBrowser(app).post('/auth/signup/password', { email: unknown, password: PASSWORD });
    expect(await shape(a, known)).toBe(await shape(b, unknown));
    const notice = await smtp.waitForMessage(known);
    expect(notice.subject).toContain('Someone tried to create an account');
    expect(notice.links.some((l) => l.includes('/signup/'))).toBe(false);
    expect(notice.text).not.toMatch(/^\s*\d{6}\s*$/m);
    await smtp.waitForMessage(unknown);
    // The owner's password still signs in: nothing was changed.
    const owner = new SignUpBrowser(app);
    await owner.post('/auth/callback/password', { email: known, password: 'the owner’s own password', callbackUrl: '/' });
    expect(await owner.sessionEmail()).toBe(known);
  });

  it('a known and an unknown address take the same time over HTTP (within noise)', async () => {
    const app = await serve();
    const knowns = await Promise.all(Array.from({ length: 8 }, () => existingUser()));
    const time = async (email: string) => {
      const browser = new SignUpBrowser(app);
      await browser.csrfToken();
      const t0 = performance.now();
      const res = await browser.post('/auth/signup/password', { email, password: PASSWORD });
      const ms = performance.now() - t0;
      expect(res.status).toBe(200);
      return ms;
    };
    await time(`warm-${randomUUID()}@example.test`);
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 8; i++) {
      known.push(await time(knowns[i]));
      unknown.push(await time(`nobody-${randomUUID()}@example.test`));
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
    const [k, u] = [median(known), median(unknown)];
    // Both hash the password (argon2id, ~tens of ms) and send one mail: within 35 % of each other.
    expect(Math.abs(k - u) / Math.min(k, u)).toBeLessThan(0.35);
  });
});

describe('squatting', () => {
  it('an account made at once for someone else\'s address never blocks its owner: their proof drops its password and ends its sessions', async () => {
    const app = await serve({ signUp: { createAccount: 'at-once' } });
    const victim = `victim-${randomUUID()}@example.test`;
    const squatter = new SignUpBrowser(app);
    const made = await squatter.post('/auth/signup/password', { email: victim, password: 'the squatter’s password' });
    expect(made.status).toBe(302);
    expect(await squatter.sessionEmail()).toBe(victim);
    expect((await adapter.getUserByEmail(victim))?.emailVerified).toBeNull();
    await smtp.waitForMessage(victim); // the verification mail the squatter cannot read

    // The owner signs up too: a proof is mailed (not a notice), and opening it takes the address over.
    const owner = new SignUpBrowser(app);
    await owner.post('/auth/signup/password', { email: victim, password: PASSWORD });
    const mail = await smtp.waitForMessage(victim);
    expect(mail.subject).toContain('Confirm your address');
    const link = new URL(mail.links.find((l) => l.includes('/signup/'))!);
    expect((await owner.get(link.pathname + link.search)).status).toBe(302);
    expect(await owner.sessionEmail()).toBe(victim);

    expect(await squatter.sessionEmail()).toBeNull();
    const again = new SignUpBrowser(app);
    const refused = await again.post('/auth/callback/password', { email: victim, password: 'the squatter’s password', callbackUrl: '/' });
    expect(refused.headers.get('location')).toContain('error=CredentialsSignin');
    const mine = new SignUpBrowser(app);
    await mine.post('/auth/callback/password', { email: victim, password: PASSWORD, callbackUrl: '/' });
    expect(await mine.sessionEmail()).toBe(victim);
  });

  it('the owner who opens the link of the squatter\'s own sign-up takes the account over (pre-hijacking): the squatter keeps neither password nor session', async () => {
    const app = await serve({ signUp: { createAccount: 'at-once' } });
    const victim = `victim-${randomUUID()}@example.test`;
    const squatter = new SignUpBrowser(app);
    await squatter.post('/auth/signup/password', { email: victim, password: 'the squatter’s password' });
    expect(await squatter.sessionEmail()).toBe(victim);
    // The verification mail of the squatter's sign-up reaches the owner, who opens it in their own browser.
    const link = new URL((await smtp.waitForMessage(victim)).links.find((l) => l.includes('/signup/'))!);
    const owner = new SignUpBrowser(app);
    expect((await owner.get(link.pathname + link.search)).status).toBe(302);
    expect(await owner.sessionEmail()).toBe(victim);
    expect((await adapter.getUserByEmail(victim))?.emailVerified).not.toBeNull();
    // Before the fix the account was verified as it was: the squatter stayed signed in and their password worked.
    expect(await squatter.sessionEmail()).toBeNull();
    const refused = await new SignUpBrowser(app).post('/auth/callback/password', { email: victim, password: 'the squatter’s password', callbackUrl: '/' });
    expect(refused.headers.get('location')).toContain('error=CredentialsSignin');
  });

  it('the one who signed up at once and opens the link in that browser keeps their password and session', async () => {
    const app = await serve({ signUp: { createAccount: 'at-once' } });
    const email = `self-${randomUUID()}@example.test`;
    const me = new SignUpBrowser(app);
    await me.post('/auth/signup/password', { email, password: PASSWORD });
    const link = new URL((await smtp.waitForMessage(email)).links.find((l) => l.includes('/signup/'))!);
    expect((await me.get(link.pathname + link.search)).status).toBe(302);
    expect(await me.sessionEmail()).toBe(email);
    expect((await adapter.getUserByEmail(email))?.emailVerified).not.toBeNull();
    const again = new SignUpBrowser(app);
    await again.post('/auth/callback/password', { email, password: PASSWORD, callbackUrl: '/' });
    expect(await again.sessionEmail()).toBe(email);
  });

  it('an e-mail sign-in by the owner takes an unproven account over too; a pending sign-up makes no user at all', async () => {
    const app = await serve({ signUp: { createAccount: 'at-once' } });
    const victim = `victim-${randomUUID()}@example.test`;
    const squatter = new SignUpBrowser(app);
    await squatter.post('/auth/signup/password', { email: victim, password: 'the squatter’s password' });
    await smtp.waitForMessage(victim);
    const owner = new SignUpBrowser(app);
    await owner.post('/auth/signin/email', { email: victim, callbackUrl: '/' });
    const link = new URL((await smtp.waitForMessage(victim)).links.find((l) => l.includes('/callback/email'))!);
    const confirm = await owner.get(link.pathname + link.search);
    // The confirmation page's button signs in.
    if (confirm.status === 200) await owner.post('/auth/callback/email', Object.fromEntries(link.searchParams));
    expect(await owner.sessionEmail()).toBe(victim);
    expect(await squatter.sessionEmail()).toBeNull();
    const refused = await new SignUpBrowser(app).post('/auth/callback/password', { email: victim, password: 'the squatter’s password', callbackUrl: '/' });
    expect(refused.headers.get('location')).toContain('error=CredentialsSignin');

    const plain = await serve();
    const pending = `pending-${randomUUID()}@example.test`;
    await new SignUpBrowser(plain).post('/auth/signup/password', { email: pending, password: PASSWORD });
    await smtp.waitForMessage(pending);
    expect(await adapter.getUserByEmail(pending)).toBeNull();
  });
});

describe('malformed passwords', () => {
  it('a 200 KB password: refused unread as a body too large (413), no 500, nothing stored, no mail', async () => {
    const app = await serve();
    const email = `big-${randomUUID()}@example.test`;
    const before = smtp.messages.length;
    const res = await new SignUpBrowser(app).post('/auth/signup/password', { email, password: 'x'.repeat(200 * 1024) });
    expect(res.status).toBe(413);
    expect(await adapter.getUserByEmail(email)).toBeNull();
    expect(smtp.messages.length).toBe(before);
  });

  it('a 1 KB password: the form again with "at most" beside the password', async () => {
    const app = await serve();
    const res = await new SignUpBrowser(app).post('/auth/signup/password', { email: `long-${randomUUID()}@example.test`, password: 'x'.repeat(1024) });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/id="signup-password-error"[^>]*>Use at most 128 characters/);
  });

  it.each([
    ['a password with NUL', 'correct horse\u0000battery'],
    ['a password with a lone surrogate', 'correct horse \uD800 battery'],
    ['a password that is not a string', ['correct horse battery staple']],
  ])('%s: the form again, the problem beside the password, the address kept; no 500, nothing stored, no mail', async (_, password) => {
    const app = await serve();
    const email = `odd-${randomUUID()}@example.test`;
    const before = smtp.messages.length;
    const res = await new SignUpBrowser(app).post('/auth/signup/password', { email, password }, { json: true });
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('id="signup-password-error"');
    expect(page).toContain(`value="${email}"`);
    expect(await adapter.getUserByEmail(email)).toBeNull();
    expect(smtp.messages.length).toBe(before);
  });
});

describe('the mailed link', () => {
  it('used at once from two browsers: one account, one sign-in', async () => {
    const app = await serve();
    const email = `race-${randomUUID()}@example.test`;
    await new SignUpBrowser(app).post('/auth/signup/password', { email, password: PASSWORD });
    const link = new URL((await smtp.waitForMessage(email)).links.find((l) => l.includes('/signup/'))!);
    const browsers = Array.from({ length: 4 }, () => new SignUpBrowser(app));
    const answers = await Promise.all(browsers.map((b) => b.get(link.pathname + link.search)));
    const signedIn = answers.filter((r) => !r.headers.get('location')?.includes('error='));
    expect(signedIn).toHaveLength(1);
    expect(answers.every((r) => r.status === 302)).toBe(true);
  });

  it('a forged or reused token signs nobody in', async () => {
    const app = await serve();
    const res = await new SignUpBrowser(app).get(`/auth/signup/password?token=${'A'.repeat(43)}`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toContain('error=Verification');
  });
});
