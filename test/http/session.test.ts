import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JWTCallbackParams, SessionCallbackParams } from '../../src/core/options.js';
import type { JWT } from '../../src/core/types.js';
import { encodeSync } from '../../src/session/jwt.js';
import { testAuth, TEST_SECRET } from '../support/auth-app.js';
import {
  ADA,
  adaProvider,
  cookiesNamed,
  expectNoCache,
  openToken,
  SESSION_COOKIE,
  sessionClears,
  sessionToken,
  sessionWrites,
  signIn,
} from './helpers.js';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;
const NEW_SECRET = 'the-newest-secret-of-the-rotation-0123456789';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0);
});

afterEach(() => {
  vi.useRealTimers();
});

const later = (ms: number) => vi.setSystemTime(new Date(T0.getTime() + ms));

describe('GET /session', () => {
  it('answers null without a cookie, with no-cache headers and no session cookie', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await t.client.get('/auth/session');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toBeNull();
    expectNoCache(res);
    expect(cookiesNamed(res, SESSION_COOKIE)).toEqual([]);
  });

  it('shows only name, email and image after a credentials sign-in, expiring after maxAge', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const signin = await signIn(t);
    expect(signin.status).toBe(302);
    const res = await t.client.get('/auth/session');
    expectNoCache(res);
    expect(await res.json()).toEqual({
      user: { name: ADA.name, email: ADA.email, image: ADA.image },
      expires: new Date(T0.getTime() + 30 * DAY).toISOString(),
    });
  });

  it('gives each of two browsers, signed in hours apart and checking in turn, its own expiry', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const first = t.newClient();
    await signIn(t, {}, first);
    later(DAY / 2);
    const second = t.newClient();
    await signIn(t, {}, second);
    for (let i = 0; i < 2; i++) {
      expect((await (await first.get('/auth/session')).json()).expires).toBe(new Date(T0.getTime() + 30 * DAY).toISOString());
      expect((await (await second.get('/auth/session')).json()).expires).toBe(new Date(T0.getTime() + 30.5 * DAY).toISOString());
    }
  });

  it('does not leak the user id or extra fields authorize returned', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    await signIn(t);
    const text = await (await t.client.get('/auth/session')).text();
    expect(text).not.toContain(ADA.role);
    expect(text).not.toContain('"id"');
    expect(text).not.toContain('"sub"');
  });

  it('fires the session event with the session and the token', async () => {
    const seen: { session: unknown; token?: JWT }[] = [];
    const t = testAuth({ providers: [adaProvider()], events: { session: (m) => void seen.push(m) } });
    await signIn(t);
    const body = await (await t.client.get('/auth/session')).json();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.session).toEqual(body);
    expect(seen[0]!.token).toMatchObject({ sub: ADA.id, email: ADA.email });
  });

  it('logs a throwing event handler as EventError and answers as usual', async () => {
    const t = testAuth({
      providers: [adaProvider()],
      events: {
        session: () => {
          throw new Error('audit log down');
        },
      },
    });
    await signIn(t);
    const res = await t.client.get('/auth/session');
    expect(res.status).toBe(200);
    expect((await res.json()).user.email).toBe(ADA.email);
    expect(t.logger.errorTypes()).toEqual(['EventError']);
  });
});

describe('jwt and session callbacks', () => {
  it('gets the sign-in arguments with trigger signIn (never signUp for credentials + jwt)', async () => {
    const calls: JWTCallbackParams[] = [];
    const t = testAuth({ providers: [adaProvider()], callbacks: { jwt: (p) => (calls.push(structuredClone(p)), p.token) } });
    await signIn(t);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      trigger: 'signIn',
      token: { name: ADA.name, email: ADA.email, picture: ADA.image, sub: ADA.id },
      user: { ...ADA },
      account: { provider: 'credentials', type: 'credentials', providerAccountId: ADA.id },
    });
    expect(calls[0]!.isNewUser).not.toBe(true);
  });

  it('gets the stored token without a trigger on reads, and the session callback gets session and token', async () => {
    const jwtCalls: JWTCallbackParams[] = [];
    const sessionCalls: SessionCallbackParams[] = [];
    const t = testAuth({
      providers: [adaProvider()],
      callbacks: {
        jwt: (p) => (jwtCalls.push(structuredClone(p)), p.token),
        session: (p) => (sessionCalls.push(structuredClone(p)), { ...p.session, userId: p.token?.sub }),
      },
    });
    await signIn(t);
    const body = await (await t.client.get('/auth/session')).json();
    expect(jwtCalls).toHaveLength(2);
    expect(jwtCalls[1]!.trigger).toBeUndefined();
    expect(jwtCalls[1]!.user).toBeUndefined();
    expect(jwtCalls[1]!.token).toMatchObject({ sub: ADA.id, email: ADA.email, iat: T0.getTime() / 1000, exp: T0.getTime() / 1000 + 30 * 86400 });
    expect(sessionCalls).toHaveLength(1);
    expect(sessionCalls[0]!.token).toMatchObject({ sub: ADA.id });
    expect(sessionCalls[0]!.session.user).toEqual({ name: ADA.name, email: ADA.email, image: ADA.image });
    expect(body.userId).toBe(ADA.id);
  });

  it('signs nobody in when the jwt callback returns null at sign-in', async () => {
    const t = testAuth({ providers: [adaProvider()], callbacks: { jwt: () => null } });
    const res = await signIn(t);
    expect(res.location?.pathname).toBe('/auth/error');
    expect(res.location?.searchParams.get('error')).toBe('AccessDenied');
    expect(sessionWrites(res)).toEqual([]);
  });

  it('ends the session when the jwt callback returns null on a read', async () => {
    let allow = true;
    const t = testAuth({ providers: [adaProvider()], callbacks: { jwt: ({ token }) => (allow ? token : null) } });
    await signIn(t);
    allow = false;
    const res = await t.client.get('/auth/session');
    expect(await res.json()).toBeNull();
    expect(sessionClears(res).map((c) => c.name)).toEqual([SESSION_COOKIE]);
  });
});

