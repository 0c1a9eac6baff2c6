// Attacks on the Password provider's sign-in, over real HTTP from 127.0.0.1 against the real PostgreSQL with the
// default argon2id parameters: telling known from unknown accounts by the answer or its timing, passwords made to
// be expensive or malformed (200 KB, NUL, lone surrogates), and the per-account limit under spellings of one address.
// Also the hashes' life: an imported bcrypt hash and an argon2id hash of older parameters are replaced at sign-in.
import { randomUUID } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import type { AuthConfig } from '../../src/core/options.js';
import { argon2id, hashNewPassword, Password } from '../../src/providers/password/index.js';
import { passwordForHashing } from '../../src/providers/password/rules.js';
import { serveLoopback, type LoopbackApp } from '../support/loopback-app.js';
import { useSharedStores } from '../support/shared-stores.js';

const SECRET = 'password-signin-secret-0123456789abcdef';
const PASSWORD = 'correct horse battery staple';
const OWASP_PREFIX = '$argon2id$v=19$m=19456,t=2,p=1$';

const stores = useSharedStores();
let adapter: PostgresAdapterInstance;
beforeAll(async () => {
  adapter = PostgresAdapter(stores.pool(await stores.schema(), { max: 6 }));
});

const apps: LoopbackApp[] = [];
afterEach(async () => {
  while (apps.length) await apps.pop()!.close();
});

async function serve(config: Partial<AuthConfig> = {}): Promise<LoopbackApp> {
  const app = await serveLoopback({ secret: SECRET, trustHost: true, adapter, providers: [Password()], session: { strategy: 'jwt' }, throttle: { enabled: false }, logger: { error: () => {}, warn: () => {}, debug: () => {} }, ...config } as AuthConfig);
  apps.push(app);
  return app;
}

/** A user at a fresh address, with `hash` stored as their password hash. */
async function userWith(hash: string | Promise<string>): Promise<{ id: string; email: string }> {
  const email = `kim-${randomUUID()}@example.com`;
  const { id } = await adapter.createUser({ id: randomUUID(), email, emailVerified: null });
  await adapter.setPasswordHash(id, await hash);
  return { id, email };
}

/** A sign-in attempt as JSON (any value may be sent) with a fresh CSRF pair. */
async function attempt(app: LoopbackApp, email: unknown, password: unknown): Promise<Response> {
  const { token, cookie } = await app.csrf();
  return app.fetch('/auth/callback/password', {
    method: 'POST',
    cookie,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ csrfToken: token, email, password, callbackUrl: '/dashboard' }),
  });
}

const outcome = (res: Response) => `${res.status} ${res.headers.get('location') ?? ''}`;

