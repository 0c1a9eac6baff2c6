// Model-based tests of the change of password: paths generated from `changePasswordMachine`, each played over HTTP,
// request by request, by a user signed in with a password, against PostgreSQL on PGlite, with the database, the flow
// store, the hasher or the notice failing where the path says so. Each request's logged trace must be the path's
// segment for that request, and together they feed coverage.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { Adapter } from '../../../src/core/adapter.js';
import { memoryFlowStore, type FlowStore } from '../../../src/core/flow-store/store.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { CHANGE_PASSWORD_TTL_MS, changePasswordMachine } from '../../../src/flows/password/change-machine.js';
import { argon2id, hashNewPassword, Password, type PasswordHasher } from '../../../src/providers/password/index.js';
import { ORIGIN, testAuth, type TestAuth } from '../../support/auth-app.js';
import type { ClientResponse } from '../../support/client.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { signedInWithPassword } from '../../support/password-user.js';
import { useMigratedPGlite } from '../../support/pglite.js';
import { done, failed, playedToPause, requestsOf, type Labelled } from '../../support/model-events.js';
import { faultyAdapter as faultsInto } from '../../support/faults.js';

const OLD = 'old horse battery staple';
const NEW = 'new horse battery staple';

const events: Labelled[] = [
  { type: 'START', branch: 'the form' },
  { type: 'SUBMIT', branch: 'a form', current: 'c', next: 'n' },
  done('loadHash', 'a password', 'h'),
  done('loadHash', 'no password', null),
  failed('loadHash', 'the database is down'),
  done('checkCurrent', 'the right password', { result: 'match', hash: 'h' }),
  done('checkCurrent', 'no password yet', { result: 'none', hash: null }),
  done('checkCurrent', 'a wrong password', { result: 'wrong' }),
  done('checkCurrent', 'too many wrong ones', { result: 'limited' }),
  failed('checkCurrent', 'the database is down'),
  done('hashNew', 'a good new password', { hash: 'h2' }),
  done('hashNew', 'a new password too short', { problem: 'too_short' }),
  failed('hashNew', 'the hasher fails'),
  done('storeHash', 'stored', true),
  done('storeHash', 'another change won', false),
  failed('storeHash', 'the database is down while storing'),
  done('notifyChanged', 'notified', undefined),
  failed('notifyChanged', 'the notice fails past its own catch'),
];

const modelInput = (startedAt: number) => ({
  deps: { req: { authUrl: `${ORIGIN}/auth`, config: { logger: { error: () => {} } } } } as never,
  callbackUrl: `${ORIGIN}/account`,
  flowId: 'change-password',
  userId: 'u',
  startedAt,
});
const generate = (startedAt: number) =>
  modelPaths(changePasswordMachine, { events: () => events, input: modelInput(startedAt), stateKey: (snapshot) => JSON.stringify(snapshot.value) });
const TOO_LATE: Labelled = { type: 'SUBMIT', branch: 'a form answered too late', current: 'c', next: 'n' };
// The expiry guard reads the clock, and so does the flow cookie, which lasts as long as the form: a form is answered
// too late only after a refused answer resealed the cookie. That path is spelled out; the others are generated.
const late: ModelPath = { ...generate(0).find((p) => p.finalState === 'failed.verification')!, finalState: 'failed.verification' };
late.events = [events[0]!, events[2]!, events[1]!, events[7]!, TOO_LATE];
late.description = 'reaches failed.verification: START → done: loadHash → SUBMIT → done: checkCurrent → SUBMIT too late';
// A path cut while an actor runs (its continuations are on other paths) is played on with an outcome that pauses.
const paths: ModelPath[] = playedToPause([...generate(Date.now() + 86_400_000), late], { loading: events[2], checkingCurrent: events[7], hashing: events[11], storing: events[14], notifying: events[16] });

const pg = useMigratedPGlite();
const memory = memoryFlowStore();
let limited = false;
// Not 'memory': a shared store, as in production; the wrong-password counter reads as spent when the path says so.
const flowStore: FlowStore = {
  kind: 'shared',
  set: (key, value, ttl) => memory.set(key, value, ttl),
  get: async (key) => (limited && key.includes(':wrong:') ? (99 as never) : memory.get(key)),
  take: (key) => memory.take(key),
  add: (key, value, ttl) => memory.add(key, value, ttl),
  increment: (key, ttl) => memory.increment(key, ttl),
};
const faults = new Set<string>();
let raced = false;
// Another change lands between the check and the write: the write over the checked hash finds another.
const faultyAdapter = (): Adapter =>
  faultsInto(pg.adapter, faults, async (name, args, call) => {
    if (name === 'setPasswordHash' && raced) await call(args[0], await hashNewPassword('someone else was faster', { hasher }));
  });

const argon = argon2id({ memoryCost: 1024, timeCost: 1 });
let hasherDown = false;
const hasher: PasswordHasher = {
  ...argon,
  hash: (password) => (hasherDown ? Promise.reject(new Error('the hasher fails (injected)')) : argon.hash(password)),
  verify: (hash, password) => argon.verify(hash, password),
  recognizes: (hash) => argon.recognizes(hash),
  needsRehash: (hash) => argon.needsRehash(hash),
};
let noticeFails = false;
const coverage = createCoverage(changePasswordMachine);
afterAll(() => console.log(`flow coverage: ${coverage.format()}`));
afterEach(() => vi.useRealTimers());

