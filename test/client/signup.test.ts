// authchart/client's signUp against a real authchart instance (a Password provider, an embedded PostgreSQL, mails
// captured by `signUp.send`): a mail goes out and `url` is the page that asks for its code; a refused form is
// `ok: false` with its page, showing the problem beside the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../../src/client/signup.js';
import { argon2id, Password, type SignUpMail } from '../../src/providers/password/index.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pg = useMigratedPGlite();
const mails: SignUpMail[] = [];
let t: TestAuth;
const saved = { fetch: globalThis.fetch, window: (globalThis as { window?: unknown }).window };

beforeAll(() => {
  t = testAuth({ adapter: pg.adapter, session: { strategy: 'jwt' }, providers: [Password({ hasher: argon2id({ memoryCost: 1024, timeCost: 1 }), signUp: { send: (mail) => void mails.push(mail) } })] });
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => t.client.request(new Request(new URL(String(input), ORIGIN), init))) as typeof fetch;
  (globalThis as { window?: unknown }).window = { location: { href: `${ORIGIN}/current`, assign: () => {}, reload: () => {} } };
});
afterAll(() => {
  globalThis.fetch = saved.fetch;
  (globalThis as { window?: unknown }).window = saved.window;
});

describe('signUp', () => {
  it('mails the proof and answers the page that asks for the code', async () => {
    const result = await signUp('password', { email: 'Client.Ada@Example.test', password: 'correct horse battery staple', redirect: false });
    expect(result).toMatchObject({ ok: true, error: null, url: `${ORIGIN}/auth/flow/account.signup.password` });
    expect(mails.at(-1)).toMatchObject({ kind: 'verify', to: 'client.ada@example.test' });
    const page = await t.client.get('/auth/flow/account.signup.password');
    expect(await page.text()).toContain('client.ada@example.test');
  });

  it('a password too short is ok: false, and its page says so beside the field', async () => {
    const result = await signUp('password', { email: 'bo@example.test', password: 'short', redirect: false });
    expect(result).toMatchObject({ ok: false, error: 'InvalidRequest', url: null });
    const page = await t.client.get('/auth/flow/account.signup.password');
    expect(await page.text()).toMatch(/id="signup-password-error"[^>]*>Use at least 8 characters/);
  });
});

describe('the sign-in page', () => {
  it('links "Create an account" under a Password provider that allows sign-up, and not under one that does not', async () => {
    const page = await (await t.client.get('/auth/signin')).text();
    expect(page).toContain(`href="${ORIGIN}/auth/signup/password" data-signup>Create an account</a>`);
    const off = testAuth({ adapter: pg.adapter, session: { strategy: 'jwt' }, providers: [Password({ signUp: false })] });
    expect(await (await off.client.get('/auth/signin')).text()).not.toContain('data-signup');
    // Sign-up off: a browser asking for its page is sent to the error page, never shown a form.
    const res = await off.client.get('/auth/signup/password');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/\/auth\/error\?error=/);
  });

  it('a Password provider whose sign-up mails have no way out (no e-mail provider, no `signUp.send`) neither links nor routes it', async () => {
    const mute = testAuth({ adapter: pg.adapter, session: { strategy: 'jwt' }, providers: [Password()] });
    expect(await (await mute.client.get('/auth/signin')).text()).not.toContain('data-signup');
    const res = await mute.client.get('/auth/signup/password');
    expect(res.headers.get('location')).toMatch(/\/auth\/error\?error=/);
  });
});