describe('re-issuing the session cookie', () => {
  it('does not re-issue while the token is unchanged and updateAge has not passed', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    await signIn(t);
    const before = sessionToken(t.client);
    later(DAY - 1000);
    const res = await t.client.get('/auth/session');
    expect((await res.json()).user.email).toBe(ADA.email);
    expect(cookiesNamed(res, SESSION_COOKIE)).toEqual([]);
    expect(sessionToken(t.client)).toBe(before);
  });

  it('re-issues when the jwt callback changed the token', async () => {
    let visits = 0;
    const t = testAuth({ providers: [adaProvider()], callbacks: { jwt: ({ token, trigger }) => (trigger ? token : { ...token, visits: ++visits }) } });
    await signIn(t);
    const res = await t.client.get('/auth/session');
    expect(sessionWrites(res)).toHaveLength(1);
    expect(openToken(sessionToken(t.client)!, TEST_SECRET).visits).toBe(1);
  });

  it('re-issues once updateAge has passed, sliding the expiry', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    await signIn(t);
    later(DAY);
    const res = await t.client.get('/auth/session');
    expect(sessionWrites(res)).toHaveLength(1);
    const body = await res.json();
    expect(body.expires).toBe(new Date(T0.getTime() + DAY + 30 * DAY).toISOString());
    const token = openToken(sessionToken(t.client)!, TEST_SECRET);
    expect(token.iat).toBe((T0.getTime() + DAY) / 1000);
    expect(token.exp).toBe((T0.getTime() + 31 * DAY) / 1000);
    // Just re-issued: the next read leaves it alone.
    expect(cookiesNamed(await t.client.get('/auth/session'), SESSION_COOKIE)).toEqual([]);
  });

  it('honours a custom updateAge', async () => {
    const t = testAuth({ providers: [adaProvider()], session: { updateAge: 60 } });
    await signIn(t);
    later(59_000);
    expect(sessionWrites(await t.client.get('/auth/session'))).toHaveLength(0);
    later(60_000);
    expect(sessionWrites(await t.client.get('/auth/session'))).toHaveLength(1);
  });

  it('re-issues on every read with updateAge 0', async () => {
    const t = testAuth({ providers: [adaProvider()], session: { updateAge: 0 } });
    await signIn(t);
    const first = sessionToken(t.client);
    const a = await t.client.get('/auth/session');
    const b = await t.client.get('/auth/session');
    expect(sessionWrites(a)).toHaveLength(1);
    expect(sessionWrites(b)).toHaveLength(1);
    expect(sessionToken(t.client)).not.toBe(first);
  });
});