/** Plays one path: each request set up so the real flow takes the branches its segment names. */
async function play(path: ModelPath) {
  const t: TestAuth = testAuth({
    providers: [Password({ hasher, change: { maxAge: 86_400, notify: async () => {
      // The notice's own failures are logged and swallowed; only one that throws again as it is read fails the step.
      if (noticeFails) throw Object.defineProperty(new Error(), 'message', { get: () => { throw new Error('notice down (injected)'); } });
    } } })],
    adapter: faultyAdapter(),
    flowStore,
    session: { strategy: 'database' },
    throttle: { enabled: false },
    activity: {},
  });
  const { id, csrfToken } = await signedInWithPassword(t, pg.adapter, OLD, hasher);
  const traces: TraceEntry[][] = [];
  const started = Date.now();
  let last: ClientResponse | undefined;
  for (const segment of requestsOf(path)) {
    const [event, ...outcomes] = segment;
    const has = (b: string) => outcomes.some((o) => o.branch === b);
    // The stored password as the path needs it: none, or the old one.
    if (has('no password') || has('no password yet')) await pg.db.query('DELETE FROM passwords WHERE user_id = $1', [id]);
    else if (has('a password') || has('the right password') || has('a wrong password') || has('too many wrong ones')) await pg.adapter.setPasswordHash(id, await hashNewPassword(OLD, { hasher }));
    limited = has('too many wrong ones');
    hasherDown = has('the hasher fails');
    raced = has('another change won');
    noticeFails = has('the notice fails past its own catch');
    if (has('the database is down')) faults.add('getPasswordHash');
    if (has('the database is down while storing')) faults.add('setPasswordHash');
    // The late path's clock: a refused answer 10 minutes in (which reseals the cookie), the last one past the form's time.
    if (path === late) vi.useFakeTimers({ toFake: ['Date'], now: started + [0, 10 * 60_000, CHANGE_PASSWORD_TTL_MS + 60_000][traces.length]! });
    const before = t.logger.debugs.length;
    try {
      last = event!.type === 'START'
        ? await t.client.post('/auth/flows/change-password/start', { csrfToken, callbackUrl: `${ORIGIN}/account` })
        : await t.client.post('/auth/flows/change-password', { csrfToken, current: has('a wrong password') ? 'not my password' : OLD, next: has('a new password too short') ? 'short' : NEW });
    } finally {
      vi.useRealTimers();
      faults.clear();
      limited = hasherDown = raced = noticeFails = false;
    }
    const logged = t.logger.debugs.slice(before).filter((d) => d.message.startsWith('flow change-password '));
    expect(logged, `one trace for ${event!.type}`).toHaveLength(1);
    traces.push(((logged[0]!.metadata as { trace: TraceEntry[] }).trace).filter((e) => e.machine === undefined));
  }
  return { traces, last: last!, id };
}

describe('change of password, the model', () => {
  it('has a path to every end and through every outcome', () => {
    expect([...new Set(paths.map((p) => p.finalState))].filter((s) => s === 'changed' || s.startsWith('failed.')).sort()).toEqual(['changed', 'failed.callbackRoute', 'failed.verification']);
    expect([...new Set(paths.flatMap((p) => (p.events as Labelled[]).map((e) => e.branch)))].sort()).toEqual([...new Set([...events, TOO_LATE].map((e) => e.branch))].sort());
  });

  it.each(paths.map((p) => [p.description, p] as const))('%s', async (_name, path) => {
    const run = await play(path);
    const segments = requestsOf(path);
    for (const [i, trace] of run.traces.entries()) {
      coverage.record(trace);
      // The real flow took the model's path, request by request.
      expect(trace.map((e) => e.event), `request ${i + 1}`).toEqual(segments[i]!.map((e) => e.type));
    }
    const hash = await pg.adapter.getPasswordHash(run.id);
    const changed = path.finalState === 'changed' || path.finalState === 'notifying+';
    // The activity log: a changed password leaves one record of it, from this machine, then the end of the other
    // sessions (none here, so a count of 0); anything else leaves none.
    const records = (await pg.db.query<{ kind: string; machine: string | null; method: string | null; reason: string | null }>("SELECT kind, machine, method, reason FROM activity WHERE user_id = $1 AND kind <> 'signIn.succeeded' ORDER BY at, id", [run.id])).rows;
    expect(records).toEqual(changed ? [{ kind: 'password.changed', machine: 'change-password', method: 'password', reason: null }, { kind: 'session.ended', machine: null, method: null, reason: 'othersRevoked' }] : []);
    if (changed) {
      expect(await hasher.verify(hash!, NEW)).toBe(true);
      expect(run.last.status).toBe(302);
      expect(run.last.headers.get('location')).toBe(`${ORIGIN}/account`);
    } else if (path.finalState.startsWith('failed.')) {
      expect(hash === null || !(await hasher.verify(hash, NEW))).toBe(true);
      expect(run.last.status).toBe(302);
      expect(new URL(run.last.headers.get('location')!).pathname).toBe('/auth/error');
    } else {
      expect([200, 400]).toContain(run.last.status);
    }
  });
});

describe('change of password coverage', () => {
  it('took every state and every transition of the machine', () => {
    coverage.assertComplete();
  });
});
