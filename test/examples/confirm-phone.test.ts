// The example signed-in flow (examples/confirm-phone): every state and transition reached through testFlow, as an
// app would test its own; then over HTTP on two instances that share only Redis (the flow store) and the secret;
// and refused, with nothing run, for a session that ended or is older than the flow's level.
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { Credentials, memoryFlowStore, redisFlowStore, type FlowStore } from 'authchart';
import { testFlow, type SignedInFlowDriver } from 'authchart/flow';
import { createCoverage } from 'authchart/devtools';
import { CODE_TTL_MS, ConfirmPhone, MAX_TRIES } from '../../examples/confirm-phone/flow.js';
import { ORIGIN, testAuth } from '../support/auth-app.js';
import { createClient } from '../support/client.js';
import { REDIS_URL, runId } from '../support/shared-stores.js';
import { useMigratedPGlite } from '../support/pglite.js';

interface Sent {
  userId: string;
  phone: string;
  code: string;
}

function setup(options: { failSend?: boolean; failSave?: boolean; store?: FlowStore } = {}) {
  const sent: Sent[] = [];
  const saved: { userId: string; phone: string }[] = [];
  const flow = ConfirmPhone({
    send: (s) => {
      if (options.failSend) throw new Error('the SMS gateway is down');
      sent.push(s);
    },
    save: (s) => {
      if (options.failSave) throw new Error('the app database is down');
      saved.push(s);
    },
  });
  const driver = testFlow(flow, { flowStore: options.store ?? memoryFlowStore() });
  return { flow, driver, sent, saved };
}

/** A memory store whose `take` fails while `down` is set. */
function flakyStore(): FlowStore & { down: boolean } {
  const inner = memoryFlowStore();
  const store = {
    ...inner,
    down: false,
    take: (key: string) => (store.down ? Promise.reject(new Error('store down')) : inner.take(key)),
  };
  return store;
}

afterEach(() => vi.useRealTimers());

describe('confirm-phone through testFlow', () => {
  const { flow } = setup();
  const coverage = createCoverage(flow.machine);
  const record = (d: SignedInFlowDriver) => {
    for (const t of d.traces) coverage.record(t);
  };

  it('confirms the number: code sent, a wrong code asks again, the right one saves it and verifies the session anew', async () => {
    const { driver, sent, saved } = setup();
    await driver.signIn('user-1');
    const shown = await driver.start({ phone: '+1 (555) 010-2030' });
    expect(shown).toMatchObject({ status: 'paused', response: { kind: 'page', page: 'form' } });
    expect(sent).toEqual([{ userId: 'user-1', phone: '+15550102030', code: expect.stringMatching(/^\d{6}$/) }]);
    const wrong = await driver.continue({ code: sent[0]!.code === '000000' ? '111111' : '000000' });
    expect(wrong).toMatchObject({ status: 'paused', response: { data: { error: 'That code did not match.' } } });
    const done = await driver.continue({ code: sent[0]!.code });
    expect(done).toEqual({ status: 'redirected', url: `${ORIGIN}/`, trace: expect.any(Array) });
    expect(saved).toEqual([{ userId: 'user-1', phone: '+15550102030' }]);
    expect(driver.paused).toBe(false);
    record(driver);
  });

  it('refuses a number that is not one, and ends when the gateway or the app database fails', async () => {
    const bad = setup();
    await bad.driver.signIn('user-2');
    expect(await bad.driver.start({ phone: 'call me' })).toMatchObject({ status: 'failed', error: { type: 'InvalidRequest' } });
    record(bad.driver);
    const gateway = setup({ failSend: true });
    await gateway.driver.signIn('user-3');
    expect(await gateway.driver.start({ phone: '+15550102031' })).toMatchObject({ status: 'failed', error: { type: 'CallbackRouteError' } });
    record(gateway.driver);
    const database = setup({ failSave: true });
    await database.driver.signIn('user-4');
    await database.driver.start({ phone: '+15550102032' });
    expect(await database.driver.continue({ code: database.sent[0]!.code })).toMatchObject({ status: 'failed', error: { type: 'CallbackRouteError' } });
    record(database.driver);
  });

  it(`locks after ${MAX_TRIES} wrong codes, expires after ${CODE_TTL_MS / 60_000} minutes, and fails closed when the store fails`, async () => {
    const locked = setup();
    await locked.driver.signIn('user-5');
    await locked.driver.start({ phone: '+15550102033' });
    const wrongCode = locked.sent[0]!.code === '000000' ? '111111' : '000000';
    for (let i = 1; i < MAX_TRIES; i++) expect((await locked.driver.continue({ code: wrongCode })).status).toBe('paused');
    expect(await locked.driver.continue({ code: wrongCode })).toMatchObject({ status: 'failed', error: { type: 'Verification' } });
    record(locked.driver);

    vi.useFakeTimers({ toFake: ['Date'] });
    const late = setup();
    await late.driver.signIn('user-6');
    await late.driver.start({ phone: '+15550102034' });
    vi.setSystemTime(Date.now() + CODE_TTL_MS + 1);
    await late.driver.signIn('user-6'); // a fresh session: only the code is late
    expect(await late.driver.continue({ code: late.sent[0]!.code })).toMatchObject({ status: 'failed', error: { type: 'Verification' } });
    record(late.driver);
    vi.useRealTimers();

    const store = flakyStore();
    const flaky = setup({ store });
    await flaky.driver.signIn('user-7');
    await flaky.driver.start({ phone: '+15550102035' });
    store.down = true;
    // A store failure is reported as itself (an AdapterError, 503 over HTTP), never as a wrong code.
    expect(await flaky.driver.continue({ code: flaky.sent[0]!.code })).toMatchObject({ status: 'failed', error: { type: 'AdapterError' } });
    record(flaky.driver);
  });

  it('spends the code once: a replayed cookie finds it gone', async () => {
    const { driver, sent } = setup();
    await driver.signIn('user-8');
    await driver.start({ phone: '+15550102036' });
    const [first, second] = await Promise.all([driver.continue({ code: sent[0]!.code }), driver.continue({ code: sent[0]!.code })]);
    expect([first.status, second.status].sort()).toEqual(['failed', 'redirected']);
    record(driver);
  });

  it('reaches every state and transition of the machine', () => {
    const report = coverage.report();
    expect(report.states.missing, 'states').toEqual([]);
    expect(report.transitions.missing, 'transitions').toEqual([]);
  });
});