describe('hashes at sign-in', () => {
  it('an argon2id hash of the default parameters signs in and is left as it is', async () => {
    const hash = await hashNewPassword(PASSWORD);
    expect(hash.startsWith(OWASP_PREFIX)).toBe(true);
    const ada = await userWith(hash);
    const app = await serve();
    const res = await app.postForm('/auth/callback/password', { email: ada.email, password: PASSWORD, callbackUrl: '/dashboard' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${app.origin}/dashboard`);
    expect(await adapter.getPasswordHash(ada.id)).toBe(hash);
  });

  it('an imported bcrypt hash (cost 10, as Auth.js Credentials apps store them) signs in and is replaced by argon2id', async () => {
    const imported = await bcrypt.hash(PASSWORD, 10);
    const ada = await userWith(imported);
    const app = await serve();
    const wrong = await app.postForm('/auth/callback/password', { email: ada.email, password: 'not it', callbackUrl: '/dashboard' });
    expect(wrong.headers.get('location')).toContain('error=CredentialsSignin');
    expect(await adapter.getPasswordHash(ada.id)).toBe(imported);

    const res = await app.postForm('/auth/callback/password', { email: ada.email, password: PASSWORD, callbackUrl: '/dashboard' });
    expect(res.headers.get('location')).toBe(`${app.origin}/dashboard`);
    const stored = await adapter.getPasswordHash(ada.id);
    expect(stored!.startsWith(OWASP_PREFIX)).toBe(true);
    expect(await argon2id().verify(stored!, PASSWORD)).toBe(true);
    // And the new hash signs in (and stays).
    const again = await app.postForm('/auth/callback/password', { email: ada.email, password: PASSWORD, callbackUrl: '/dashboard' });
    expect(again.headers.get('location')).toBe(`${app.origin}/dashboard`);
    expect(await adapter.getPasswordHash(ada.id)).toBe(stored);
  });

  it('an argon2id hash of older parameters is rehashed with today\'s', async () => {
    const old = await argon2id({ memoryCost: 4096, timeCost: 3 }).hash(PASSWORD);
    const ada = await userWith(old);
    const app = await serve();
    const res = await app.postForm('/auth/callback/password', { email: ada.email, password: PASSWORD, callbackUrl: '/dashboard' });
    expect(res.headers.get('location')).toBe(`${app.origin}/dashboard`);
    expect((await adapter.getPasswordHash(ada.id))!.startsWith(OWASP_PREFIX)).toBe(true);
  });

  it('a rehash never undoes a password changed while the sign-in ran', async () => {
    const imported = await bcrypt.hash(PASSWORD, 10);
    const ada = await userWith(imported);
    const changed = await hashNewPassword('a brand new passphrase');
    // The change lands between the check and the upgrade: the conditional write finds another hash and leaves it.
    const racing = { ...adapter, setPasswordHash: async (id: string, hash: string, expected?: string) => {
      if (expected !== undefined) await adapter.setPasswordHash(id, changed);
      return adapter.setPasswordHash(id, hash, expected);
    } };
    const app = await serve({ adapter: racing });
    const res = await app.postForm('/auth/callback/password', { email: ada.email, password: PASSWORD, callbackUrl: '/dashboard' });
    expect(res.headers.get('location')).toBe(`${app.origin}/dashboard`);
    expect(await adapter.getPasswordHash(ada.id)).toBe(changed);
  });
});

describe('enumeration', () => {
  it('an unknown address, an account without a password and a wrong password get the same answer', async () => {
    const ada = await userWith(hashNewPassword(PASSWORD));
    const { id: noPasswordId } = await adapter.createUser({ id: randomUUID(), email: `${randomUUID()}@example.com`, emailVerified: null });
    const noPassword = (await adapter.getUser(noPasswordId))!.email!;
    const app = await serve();
    const answers = await Promise.all([
      attempt(app, ada.email, 'a wrong password'),
      attempt(app, `${randomUUID()}@example.com`, 'a wrong password'),
      attempt(app, noPassword, 'a wrong password'),
      attempt(app, 'not an address', 'a wrong password'),
    ]);
    const seen = answers.map(outcome);
    expect(new Set(seen).size).toBe(1);
    expect(seen[0]).toBe(`302 ${app.origin}/auth/signin?error=CredentialsSignin&code=credentials`);
  });

  it('unknown and known accounts take the same time over HTTP (paired samples: what one hash costs, and the difference)', async () => {
    const ada = await userWith(hashNewPassword(PASSWORD));
    const app = await serve();
    const time = async (email: unknown, password: unknown) => {
      const started = performance.now();
      const res = await attempt(app, email, password);
      await res.arrayBuffer();
      return performance.now() - started;
    };
    const known = (i: number) => time(ada.email, `wrong-${i}`);
    const unknown = (i: number) => time(`nobody-${i}-${randomUUID()}@example.com`, `wrong-${i}`);
    // The control: refused before any hash (a NUL in the password).
    const refused = (i: number) => time(ada.email, `nul\0${i}`);
    /** Two requests sent at the same moment (which one first alternates): both meet the same load on shared cores. */
    const pair = async (i: number, a: (i: number) => Promise<number>, b: (i: number) => Promise<number>) => {
      const [x, y] = i % 2 === 0 ? await Promise.all([a(i), b(i)]) : (await Promise.all([b(i), a(i)])).reverse();
      return x! - y!;
    };
    // Warm up: the first dummy hash is made on first use, and connections open.
    for (let i = 0; i < 3; i++) await pair(i, known, unknown);

    const differences: number[] = [];
    const hashCost: number[] = [];
    for (let i = 0; i < 60; i++) {
      differences.push(await pair(i, known, unknown));
      if (i % 3 === 0) hashCost.push(await pair(i, known, refused));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const [difference, cost] = [median(differences), median(hashCost)];
    console.log(`password sign-in timing (ms): known minus unknown, median of 60 pairs ${difference.toFixed(1)}; known minus refused-before-hashing (one hash), median of 20 pairs ${cost.toFixed(1)}`);
    // The measure sees one hash: a known account costs clearly more than a request refused before hashing.
    expect(cost).toBeGreaterThan(10);
    // An unknown account costs what a known one does, within a quarter of one hash.
    expect(Math.abs(difference)).toBeLessThan(cost / 4);
  }, 120_000);
});

describe('passwords made to hurt', () => {
  it('a 200 KB password is refused before anything is hashed, over HTTP and at the rules', async () => {
    const ada = await userWith(hashNewPassword(PASSWORD));
    const app = await serve();
    const huge = 'a'.repeat(200 * 1024);
    let started = performance.now();
    // Over the request body limit (64 KB): refused while reading the body, 413.
    const overHttp = await attempt(app, ada.email, huge);
    expect(overHttp.status).toBe(413);
    expect(performance.now() - started).toBeLessThan(1000);
    // Under the body limit (64 KB) the password rules refuse it themselves, named.
    started = performance.now();
    const underBodyLimit = await attempt(app, ada.email, 'a'.repeat(60 * 1024));
    expect(underBodyLimit.status).toBe(400);
    expect(await underBodyLimit.json()).toMatchObject({ error: 'InvalidRequest', message: expect.stringContaining('longer than 128') });
    expect(performance.now() - started).toBeLessThan(1000);
    // The rule itself, on the whole 200 KB: refused without reading it (well under a millisecond a call).
    started = performance.now();
    for (let i = 0; i < 100; i++) expect(() => passwordForHashing(huge)).toThrow(expect.objectContaining({ type: 'InvalidPassword', problem: 'too_long' }));
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('a password with NUL, a lone surrogate, or not one string is refused with 400, nothing looked up', async () => {
    const ada = await userWith(hashNewPassword(PASSWORD));
    const looked: string[] = [];
    const app = await serve({ adapter: { ...adapter, getUserByEmail: async (email: string) => (looked.push(email), adapter.getUserByEmail(email)) } });
    for (const [password, problem] of [
      [`${PASSWORD}\0`, 'NUL'],
      ['\0', 'NUL'],
      [`${PASSWORD}\uD800`, 'lone UTF-16 surrogate'],
      [`\uDC00${PASSWORD}`, 'lone UTF-16 surrogate'],
      [[PASSWORD], 'one string'],
      [{ toString: PASSWORD }, 'one string'],
      [12345678, 'one string'],
    ] as const) {
      const res = await attempt(app, ada.email, password);
      expect(res.status, String(problem)).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain(problem);
    }
    // As a form, %00 arrives as NUL.
    const { token, cookie } = await app.csrf();
    const form = await app.fetch('/auth/callback/password', { method: 'POST', cookie, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `csrfToken=${encodeURIComponent(token)}&email=${encodeURIComponent(ada.email)}&password=abc%00defghij` });
    expect(form.status).toBe(400);
    expect(looked).toEqual([]);
    // A surrogate pair (an emoji) is valid text and goes on to the check.
    expect(outcome(await attempt(app, ada.email, 'pass 🔑 phrase'))).toContain('error=CredentialsSignin');
    expect(looked).toHaveLength(1);
  });
});

describe('the per-account limit under spellings of one address', () => {
  it('lets at most the limit (10) of 40 guesses in many spellings reach the account\'s hash', async () => {
    const ada = await userWith(hashNewPassword(PASSWORD));
    const reached: string[] = [];
    const counting = { ...adapter, getPasswordHash: async (id: string) => (id === ada.id && reached.push(id), adapter.getPasswordHash(id)) };
    const app = await serve({ adapter: counting, throttle: { enabled: true } });
    const [local, domain] = ada.email.split('@') as [string, string];
    const spellings = [
      ada.email,
      ada.email.toUpperCase(),
      ` ${ada.email} `,
      `${local}@${domain.replace('example', 'EXAMPLE')}`,
      [...ada.email].map((c) => (/[a-z]/.test(c) ? String.fromCodePoint(c.codePointAt(0)! + 0xfee0) : c)).join(''), // full-width
      `${local.slice(0, 4)}\u200b${local.slice(4)}@${domain}`, // zero-width space
      `${ada.email}\u3000`, // ideographic space
      ada.email.replace('kim', 'K\u0130M'), // the dotted capital I: PostgreSQL's lower() reads it as i
    ];
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await attempt(app, spellings[i % spellings.length], `guess-${i}`)).status);
    expect(reached.length).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(30);
    // Locked for ada in every spelling, the right password included.
    for (const spelling of spellings.slice(0, 5)) expect((await attempt(app, spelling, PASSWORD)).status).toBe(429);
    expect(reached.length).toBeLessThanOrEqual(10);
  }, 60_000);
});
