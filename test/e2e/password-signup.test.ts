// Sign-up with the Password provider end to end: over real HTTP from 127.0.0.1, mails through a real SMTP server,
// users and pending sign-ups in the real PostgreSQL (PostgresAdapter), and the same walk on a memory adapter.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import type { AuthConfig } from '../../src/core/options.js';
import { Email } from '../../src/providers/email.js';
import { Password } from '../../src/providers/password/index.js';
import { memoryAdapter } from '../http/helpers.js';
import { serveLoopback, type LoopbackApp } from '../support/loopback-app.js';
import { useSharedStores } from '../support/shared-stores.js';
import { codeIn, SignUpBrowser } from '../support/signup-browser.js';
import { startSmtpServer, type SmtpHarness } from './peers/smtp.js';

const SECRET = 'password-signup-e2e-secret-0123456789abcdef';
const PASSWORD = 'correct horse battery staple';

const stores = useSharedStores();
let pg: PostgresAdapterInstance;
let smtp: SmtpHarness;
beforeAll(async () => {
  pg = PostgresAdapter(stores.pool(await stores.schema(), { max: 4 }));
  smtp = await startSmtpServer();
});
afterAll(async () => smtp.stop());

const apps: LoopbackApp[] = [];
afterEach(async () => {
  while (apps.length) await apps.pop()!.close();
});

/** A memory adapter with the Password provider's two methods (and the e-mail provider's tokens, unused here). */
function memoryWithPasswords() {
  const base = memoryAdapter();
  const hashes = new Map<string, string>();
  const tokens = new Map<string, { identifier: string; token: string; expires: Date }>();
  return {
    ...base,
    createVerificationToken: (t: { identifier: string; token: string; expires: Date }) => (tokens.set(`${t.identifier}:${t.token}`, t), t),
    useVerificationToken: (t: { identifier: string; token: string }) => {
      const found = tokens.get(`${t.identifier}:${t.token}`) ?? null;
      tokens.delete(`${t.identifier}:${t.token}`);
      return found;
    },
    getPasswordHash: (id: string) => hashes.get(id) ?? null,
    setPasswordHash: (id: string, hash: string, expected?: string) => {
      if (expected !== undefined && hashes.get(id) !== expected) return false;
      hashes.set(id, hash);
      return true;
    },
  };
}

async function serve(adapter: AuthConfig['adapter']): Promise<LoopbackApp> {
  const app = await serveLoopback({
    secret: SECRET,
    trustHost: true,
    adapter,
    providers: [Password(), Email({ server: { host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true, pool: true }, from: 'auth@example.test' })],
    session: { strategy: 'jwt' },
    throttle: { enabled: false },
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
  } as AuthConfig);
  apps.push(app);
  return app;
}

const adapters = {
  PostgreSQL: () => pg,
  memory: () => memoryWithPasswords(),
};

describe.each(Object.keys(adapters) as (keyof typeof adapters)[])('sign-up on %s', (kind) => {
  it('the form, the mail, the link in another browser: a verified account, signed in, whose password then signs in', async () => {
    const adapter = adapters[kind]();
    const app = await serve(adapter as AuthConfig['adapter']);
    const email = `ada-${randomUUID()}@example.test`;
    const browser = new SignUpBrowser(app);

    const form = await browser.get('/auth/signup/password');
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('name="password"');

    const sent = await browser.post('/auth/signup/password', { email: email.toUpperCase(), password: PASSWORD, name: 'Ada' });
    expect(sent.status).toBe(200);
    expect(await sent.text()).toContain(email);
    // Nobody exists before the address is proven.
    expect(await adapter.getUserByEmail(email)).toBeNull();

    const mail = await smtp.waitForMessage(email);
    const link = mail.links.find((l) => l.includes('/auth/signup/password?token='))!;
    expect(link).toBeTruthy();
    expect(mail.text).not.toContain(PASSWORD);

    const other = new SignUpBrowser(app);
    const opened = await other.get(new URL(link).pathname + new URL(link).search);
    expect(opened.status).toBe(302);
    expect(await other.sessionEmail()).toBe(email);
    const user = await adapter.getUserByEmail(email);
    expect(user?.emailVerified).toBeInstanceOf(Date);
    expect(user?.name).toBe('Ada');

    // Used once: the same link again signs nobody in.
    const again = new SignUpBrowser(app);
    const reused = await again.get(new URL(link).pathname + new URL(link).search);
    expect(reused.headers.get('location')).toContain('error=Verification');
    expect(await again.sessionEmail()).toBeNull();

    const signIn = new SignUpBrowser(app);
    const res = await signIn.post('/auth/callback/password', { email, password: PASSWORD, callbackUrl: '/' });
    expect(res.status).toBe(302);
    expect(await signIn.sessionEmail()).toBe(email);
  });

  it('the code in the same browser: a wrong one says how many tries are left, the right one signs in', async () => {
    const adapter = adapters[kind]();
    const app = await serve(adapter as AuthConfig['adapter']);
    const email = `bo-${randomUUID()}@example.test`;
    const browser = new SignUpBrowser(app);
    await browser.post('/auth/signup/password', { email, password: PASSWORD });
    const code = codeIn((await smtp.waitForMessage(email)).text);

    const wrong = await browser.post('/auth/signup/password', { code: code === '000000' ? '111111' : '000000' });
    expect(wrong.status).toBe(200);
    expect(await wrong.text()).toContain('Tries left: 4');
    const right = await browser.post('/auth/signup/password', { code });
    expect(right.status).toBe(302);
    expect(await browser.sessionEmail()).toBe(email);
    expect((await adapter.getUserByEmail(email))?.emailVerified).toBeInstanceOf(Date);
  });
});

describe('sign-up when the password hash cannot be written (PostgreSQL)', () => {
  // The adapter answers everything but the hash write, in and out of transactions: the proven sign-up must leave no
  // user behind (one with no password could never sign in, and its address would be taken for good).
  function failingHashes<T extends object>(adapter: T): T {
    return new Proxy(adapter, {
      get(target, name, receiver) {
        if (name === 'setPasswordHash') return async () => Promise.reject(new Error('hash write refused'));
        if (name === 'withTransaction') {
          const tx = Reflect.get(target, name, receiver) as <R>(fn: (tx: T) => Promise<R>) => Promise<R>;
          return <R>(fn: (inner: T) => Promise<R>) => tx.call(target, (inner) => fn(failingHashes(inner as T)));
        }
        return Reflect.get(target, name, receiver);
      },
    });
  }

  it('the right code leaves no user and no session: the account and its password are one write', async () => {
    const app = await serve(failingHashes(pg) as AuthConfig['adapter']);
    const email = `cy-${randomUUID()}@example.test`;
    const browser = new SignUpBrowser(app);
    await browser.post('/auth/signup/password', { email, password: PASSWORD });
    const code = codeIn((await smtp.waitForMessage(email)).text);
    const res = await browser.post('/auth/signup/password', { code });
    // Refused as a failed sign-up (to the error page), never a 500 and never signed in.
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/error=/);
    expect(await browser.sessionEmail()).toBeNull();
    expect(await pg.getUserByEmail(email)).toBeNull();
  });
});