const pg = useMigratedPGlite();

describe('confirm-phone refuses a session that cannot act', () => {
  it('runs nothing for a session that ended elsewhere (database sessions: its row deleted)', async () => {
    const sent: Sent[] = [];
    const saved: { userId: string; phone: string }[] = [];
    const flow = ConfirmPhone({ send: (s) => void sent.push(s), save: (s) => void saved.push(s) });
    const driver = testFlow(flow, { adapter: pg.adapter, session: { strategy: 'database' } });
    const user = await pg.adapter.createUser!({ id: crypto.randomUUID(), email: `phone-${crypto.randomUUID()}@example.com`, emailVerified: null });
    await driver.signIn(user.id);
    expect(await driver.start({ phone: '+15550102043' })).toMatchObject({ status: 'paused' });
    // "Sign out everywhere" from another device: the session row is gone, the cookie is still in this browser.
    await pg.db.query('DELETE FROM sessions WHERE user_id = $1', [user.id]);
    expect(await driver.continue({ code: sent[0]!.code })).toMatchObject({ status: 'signedOut' });
    expect(saved).toEqual([]);
  });

  it('runs nothing for a browser nobody signed in', async () => {
    const { driver, sent } = setup();
    expect(await driver.start({ phone: '+15550102040' })).toMatchObject({ status: 'signedOut' });
    expect(sent).toEqual([]);
  });

  it('runs nothing for a session older than the flow\'s level (5 minutes), and goes on once it is fresh again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { driver, sent, saved } = setup();
    await driver.signIn('user-9');
    await driver.start({ phone: '+15550102041' });
    vi.setSystemTime(Date.now() + 6 * 60_000);
    expect(await driver.continue({ code: sent[0]!.code })).toMatchObject({ status: 'stale' });
    expect(saved).toEqual([]);
    expect(driver.paused).toBe(true);
    await driver.signIn('user-9');
    expect(await driver.continue({ code: sent[0]!.code })).toMatchObject({ status: 'redirected' });
    expect(saved).toHaveLength(1);
  });

  it('refuses a paused flow carried into another user\'s session', async () => {
    const { driver, sent, saved } = setup();
    await driver.signIn('user-10');
    await driver.start({ phone: '+15550102042' });
    await driver.signIn('user-11');
    expect(await driver.continue({ code: sent[0]!.code })).toMatchObject({ status: 'failed', error: { type: 'AccessDenied' } });
    expect(saved).toEqual([]);
  });
});

