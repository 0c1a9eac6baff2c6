// The device-approval example (examples/device-approval) on two instances that share a Redis flow store and one
// database: browser A starts on instance 1, a signed-in browser B approves the code on instance 2, A goes on (on
// either) and is signed in as B's user. Driven in process with testFlow; every state and transition is reached.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { redisFlowStore, type FlowStore } from 'authchart';
import { testFlow, type FlowDriver, type TestFlowResult } from 'authchart/flow';
import { createCoverage } from 'authchart/devtools';
import { APPROVAL_TTL_S, DeviceApproval, deviceMachine, type PendingApproval } from '../../examples/device-approval/machine.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { REDIS_URL, useSharedStores } from '../support/shared-stores.js';

const SECRET = 'device-approval-test-secret-0123456789abcdef';
const pg = useMigratedPGlite();
const stores = useSharedStores();
const coverage = createCoverage(deviceMachine);
let down = false;

/** The store of one instance: the shared Redis one, which a test can take down. */
async function instanceStore(): Promise<FlowStore> {
  const real = redisFlowStore(await stores.redis(), { prefix: stores.redisPrefix });
  const guard = <T>(f: () => Promise<T>) => (down ? Promise.reject(new Error('store unreachable')) : f());
  return { kind: 'redis', set: (k, v, t) => guard(() => real.set(k, v, t)), get: (k) => guard(() => real.get(k)), take: (k) => guard(() => real.take(k)), add: (k, v, t) => guard(() => real.add(k, v, t)), increment: (k, t) => guard(() => real.increment(k, t)) };
}

async function instances(): Promise<[FlowDriver, FlowDriver]> {
  const make = async () => testFlow(DeviceApproval(), { secret: SECRET, adapter: pg.adapter, session: { strategy: 'jwt' }, flowStore: await instanceStore() });
  return [await make(), await make()];
}
const step = async (run: Promise<TestFlowResult>) => {
  const r = await run;
  coverage.record(r.trace);
  return r;
};
const codeOf = (r: TestFlowResult) => (r.status === 'paused' && r.response.kind === 'page' && r.response.page === 'form' ? /enter ([A-Z]{8})/.exec(String(r.response.data.message ?? ''))![1] : '');
const typeOf = (r: TestFlowResult) => (r.status === 'failed' ? r.error.type : r.status);

async function signedIn(driver: FlowDriver, userId: string): Promise<FlowDriver> {
  const b = driver.browser();
  await b.signInAs(userId);
  return b;
}

afterEach(() => {
  vi.useRealTimers();
  down = false;
});

describe('device approval on two instances', () => {
  it('A shows a code on instance 1, B approves it on instance 2, A is signed in as B on instance 2', async () => {
    const [one, two] = await instances();
    const user = await pg.adapter.createUser({ id: 'dev-ada', email: 'dev-ada@example.test', emailVerified: null });
    const a = one.browser();
    const shown = await step(a.signIn());
    const code = codeOf(shown);
    expect(code).toMatch(/^[A-Z]{8}$/);
    // Not approved yet: A keeps waiting.
    const early = await step(a.callback({ action: 'check' }));
    expect(early).toMatchObject({ status: 'paused', response: { data: { error: 'Not approved yet.' } } });
    const b = await signedIn(two, user.id);
    expect(await step(b.callback({ action: 'approve', code: code.toLowerCase() }))).toMatchObject({ status: 'redirected' });
    // A's paused flow, carried to instance 2 as its cookie would be: the same browser state on another instance.
    const done = await step(a.callback({ action: 'check' }));
    expect(done).toMatchObject({ status: 'signedIn', userId: 'dev-ada', isNewUser: false });
  });

  it('refuses a signed-out approver, an unknown code, a second approval, a stale check, a foreign entry and a down store', async () => {
    const [one, two] = await instances();
    await pg.adapter.createUser({ id: 'dev-bob', email: 'dev-bob@example.test', emailVerified: null });
    const b = await signedIn(two, 'dev-bob');
    expect(typeOf(await step(two.browser().callback({ action: 'approve', code: 'BCDFGHJK' })))).toBe('AccessDenied');
    expect(typeOf(await step(b.callback({ action: 'approve', code: 'ZZZZZZZZ' })))).toBe('Verification');
    expect(typeOf(await step(b.callback({ action: 'approve', code: '<script>' })))).toBe('Verification');
    // A check from a browser with no paused flow.
    expect(typeOf(await step(one.browser().callback({ action: 'check' })))).toBe('Verification');

    // Approved once only; the code is spent once A has signed in.
    const a = one.browser();
    const code = codeOf(await step(a.signIn()));
    await step(b.callback({ action: 'approve', code }));
    expect(typeOf(await step(b.callback({ action: 'approve', code })))).toBe('Verification');
    expect((await step(a.callback({ action: 'check' }))).status).toBe('signedIn');

    // Someone who knows only the code wrote their own entry (their nonce): A's check finds no approval of its own.
    const c = one.browser();
    const cCode = codeOf(await step(c.signIn()));
    const forged: PendingApproval = { nonceHash: 'not-c-nonce', approvedBy: 'dev-bob', expiresAt: Date.now() + 60_000 };
    await c.config.flowStore.set(`flow:device:pending:${cCode}`, JSON.stringify(forged), 60);
    expect(typeOf(await step(c.callback({ action: 'check' })))).toBe('Verification');

    // Expired: 11 minutes later the check is refused before anything is read.
    vi.useFakeTimers({ toFake: ['Date'] });
    const late = one.browser();
    await step(late.signIn());
    vi.setSystemTime(Date.now() + (APPROVAL_TTL_S + 60) * 1000);
    expect(typeOf(await step(late.callback({ action: 'check' })))).toBe('Verification');
    vi.useRealTimers();

    // The store is down: typed failures, never a crash.
    const d = one.browser();
    await step(d.signIn());
    down = true;
    expect(typeOf(await step(d.callback({ action: 'check' })))).toBe('AdapterError');
    expect(typeOf(await step(one.browser().signIn()))).toBe('AdapterError');
    expect(typeOf(await step(b.callback({ action: 'approve', code: 'BCDFGHJK' })))).toBe('AdapterError');
  });

  it('signs A in once: a check after it finds no waiting sign-in, and the approval is gone from the shared store', async () => {
    const [one, two] = await instances();
    await pg.adapter.createUser({ id: 'dev-cy', email: 'dev-cy@example.test', emailVerified: null });
    const a = one.browser();
    const code = codeOf(await step(a.signIn()));
    await step((await signedIn(two, 'dev-cy')).callback({ action: 'approve', code }));
    expect((await step(a.callback({ action: 'check' }))).status).toBe('signedIn');
    expect(typeOf(await step(a.callback({ action: 'check' })))).toBe('Verification');
    expect(await two.config.flowStore.get(`flow:device:pending:${code}`)).toBeNull();
  });

  it('reaches every state and transition of the machine', () => {
    expect(coverage.report().states.missing, 'states').toEqual([]);
    expect(coverage.report().transitions.missing, 'transitions').toEqual([]);
  });
});
