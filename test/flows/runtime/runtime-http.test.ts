// The flow runtime as the HTTP layer drives it: the flow cookie a paused flow is sealed in (one per provider, bound to
// provider, machine version and 15 minutes, single use, tamper-evident), and emitted events on a real sign-in.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sealFlow } from '../../../src/flows/runtime/cookie.js';
import type { PausedFlow } from '../../../src/flows/runtime/run.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { decodeSync, encodeSync } from '../../../src/session/jwt.js';
import { ORIGIN, TEST_SECRET, testAuth, type TestAuth } from '../../support/auth-app.js';
import { createClient, type ClientResponse, type TestClient } from '../../support/client.js';
import { parseSetCookie } from '../../support/cookie-jar.js';
import { depsFor, fixtureProvider, newProbe, pausingFlow, type Probe } from './fixtures/runtime-flows.js';

/** Each provider's paused flow has its own cookie: `authchart.flow.<provider id>`. */
const flowCookieOf = (providerId: string) => `authchart.flow.${providerId}`;
const FLOW_COOKIE = flowCookieOf('alpha');
const SESSION_COOKIE = 'authchart.session-token';
// InvalidCheck is not client-safe: the browser sees `Configuration`, the log has the real type.
const CONFIGURATION_ERROR_URL = `${ORIGIN}/auth/error?error=Configuration`;

afterEach(() => {
  vi.useRealTimers();
});

interface Fixture {
  t: TestAuth;
  probe: Probe;
}

function fixtureAuth(providers: Record<string, { probe?: Probe; version?: number }> = { alpha: {} }, secret?: string): Fixture & { probes: Record<string, Probe> } {
  const probes: Record<string, Probe> = {};
  const list = Object.entries(providers).map(([id, { probe = newProbe(), version }]) => {
    probes[id] = probe;
    return fixtureProvider(id, pausingFlow({ version }), probe);
  });
  const t = testAuth({ providers: list, ...(secret ? { secret } : {}) });
  return { t, probe: probes[Object.keys(providers)[0]], probes };
}

/** POST signin/:id as the browser's form does; returns the response and the sealed cookie's value. */
async function start(t: TestAuth, id = 'alpha', client: TestClient = t.client): Promise<{ res: ClientResponse; sealed: string }> {
  const csrfToken = await t.csrfToken(client);
  const res = await client.post(`/auth/signin/${id}`, { csrfToken, callbackUrl: '/after' });
  expect(res.status).toBe(302);
  expect(res.headers.get('location')).toMatch(/^https:\/\/idp\.example\/authorize\?/);
  const sealed = client.cookies.get(flowCookieOf(id));
  expect(sealed, 'flow cookie set').toBeTruthy();
  return { res, sealed: sealed! };
}

const sessionWrites = (res: ClientResponse) => res.setCookie.filter((line) => line.startsWith(`${SESSION_COOKIE}=`) && !/max-age=0/i.test(line));
const flowCleared = (res: ClientResponse, providerId = 'alpha') =>
  res.setCookie.some((line) => line.startsWith(`${flowCookieOf(providerId)}=;`) && /max-age=0/i.test(line));
const flowWrites = (res: ClientResponse, providerId: string) => res.setCookie.filter((line) => line.startsWith(`${flowCookieOf(providerId)}=`));

/** Asserts the response is the InvalidCheck error redirect, that nothing signed in, and returns the logged error. */
function expectInvalidCheck(t: TestAuth, res: ClientResponse, message: RegExp) {
  expect(res.status).toBe(302);
  expect(res.headers.get('location')).toBe(CONFIGURATION_ERROR_URL);
  expect(sessionWrites(res)).toEqual([]);
  const error = t.logger.errors.at(-1) as Error & { type?: string; cause?: Record<string, unknown> };
  expect(error.type).toBe('InvalidCheck');
  expect(error.message).toMatch(message);
  return error;
}

