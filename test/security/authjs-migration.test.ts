// Attacks on the Auth.js migration (`migrateFrom: 'authjs'`): an extra cookie format authchart reads is an extra way
// in. Only a token sealed with the app's own secret under the cookie's own name opens; anything else is refused,
// cleared and logged, never a session. Without the option, Auth.js cookies are not read at all.
import { existsSync } from 'node:fs';
import { hkdfSync } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { EncryptJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { Credentials } from '../../src/providers/credentials.js';
import { TEST_SECRET, testAuth, type TestAuth } from '../support/auth-app.js';

const CORE = new URL('../../bench/node_modules/@auth/core/', import.meta.url);

type Encode = (params: { token: Record<string, unknown>; secret: string; salt: string; maxAge?: number }) => Promise<string>;
let encode: Encode;

const AUTHJS_COOKIE = 'authjs.session-token';
const CLAIMS = { sub: 'victim-1', name: 'Victim', email: 'victim@example.test' };

function app(migrate = true): TestAuth {
  return testAuth({
    ...(migrate ? { migrateFrom: 'authjs' as const } : {}),
    providers: [Credentials({ credentials: {}, authorize: async () => null })],
  });
}

/** GET /auth/session with exactly this Cookie header. */
async function sessionWith(t: TestAuth, cookie: string) {
  const res = await t.client.get('/auth/session', { headers: { cookie } });
  return { res, body: await res.json() };
}

/** Refused: no session, no authchart cookie issued, the Auth.js cookie cleared, a JWTSessionError logged. */
async function expectRefused(cookieName: string, value: string) {
  const t = app();
  const { res, body } = await sessionWith(t, `${cookieName}=${value}`);
  expect(body).toBeNull();
  expect(res.setCookie.some((l) => l.startsWith('authchart.session-token=') && !/Max-Age=0/i.test(l))).toBe(false);
  expect(res.setCookie.find((l) => l.startsWith(`${cookieName}=`))).toMatch(/Max-Age=0/i);
  expect(t.logger.errorTypes()).toContain('JWTSessionError');
}

describe('Auth.js migration: attacks', () => {
  beforeAll(async () => {
    encode = (await import(new URL('jwt.js', CORE).href)).encode;
  });

  it('control: a genuine Auth.js token is read', async () => {
    const value = await encode({ token: CLAIMS, secret: TEST_SECRET, salt: AUTHJS_COOKIE });
    expect((await sessionWith(app(), `${AUTHJS_COOKIE}=${value}`)).body?.user?.email).toBe(CLAIMS.email);
  });

  it('ignores Auth.js cookies entirely when migrateFrom is off: no session, nothing issued or cleared', async () => {
    const value = await encode({ token: CLAIMS, secret: TEST_SECRET, salt: AUTHJS_COOKIE });
    const t = app(false);
    const { res, body } = await sessionWith(t, `${AUTHJS_COOKIE}=${value}`);
    expect(body).toBeNull();
    expect(res.setCookie).toEqual([]);
    expect(t.logger.errors).toEqual([]);
  });

  it('refuses a token forged with another secret (Auth.js format, the victim as sub)', async () => {
    await expectRefused(AUTHJS_COOKIE, await encode({ token: CLAIMS, secret: 'the-attackers-own-secret-0123456789', salt: AUTHJS_COOKIE }));
  });

  it('refuses a tampered genuine token', async () => {
    const parts = (await encode({ token: CLAIMS, secret: TEST_SECRET, salt: AUTHJS_COOKIE })).split('.');
    parts[3] = (parts[3][0] === 'A' ? 'B' : 'A') + parts[3].slice(1);
    await expectRefused(AUTHJS_COOKIE, parts.join('.'));
  });

  it('refuses a genuine token moved to another cookie name (each name is its own key)', async () => {
    // E.g. an Auth.js check cookie's sealed value, or a token sealed for another name, replayed as the session.
    await expectRefused('__Secure-authjs.session-token', await encode({ token: CLAIMS, secret: TEST_SECRET, salt: 'authjs.pkce.code_verifier' }));
    await expectRefused(AUTHJS_COOKIE, await encode({ token: CLAIMS, secret: TEST_SECRET, salt: '__Secure-authjs.session-token' }));
  });

  it('refuses an expired Auth.js token', async () => {
    await expectRefused(AUTHJS_COOKIE, await encode({ token: CLAIMS, secret: TEST_SECRET, salt: AUTHJS_COOKIE, maxAge: -60 }));
  });

  it('refuses a token without exp (a session that would never end) and one with another algorithm', async () => {
    const key = new Uint8Array(hkdfSync('sha256', TEST_SECRET, AUTHJS_COOKIE, `Auth.js Generated Encryption Key (${AUTHJS_COOKIE})`, 64));
    await expectRefused(AUTHJS_COOKIE, await new EncryptJWT(CLAIMS).setProtectedHeader({ alg: 'dir', enc: 'A256CBC-HS512' }).encrypt(key));
    const short = key.slice(0, 16);
    await expectRefused(AUTHJS_COOKIE, await new EncryptJWT(CLAIMS).setProtectedHeader({ alg: 'dir', enc: 'A128GCM' }).setExpirationTime('1h').encrypt(short));
  });

  it('refuses a next-auth v4-format token sealed with another secret', async () => {
    const key = new Uint8Array(hkdfSync('sha256', 'the-attackers-own-secret-0123456789', '', 'NextAuth.js Generated Encryption Key', 32));
    const value = await new EncryptJWT(CLAIMS).setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).setExpirationTime('1h').encrypt(key);
    await expectRefused('next-auth.session-token', value);
  });
});