describe('untrustworthy session cookies', () => {
  async function validToken(): Promise<string> {
    const t = testAuth({ providers: [adaProvider()] });
    await signIn(t);
    return sessionToken(t.client)!;
  }

  const cases: [string, () => Promise<string>][] = [
    ['garbage', async () => 'not-a-jwe'],
    ['truncated', async () => (await validToken()).slice(0, -20)],
    [
      'tampered',
      async () => {
        const parts = (await validToken()).split('.');
        const ct = parts[3]!;
        parts[3] = (ct[0] === 'A' ? 'B' : 'A') + ct.slice(1);
        return parts.join('.');
      },
    ],
    ['expired', async () => encodeSync({ token: { sub: 'u1', email: ADA.email }, secret: TEST_SECRET, salt: SESSION_COOKIE, maxAge: -60 })],
    ['made with another secret', async () => encodeSync({ token: { sub: 'u1', email: ADA.email }, secret: NEW_SECRET, salt: SESSION_COOKIE })],
    ['made for another cookie name', async () => encodeSync({ token: { sub: 'u1', email: ADA.email }, secret: TEST_SECRET, salt: 'authchart.flow.github' })],
  ];

  it.each(cases)('a %s cookie reads as null, is cleared, and logs JWTSessionError', async (_name, make) => {
    const value = await make();
    const t = testAuth({ providers: [adaProvider()] });
    t.client.cookies.set(SESSION_COOKIE, value, 'localhost:3000');
    const res = await t.client.get('/auth/session');
    expect(res.status).toBe(200);
    expect(await res.json()).toBeNull();
    expect(sessionClears(res).map((c) => c.name)).toEqual([SESSION_COOKIE]);
    expect(sessionWrites(res)).toEqual([]);
    expect(t.logger.errorTypes()).toEqual(['JWTSessionError']);
    expect(t.client.cookies.get(SESSION_COOKIE)).toBeUndefined();
  });

  it('expires a real session after maxAge on a frozen clock', async () => {
    const t = testAuth({ providers: [adaProvider()], session: { maxAge: 3600 } });
    await signIn(t);
    const token = sessionToken(t.client)!;
    later(3600_000 + 16_000);
    // The browser would have dropped it; replay it as an attacker would.
    t.client.cookies.set(SESSION_COOKIE, token, 'localhost:3000');
    const res = await t.client.get('/auth/session');
    expect(await res.json()).toBeNull();
    expect(t.logger.errorTypes()).toEqual(['JWTSessionError']);
  });

  it('clears every chunk of a broken chunked cookie', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    t.client.cookies.set(`${SESSION_COOKIE}.0`, 'garbage', 'localhost:3000');
    t.client.cookies.set(`${SESSION_COOKIE}.1`, 'more-garbage', 'localhost:3000');
    const res = await t.client.get('/auth/session');
    expect(await res.json()).toBeNull();
    expect(sessionClears(res).map((c) => c.name).sort()).toEqual([`${SESSION_COOKIE}.0`, `${SESSION_COOKIE}.1`]);
  });
});

describe('secret rotation', () => {
  it('reads a session made under the old secret after rotation, and re-issues it under the new one', async () => {
    const before = testAuth({ providers: [adaProvider()] });
    await signIn(before);
    const oldToken = sessionToken(before.client)!;

    const after = testAuth({ providers: [adaProvider()], secret: [NEW_SECRET, TEST_SECRET], session: { updateAge: 0 } });
    after.client.cookies.set(SESSION_COOKIE, oldToken, 'localhost:3000');
    const res = await after.client.get('/auth/session');
    expect((await res.json()).user.email).toBe(ADA.email);
    const reissued = sessionToken(after.client)!;
    expect(reissued).not.toBe(oldToken);
    expect(openToken(reissued, NEW_SECRET).sub).toBe(ADA.id);
    expect(() => openToken(reissued, TEST_SECRET)).toThrow();
  });

  it('signs new sessions in with the first secret', async () => {
    const t = testAuth({ providers: [adaProvider()], secret: [NEW_SECRET, TEST_SECRET] });
    await signIn(t);
    expect(openToken(sessionToken(t.client)!, NEW_SECRET).sub).toBe(ADA.id);
  });

  it('stops reading sessions of a secret that was dropped', async () => {
    const before = testAuth({ providers: [adaProvider()] });
    await signIn(before);
    const after = testAuth({ providers: [adaProvider()], secret: NEW_SECRET });
    after.client.cookies.set(SESSION_COOKIE, sessionToken(before.client)!, 'localhost:3000');
    expect(await (await after.client.get('/auth/session')).json()).toBeNull();
  });
});