describe('the flow cookie', () => {
  it('seals the paused flow (HttpOnly, SameSite=Lax, 15 minutes, encrypted), and the callback signs in and clears it', async () => {
    const { t, probe } = fixtureAuth();
    const { res, sealed } = await start(t);
    const line = res.setCookie.find((l) => l.startsWith(`${FLOW_COOKIE}=`))!;
    expect(parseSetCookie(line)).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', maxAge: 900 });
    expect(sealed.split('.')).toHaveLength(5);
    const decoded = sealed.split('.').map((part) => Buffer.from(part, 'base64url').toString('latin1')).join('\n');
    expect(decoded).not.toMatch(/awaitingCallback|alpha|after/);
    // Opened with the key, it holds the machine's state and context, and none of the deps.
    const claims = decodeSync({ token: sealed, secret: TEST_SECRET, salt: FLOW_COOKIE }) as { p: string; m: string; v: number; s: unknown; c: Record<string, unknown> };
    expect(claims).toMatchObject({ p: 'alpha', m: 'pausing', v: 1, s: 'awaitingCallback' });
    expect(Object.keys(claims.c).sort()).toEqual(['callbackUrl', 'flowId', 'providerId', 'startedAt']);
    expect(JSON.stringify(claims)).not.toContain(TEST_SECRET);

    const back = await t.client.get('/auth/callback/alpha?code=ok');
    expect(back.status).toBe(302);
    expect(back.headers.get('location')).toBe(`${ORIGIN}/after`);
    expect(sessionWrites(back)).toHaveLength(1);
    expect(flowCleared(back)).toBe(true);
    expect(t.client.cookies.get(FLOW_COOKIE)).toBeUndefined();
    expect(probe).toMatchObject({ prepared: 1, finished: 1 });
    expect(t.logger.errors).toEqual([]);
  });

  it('is single use: a second callback after success finds no flow (InvalidCheck) and runs nothing', async () => {
    const { t, probe } = fixtureAuth();
    await start(t);
    await t.client.get('/auth/callback/alpha?code=ok');
    const again = await t.client.get('/auth/callback/alpha?code=ok');
    expectInvalidCheck(t, again, /missing/);
    expect(probe.finished).toBe(1);
  });

  it('is spent by a failed callback too: the retry finds no flow', async () => {
    const { t, probe } = fixtureAuth();
    await start(t);
    const failed = await t.client.get('/auth/callback/alpha?code=wrong');
    expect(failed.headers.get('location')).toBe(CONFIGURATION_ERROR_URL);
    expect(t.logger.errorTypes()).toEqual(['CallbackRouteError']);
    expect(flowCleared(failed)).toBe(true);
    const retry = await t.client.get('/auth/callback/alpha?code=ok');
    expectInvalidCheck(t, retry, /missing/);
    expect(probe.finished).toBe(1);
  });

  it('from another version of the flow is an InvalidCheck (expected vs. actual version), and is cleared', async () => {
    const v1 = fixtureAuth({ alpha: { version: 1 } });
    await start(v1.t);
    // The same browser after a deploy that bumped the flow's version.
    const v2 = fixtureAuth({ alpha: { version: 2 } });
    const browser = createClient({ fetch: v2.t.handle, baseUrl: ORIGIN, cookies: v1.t.client.cookies });
    const res = await browser.get('/auth/callback/alpha?code=ok');
    const error = expectInvalidCheck(v2.t, res, /another version/);
    expect(error.cause).toMatchObject({ expected: 'pausing@2', actual: 'pausing@1' });
    expect(flowCleared(res)).toBe(true);
    expect(v2.probe.finished).toBe(0);
  });

  it("is per provider: another provider's callback does not see it (InvalidCheck: missing) and leaves it to complete", async () => {
    const { t, probes } = fixtureAuth({ alpha: {}, beta: {} });
    const { sealed } = await start(t, 'alpha');
    expect(t.client.cookies.get(flowCookieOf('beta'))).toBeUndefined();
    const res = await t.client.get('/auth/callback/beta?code=ok');
    const error = expectInvalidCheck(t, res, /missing/);
    expect(error.cause).toMatchObject({ expected: 'flow cookie', actual: null });
    // Alpha's paused flow is untouched: not cleared, still in the browser, and it still signs in.
    expect(flowWrites(res, 'alpha')).toEqual([]);
    expect(t.client.cookies.get(FLOW_COOKIE)).toBe(sealed);
    const back = await t.client.get('/auth/callback/alpha?code=ok');
    expect(back.headers.get('location')).toBe(`${ORIGIN}/after`);
    expect(sessionWrites(back)).toHaveLength(1);
    expect(flowCleared(back)).toBe(true);
    expect(probes.alpha.finished).toBe(1);
    expect(probes.beta.finished).toBe(0);
  });

  it("of another provider planted under this provider's name cannot be opened (other salt): InvalidCheck, cleared, runs nothing", async () => {
    const { t, probes } = fixtureAuth({ alpha: {}, beta: {} });
    const { sealed } = await start(t, 'alpha');
    t.client.cookies.set(flowCookieOf('beta'), sealed, ORIGIN);
    const res = await t.client.get('/auth/callback/beta?code=ok');
    expectInvalidCheck(t, res, /could not be opened/);
    expect(flowCleared(res, 'beta')).toBe(true);
    expect(flowWrites(res, 'alpha')).toEqual([]);
    expect(probes.alpha.finished + probes.beta.finished).toBe(0);
  });

  it("re-sealed under another provider's salt (the key, not just the name) is still refused by its provider claim", async () => {
    const { t, probes } = fixtureAuth({ alpha: {}, beta: {} });
    const { sealed } = await start(t, 'alpha');
    const claims = decodeSync({ token: sealed, secret: TEST_SECRET, salt: flowCookieOf('alpha') })!;
    expect(claims).toMatchObject({ p: 'alpha' });
    const forged = encodeSync({ token: claims, secret: TEST_SECRET, salt: flowCookieOf('beta'), maxAge: 900 });
    t.client.cookies.set(flowCookieOf('beta'), forged, ORIGIN);
    const res = await t.client.get('/auth/callback/beta?code=ok');
    const error = expectInvalidCheck(t, res, /another provider/);
    expect(error.cause).toMatchObject({ expected: 'beta', actual: 'alpha' });
    expect(flowCleared(res, 'beta')).toBe(true);
    expect(probes.alpha.finished + probes.beta.finished).toBe(0);
  });

  it('of two providers paused at once in one browser: both complete, and completing one leaves the other in place', async () => {
    const { t, probes } = fixtureAuth({ alpha: {}, beta: {} });
    const alpha = await start(t, 'alpha');
    const beta = await start(t, 'beta');
    // Starting beta neither replaced nor cleared alpha's paused flow.
    expect(flowWrites(beta.res, 'alpha')).toEqual([]);
    expect(t.client.cookies.get(flowCookieOf('alpha'))).toBe(alpha.sealed);
    expect(alpha.sealed).not.toBe(beta.sealed);

    const betaBack = await t.client.get('/auth/callback/beta?code=ok');
    expect(betaBack.headers.get('location')).toBe(`${ORIGIN}/after`);
    expect(sessionWrites(betaBack)).toHaveLength(1);
    expect(flowCleared(betaBack, 'beta')).toBe(true);
    expect(flowWrites(betaBack, 'alpha')).toEqual([]);
    expect(t.client.cookies.get(flowCookieOf('beta'))).toBeUndefined();
    expect(t.client.cookies.get(flowCookieOf('alpha'))).toBe(alpha.sealed);

    const alphaBack = await t.client.get('/auth/callback/alpha?code=ok');
    expect(alphaBack.headers.get('location')).toBe(`${ORIGIN}/after`);
    expect(sessionWrites(alphaBack)).toHaveLength(1);
    expect(flowCleared(alphaBack, 'alpha')).toBe(true);
    expect(t.client.cookies.get(flowCookieOf('alpha'))).toBeUndefined();
    expect(probes.alpha).toMatchObject({ prepared: 1, finished: 1 });
    expect(probes.beta).toMatchObject({ prepared: 1, finished: 1 });
    expect(t.logger.errors).toEqual([]);
  });

  const flip = (part: number) => (value: string) => {
    const parts = value.split('.');
    const s = parts[part];
    const i = Math.floor(s.length / 2);
    parts[part] = `${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
    return parts.join('.');
  };
  it.each<[string, (sealed: string) => string]>([
    ['a changed ciphertext byte', flip(3)],
    ['a changed authentication tag', flip(4)],
    ['a changed protected header', flip(0)],
    ['a truncated value', (v) => v.slice(0, -12)],
    ['garbage', () => 'not-a-flow-cookie'],
    ['a session token in its place (same secret, other salt)', () => encodeSync({ token: { sub: 'u1' }, secret: TEST_SECRET, salt: SESSION_COOKIE })],
  ])('with %s is an InvalidCheck and runs nothing', async (_name, tamper) => {
    const { t, probe } = fixtureAuth();
    const { sealed } = await start(t);
    t.client.cookies.set(FLOW_COOKIE, tamper(sealed), ORIGIN);
    const res = await t.client.get('/auth/callback/alpha?code=ok');
    expectInvalidCheck(t, res, /could not be opened/);
    expect(flowCleared(res)).toBe(true);
    expect(probe.finished).toBe(0);
  });

  it('sealed with another secret is an InvalidCheck', async () => {
    const other = fixtureAuth({ alpha: {} }, 'another-secret-that-is-long-enough-0123456789');
    await start(other.t);
    const { t, probe } = fixtureAuth();
    const browser = createClient({ fetch: t.handle, baseUrl: ORIGIN, cookies: other.t.client.cookies });
    expectInvalidCheck(t, await browser.get('/auth/callback/alpha?code=ok'), /could not be opened/);
    expect(probe.finished).toBe(0);
  });

  it('expires after 15 minutes (a frozen clock 16 minutes on): InvalidCheck, even when the browser still sends it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = new Date('2026-03-01T09:00:00Z').getTime();
    vi.setSystemTime(t0);
    const late = fixtureAuth();
    const { sealed } = await start(late.t);
    vi.setSystemTime(t0 + 16 * 60 * 1000);
    // A browser drops it by Max-Age; a replaying client sends it anyway. Both fail.
    expectInvalidCheck(late.t, await late.t.client.get('/auth/callback/alpha?code=ok'), /missing/);
    const replay = await late.t.client.get('/auth/callback/alpha?code=ok', { headers: { cookie: `${FLOW_COOKIE}=${sealed}` } });
    const error = expectInvalidCheck(late.t, replay, /could not be opened/);
    expect((error.cause?.err as { cause?: { reason?: string } }).cause?.reason).toBe('expired');
    expect(late.probe.finished).toBe(0);

    vi.setSystemTime(t0);
    const inTime = fixtureAuth();
    await start(inTime.t);
    vi.setSystemTime(t0 + 14 * 60 * 1000);
    expect((await inTime.t.client.get('/auth/callback/alpha?code=ok')).headers.get('location')).toBe(`${ORIGIN}/after`);
  });

  it.each<[string, PausedFlow['value']]>([
    ['a state the machine does not have', 'nope'],
    ['a state that is not awaiting', 'finishing'],
    ['a malformed state value', ['awaitingCallback'] as unknown as PausedFlow['value']],
  ])('holding %s (genuinely sealed) is an InvalidCheck, never an uncaught exception', async (_name, value) => {
    const uncaught = vi.fn();
    process.on('uncaughtException', uncaught);
    try {
      const { t, probe } = fixtureAuth();
      const flow = pausingFlow();
      // Sealed with the real key, so it passes every cookie check and reaches the machine.
      const deps = await depsFor(fixtureProvider('alpha', flow, probe));
      sealFlow(deps.req, { provider: 'alpha' }, flow, { machine: 'pausing', value, context: { callbackUrl: `${ORIGIN}/after`, providerId: 'alpha', startedAt: Date.now() } });
      t.client.cookies.set(FLOW_COOKIE, deps.req.setCookies.find((c) => c.name === FLOW_COOKIE)!.value, ORIGIN);
      const res = await t.client.get('/auth/callback/alpha?code=ok');
      expectInvalidCheck(t, res, /does not have|cannot be resumed/);
      expect(flowCleared(res)).toBe(true);
      expect(probe.finished).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(uncaught).not.toHaveBeenCalled();
    } finally {
      process.off('uncaughtException', uncaught);
    }
  });
});

describe('events on a real sign-in', () => {
  it('a throwing signIn handler is logged as EventError and the credentials sign-in still succeeds', async () => {
    const calls: string[] = [];
    const t = testAuth({
      providers: [Credentials({ authorize: async (c) => (c.password === 'pw' ? { id: 'u1', email: 'ada@example.com' } : null) })],
      events: {
        signIn: () => {
          calls.push('signIn');
          throw new Error('analytics down');
        },
      },
    });
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/callback/credentials', { csrfToken, password: 'pw', callbackUrl: '/home' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${ORIGIN}/home`);
    expect(sessionWrites(res)).toHaveLength(1);
    expect(calls).toEqual(['signIn']);
    expect(t.logger.errorTypes()).toEqual(['EventError']);
    const session = (await (await t.client.get('/auth/session')).json()) as { user: { email: string } };
    expect(session.user.email).toBe('ada@example.com');
  });
});