describe('confirm-phone over HTTP on two instances sharing Redis', () => {
  const prefix = `authchart:test:${runId()}:`;
  const clients: Redis[] = [];
  afterAll(async () => {
    const keys = clients[0] ? await clients[0].keys(`${prefix}*`) : [];
    if (keys.length) await clients[0]!.del(...keys);
    for (const c of clients) c.disconnect();
  });

  function instance(sent: Sent[], saved: { userId: string; phone: string }[]) {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    clients.push(redis);
    return testAuth({
      providers: [Credentials({ credentials: { email: { type: 'email' } }, authorize: ({ email }) => ({ id: `id:${String(email)}`, email: String(email) }) })],
      flowStore: redisFlowStore(redis, { prefix }),
      flows: [ConfirmPhone({ send: (s) => void sent.push(s), save: (s) => void saved.push(s) })],
    });
  }

  it('starts on one instance and confirms on the other; the session is verified anew; a replay is refused', async () => {
    const sent: Sent[] = [];
    const saved: { userId: string; phone: string }[] = [];
    const a = instance(sent, saved);
    const b = instance(sent, saved);
    let to = a;
    const browser = createClient({ fetch: (r) => to.handle(r), baseUrl: ORIGIN });
    const csrf = async () => ((await (await browser.get('/auth/csrf')).json()) as { csrfToken: string }).csrfToken;
    expect((await browser.post('/auth/callback/credentials', { csrfToken: await csrf(), email: 'ada@example.com' })).status).toBe(302);

    const started = await browser.post('/auth/flows/confirm-phone/start', { csrfToken: await csrf(), phone: '+15550102050' });
    expect(started.status).toBe(200);
    expect(await started.text()).toContain('action="http://localhost:3000/auth/flows/confirm-phone"');
    const paused = browser.cookies.get('authchart.flow-signed-in.confirm-phone', ORIGIN);
    expect(paused).toBeTruthy();

    to = b;
    const confirmed = await browser.post('/auth/flows/confirm-phone', { csrfToken: await csrf(), code: sent[0]!.code });
    expect(confirmed.status).toBe(302);
    expect(confirmed.headers.get('location')).toBe(`${ORIGIN}/`);
    expect(saved).toEqual([{ userId: 'id:ada@example.com', phone: '+15550102050' }]);
    const session = (await (await browser.get('/auth/session')).json()) as { user?: { email?: string } };
    expect(session.user?.email).toBe('ada@example.com');

    // The same cookie again, on the first instance: the code's entry in Redis is gone.
    to = a;
    browser.cookies.set('authchart.flow-signed-in.confirm-phone', paused!, ORIGIN);
    const replay = await browser.post('/auth/flows/confirm-phone', { csrfToken: await csrf(), code: sent[0]!.code });
    expect(replay.status).toBe(302);
    expect(replay.headers.get('location')).toContain('error=Verification');
    expect(saved).toHaveLength(1);
  });

  it('answers a signed-out browser with the sign-in page (or 401 for JSON), a forged POST with no CSRF token with nothing run', async () => {
    const sent: Sent[] = [];
    const a = instance(sent, []);
    const browser = a.newClient();
    const page = await browser.post('/auth/flows/confirm-phone/start', { csrfToken: await a.csrfToken(browser), phone: '+15550102051' });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toContain('/auth/signin?callbackUrl=');
    const api = await browser.post('/auth/flows/confirm-phone/start', { csrfToken: await a.csrfToken(browser), phone: '+15550102051' }, { headers: { accept: 'application/json' } });
    expect(api.status).toBe(401);
    const forged = await browser.post('/auth/flows/confirm-phone/start', { phone: '+15550102051' });
    expect(forged.status).toBeGreaterThanOrEqual(300);
    expect(forged.status).toBeLessThan(500);
    expect(sent).toEqual([]);
    const unknown = await browser.post('/auth/flows/no-such-flow/start', { csrfToken: await a.csrfToken(browser) });
    expect(unknown.status).toBeLessThan(500);
  });
});
