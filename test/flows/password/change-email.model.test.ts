// Model-based tests of the change of e-mail address: paths generated from `changeEmailMachine`, each played over
// HTTP, request by request, by a user signed in with a password, against PostgreSQL on PGlite and a real SMTP server,
// with the database or the flow store failing, the code's tries spent, or the address taken meanwhile where the path
// says so. Each request's logged trace must be the path's segment for that request, and together they feed coverage.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Adapter } from '../../../src/core/adapter.js';
import { memoryFlowStore, type FlowStore } from '../../../src/core/flow-store/store.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { CHANGE_EMAIL_TTL_MS, changeEmailMachine } from '../../../src/flows/password/change-email-machine.js';
import { Email } from '../../../src/providers/email.js';
import { argon2id, Password } from '../../../src/providers/password/index.js';
import { ORIGIN, testAuth, type TestAuth } from '../../support/auth-app.js';
import type { ClientResponse } from '../../support/client.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { signedInWithPassword } from '../../support/password-user.js';
import { useMigratedPGlite } from '../../support/pglite.js';
import { startSmtpServer, type SmtpHarness } from '../../e2e/peers/smtp.js';
import { done, failed, playedToPause, requestsOf, type Labelled } from '../../support/model-events.js';
import { faultyAdapter as faultsInto } from '../../support/faults.js';

const PASSWORD = 'correct horse battery staple';
const events: Labelled[] = [
  { type: 'START', branch: 'the form' },
  { type: 'SUBMIT_ADDRESS', branch: 'an address', email: 'x' },
  { type: 'SUBMIT_CODE', branch: 'a code', code: '1' },
  done('requestAddressChange', 'not an address', { problem: 'invalid' }),
  done('requestAddressChange', 'the same address', { problem: 'same' }),
  done('requestAddressChange', 'a code sent', { tokenHash: 'h', email: 'x' }),
  failed('requestAddressChange', 'the database is down'),
  done('checkAddressCode', 'the right code', { result: 'passed', email: 'x' }),
  done('checkAddressCode', 'a wrong code', { result: 'wrong', left: 4 }),
  done('checkAddressCode', 'a dead code', { result: 'dead' }),
  failed('checkAddressCode', 'the flow store is down'),
  done('prepareAddressChange', 'prepared', { applied: true }),
  done('prepareAddressChange', 'taken meanwhile', { taken: true }),
  failed('prepareAddressChange', 'the database is down while preparing'),
];
const byBranch = (branch: string) => events.find((e) => e.branch === branch)!;

const modelInput = (startedAt: number) => ({ deps: {} as never, callbackUrl: `${ORIGIN}/account`, flowId: 'change-email', userId: 'u', startedAt });
const generated = modelPaths(changeEmailMachine, { events: () => events, input: modelInput(Date.now() + 86_400_000), stateKey: (snapshot) => JSON.stringify(snapshot.value) });
// The expiry guard reads the clock, and so does the flow cookie, which lasts as long as the flow: an answer comes too
// late only after an earlier answer resealed the cookie. Those two paths are spelled out; the others are generated.
const TOO_LATE_ADDRESS: Labelled = { type: 'SUBMIT_ADDRESS', branch: 'an address too late', email: 'x' };
const TOO_LATE_CODE: Labelled = { type: 'SUBMIT_CODE', branch: 'a code too late', code: '1' };
const lateAddress: ModelPath = { description: 'reaches failed.verification: START → SUBMIT_ADDRESS → not an address → SUBMIT_ADDRESS too late', finalState: 'failed.verification', events: [events[0]!, events[1]!, byBranch('not an address'), TOO_LATE_ADDRESS] };
const lateCode: ModelPath = { description: 'reaches failed.verification: START → SUBMIT_ADDRESS → a code sent → SUBMIT_CODE too late', finalState: 'failed.verification', events: [events[0]!, events[1]!, byBranch('a code sent'), TOO_LATE_CODE] };
const late = new Set([lateAddress, lateCode]);
// A path cut while an actor runs (its continuations are on other paths) is played on with an outcome that pauses.
const paths: ModelPath[] = playedToPause([...generated, lateAddress, lateCode], { requesting: byBranch('not an address'), checkingCode: byBranch('a wrong code'), preparing: byBranch('taken meanwhile') });

const pg = useMigratedPGlite();
let smtp: SmtpHarness;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp?.stop();
  console.log(`flow coverage: ${coverage.format()}`);
});
afterEach(() => vi.useRealTimers());

const memory = memoryFlowStore();
let triesSpent = false;
let storeDown = false;
const flowStore: FlowStore = {
  kind: 'shared',
  set: (key, value, ttl) => memory.set(key, value, ttl),
  get: (key) => memory.get(key),
  take: (key) => memory.take(key),
  add: (key, value, ttl) => memory.add(key, value, ttl),
  increment: async (key, ttl) => {
    if (storeDown && key.includes(':tries:')) throw new Error('flow store down (injected)');
    return triesSpent && key.includes(':tries:') ? 99 : memory.increment(key, ttl);
  },
};
const faults = new Set<string>();
const faultyAdapter = (): Adapter => faultsInto(pg.adapter, faults);