describe('chunked session cookies', () => {
  const blob = 'abcdefghij'.repeat(600); // 6 KB the jwt callback adds

  function bigAuth() {
    return testAuth({
      providers: [adaProvider()],
      callbacks: {
        jwt: ({ token, trigger, session }) => {
          if (trigger === 'signIn') return { ...token, blob };
          if (trigger === 'update' && (session as { shrink?: boolean })?.shrink) {
            const { blob: _drop, ...rest } = token;
            return rest;
          }
          return token;
        },
        session: ({ session, token }) => ({ ...session, blobLength: typeof token?.blob === 'string' ? token.blob.length : 0 }),
      },
    });
  }

  it('splits a large session into .0, .1, … cookies of at most 4096 bytes and reads them back', async () => {
    const t = bigAuth();
    const res = await signIn(t);
    const writes = sessionWrites(res);
    expect(writes.length).toBeGreaterThanOrEqual(2);
    expect(writes.map((c) => c.name)).toEqual(writes.map((_c, i) => `${SESSION_COOKIE}.${i}`));
    for (const line of res.setCookie.filter((l) => l.startsWith(`${SESSION_COOKIE}.`))) {
      expect(Buffer.byteLength(line)).toBeLessThanOrEqual(4096);
    }
    expect(t.client.cookies.get(SESSION_COOKIE)).toBeUndefined();
    const body = await (await t.client.get('/auth/session')).json();
    expect(body.blobLength).toBe(blob.length);
    expect(body.user.email).toBe(ADA.email);
  });

  it('clears the stale chunks when the session shrinks back into one cookie', async () => {
    const t = bigAuth();
    const signin = await signIn(t);
    const chunkNames = sessionWrites(signin).map((c) => c.name);
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/session', JSON.stringify({ csrfToken, data: { shrink: true } }), { json: true });
    expect(res.status).toBe(200);
    expect((await res.json()).blobLength).toBe(0);
    expect(sessionWrites(res).map((c) => c.name)).toEqual([SESSION_COOKIE]);
    expect(sessionClears(res).map((c) => c.name).sort()).toEqual([...chunkNames].sort());
    expect(t.client.cookies.all().filter((c) => c.name.startsWith(`${SESSION_COOKIE}.`))).toEqual([]);
    expect((await (await t.client.get('/auth/session')).json()).user.email).toBe(ADA.email);
  });

  it('clears the single cookie when the session grows into chunks', async () => {
    let grow = false;
    const t = testAuth({ providers: [adaProvider()], callbacks: { jwt: ({ token }) => (grow ? { ...token, blob } : token) } });
    await signIn(t);
    grow = true;
    const res = await t.client.get('/auth/session');
    expect(sessionClears(res).map((c) => c.name)).toEqual([SESSION_COOKIE]);
    expect(sessionWrites(res).length).toBeGreaterThanOrEqual(2);
    expect(t.client.cookies.get(SESSION_COOKIE)).toBeUndefined();
    expect(openToken(sessionToken(t.client)!, TEST_SECRET).blob).toBe(blob);
  });
});

describe('POST /session (update)', () => {
  it('refuses an update without a CSRF token: 400 null, and the jwt callback never sees it', async () => {
    const triggers: (string | undefined)[] = [];
    const t = testAuth({ providers: [adaProvider()], callbacks: { jwt: ({ token, trigger }) => (triggers.push(trigger), token) } });
    await signIn(t);
    const before = sessionToken(t.client);
    const res = await t.client.post('/auth/session', JSON.stringify({ data: { name: 'Mallory' } }), { json: true });
    expect(res.status).toBe(400);
    expect(await res.json()).toBeNull();
    expect(triggers).not.toContain('update');
    expect(sessionWrites(res)).toEqual([]);
    expect(sessionToken(t.client)).toBe(before);
  });

  it('refuses an update with a wrong CSRF token', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    await signIn(t);
    const res = await t.client.post('/auth/session', JSON.stringify({ csrfToken: 'f'.repeat(64), data: { name: 'Mallory' } }), { json: true });
    expect(res.status).toBe(400);
    expect(await res.json()).toBeNull();
  });

  it('passes the data to jwt({trigger: "update", session}) and answers the updated session', async () => {
    const calls: JWTCallbackParams[] = [];
    const t = testAuth({
      providers: [adaProvider()],
      callbacks: {
        jwt: (p) => {
          calls.push(structuredClone(p));
          const data = p.session as { name?: unknown } | undefined;
          return p.trigger === 'update' && typeof data?.name === 'string' ? { ...p.token, name: data.name } : p.token;
        },
      },
    });
    await signIn(t);
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/session', JSON.stringify({ csrfToken, data: { name: 'Countess of Lovelace' } }), { json: true });
    expect(res.status).toBe(200);
    expect((await res.json()).user.name).toBe('Countess of Lovelace');
    const update = calls.find((c) => c.trigger === 'update');
    expect(update?.session).toEqual({ name: 'Countess of Lovelace' });
    expect(update?.token).toMatchObject({ sub: ADA.id });
    expect(sessionWrites(res)).toHaveLength(1);
    expect((await (await t.client.get('/auth/session')).json()).user.name).toBe('Countess of Lovelace');
  });

  it('answers null to an update without a session', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/session', JSON.stringify({ csrfToken, data: {} }), { json: true });
    expect(res.status).toBe(200);
    expect(await res.json()).toBeNull();
  });
});