const hasher = argon2id({ memoryCost: 1024, timeCost: 1 });
const coverage = createCoverage(changeEmailMachine);

async function play(path: ModelPath) {
  const t: TestAuth = testAuth({
    providers: [Password({ hasher, change: { maxAge: 86_400 } }), Email({ server: { host: smtp.host, port: smtp.port, secure: false, ignoreTLS: true }, from: 'tests <no-reply@example.test>' })],
    adapter: faultyAdapter(),
    flowStore,
    session: { strategy: 'database' },
    throttle: { enabled: false },
    activity: {},
  });
  const fresh = `new-${randomUUID()}@example.test`;
  const { id, email, csrfToken } = await signedInWithPassword(t, pg.adapter, PASSWORD, hasher);
  const traces: TraceEntry[][] = [];
  const started = Date.now();
  let last: ClientResponse | undefined;
  let code = '000000';
  for (const segment of requestsOf(path)) {
    const [event, ...outcomes] = segment;
    const has = (b: string) => outcomes.some((o) => o.branch === b);
    if (has('the database is down')) faults.add('getUserByEmail');
    if (has('the database is down while preparing')) faults.add('getUserByEmail');
    if (has('taken meanwhile')) await pg.adapter.createUser({ id: randomUUID(), email: fresh, emailVerified: new Date() });
    triesSpent = has('a dead code');
    storeDown = has('the flow store is down');
    if (late.has(path)) vi.useFakeTimers({ toFake: ['Date'], now: started + [0, 10 * 60_000, CHANGE_EMAIL_TTL_MS + 60_000][traces.length]! });
    const before = t.logger.debugs.length;
    try {
      if (event!.type === 'START') last = await t.client.post('/auth/flows/change-email/start', { csrfToken, callbackUrl: `${ORIGIN}/account` });
      else if (event!.type === 'SUBMIT_ADDRESS') {
        const typed = has('not an address') ? 'not an address' : has('the same address') ? email : fresh;
        last = await t.client.post('/auth/flows/change-email', { csrfToken, email: typed });
        if (has('a code sent')) {
          const found = /\n(\d{6})\r?\n/.exec((await smtp.waitForMessage(fresh)).text);
          code = found![1]!;
        }
      } else {
        const typed = has('the right code') ? code : code === '000000' ? '111111' : '000000';
        last = await t.client.post('/auth/flows/change-email', { csrfToken, code: typed });
      }
    } finally {
      vi.useRealTimers();
      faults.clear();
      triesSpent = storeDown = false;
    }
    const logged = t.logger.debugs.slice(before).filter((d) => d.message.startsWith('flow change-email '));
    expect(logged, `one trace for ${event!.type}`).toHaveLength(1);
    traces.push(((logged[0]!.metadata as { trace: TraceEntry[] }).trace).filter((e) => e.machine === undefined));
  }
  return { traces, last: last!, id, email, fresh };
}

describe('change of e-mail address, the model', () => {
  it('has a path to every end and through every outcome', () => {
    expect([...new Set(paths.map((p) => p.finalState))].filter((s) => s === 'changed' || s.startsWith('failed.')).sort()).toEqual(['changed', 'failed.callbackRoute', 'failed.verification']);
    expect([...new Set(paths.flatMap((p) => (p.events as Labelled[]).map((e) => e.branch)))].sort()).toEqual([...new Set([...events, TOO_LATE_ADDRESS, TOO_LATE_CODE].map((e) => e.branch))].sort());
  });

  it.each(paths.map((p) => [p.description, p] as const))('%s', async (_name, path) => {
    const run = await play(path);
    const segments = requestsOf(path);
    for (const [i, trace] of run.traces.entries()) {
      coverage.record(trace);
      expect(trace.map((e) => e.event), `request ${i + 1}`).toEqual(segments[i]!.map((e) => e.type));
    }
    const user = await pg.adapter.getUser(run.id);
    // The activity log: a changed address leaves one record of it, from this machine; anything else leaves none.
    const records = (await pg.db.query<{ kind: string; machine: string | null; method: string | null }>("SELECT kind, machine, method FROM activity WHERE user_id = $1 AND kind <> 'signIn.succeeded' ORDER BY at, id", [run.id])).rows;
    expect(records).toEqual(path.finalState === 'changed' ? [{ kind: 'email.changed', machine: 'change-email', method: 'email' }] : []);
    if (path.finalState === 'changed') {
      expect(user?.email).toBe(run.fresh);
      expect(run.last.status).toBe(302);
      expect(run.last.headers.get('location')).toBe(`${ORIGIN}/account`);
    } else {
      // Anything else leaves the address as it was.
      expect(user?.email).toBe(run.email);
      if (path.finalState.startsWith('failed.')) expect(new URL(run.last.headers.get('location')!).pathname).toBe('/auth/error');
      else expect([200, 400]).toContain(run.last.status);
    }
  });
});

describe('change of e-mail address coverage', () => {
  it('took every state and every transition of the machine', () => {
    coverage.assertComplete();
  });
});
