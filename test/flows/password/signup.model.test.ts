// Model-based tests of the Password provider's sign-up: paths generated from `signUpMachine` for both ways of creating
// accounts, each played over HTTP, request by request, against the real flow on PostgreSQL (PGlite) with the activity
// log on; each request's world is set up so the flow takes the branches its segment names (the database, the flow
// store, the mail server or the breached service failing; an address proven meanwhile; a second tab inside the
// cooldown; time moved past the sign-up's age). Each request's logged trace must be the path's segment for it, and
// together they take every state and every transition. After each path, the activity log of the address's user holds
// exactly the records of what happened: a new account's sign-up and sign-in, a sign-in, or nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Adapter } from '../../../src/core/adapter.js';
import { memoryFlowStore } from '../../../src/core/flow-store/store.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { signUpMachine } from '../../../src/flows/password/signup-machine.js';
import { argon2id, Password, type SignUpMail } from '../../../src/providers/password/index.js';
import { ORIGIN, testAuth, type TestAuth } from '../../support/auth-app.js';
import type { ClientResponse, TestClient } from '../../support/client.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { useMigratedPGlite } from '../../support/pglite.js';
import { done, failed, requestsOf, type Labelled } from '../../support/model-events.js';
import { faultyAdapter as faultsInto, guardedFlowStore } from '../../support/faults.js';

type Mode = 'after-verification' | 'at-once';
const FUTURE = 4_000_000_000_000;
const PAST = 1;
const user = { id: 'u1', email: 'ada@example.test', emailVerified: null };
const entry = { email: 'ada@example.test', hash: '$h', code: 'c', expires: FUTURE };

const events: Labelled[] = [
  { type: 'SUBMIT', branch: 'the sign-up form', email: 'ada@example.test', password: 'p', name: 'Ada' },
  { type: 'CODE', branch: 'a code', code: '123456' },
  { type: 'RESEND', branch: 'send a new mail' },
  { type: 'LINK', branch: 'a link', token: 't' },
  done('prepareSignUp', 'a password too short', { ok: false, field: 'password', problem: 'too_short' }),
  done('prepareSignUp', 'an address that is none', { ok: false, field: 'email' }),
  done('prepareSignUp', 'a good form', { ok: true, email: 'ada@example.test', hash: '$h' }),
  failed('prepareSignUp', 'the breached service is down'),
  done('startSignUp', 'the proof mailed', { tokenHash: 't1', expires: FUTURE }),
  done('startSignUp', 'the proof mailed, since expired', { tokenHash: 't0', expires: PAST }),
  failed('startSignUp', 'the mail server refuses'),
  done('createAtOnce', 'an account made at once', { user, tokenHash: 't2', expires: FUTURE }),
  done('createAtOnce', 'an address with an account', { user: null, tokenHash: 't3', expires: FUTURE }),
  failed('createAtOnce', 'the database is down'),
  failed('createAtOnce', 'the mail server refuses after the account is made'),
  done('checkSignUpCode', 'the right code', { result: 'passed', entry }),
  done('checkSignUpCode', 'a wrong code', { result: 'wrong', left: 4 }),
  done('checkSignUpCode', 'a dead code', { result: 'dead' }),
  failed('checkSignUpCode', 'the store is down'),
  done('resendSignUp', 'a new mail', { tokenHash: 't4', expires: FUTURE }),
  done('resendSignUp', 'too soon for a new mail', 'cooling'),
  done('resendSignUp', 'nothing left to resend', 'dead'),
  failed('resendSignUp', 'the mail server refuses again'),
  done('takeSignUpLink', 'a live link', entry),
  done('takeSignUpLink', 'a spent link', null),
  failed('takeSignUpLink', 'the store is down for the link'),
  done('createAccount', 'the account made', { user, created: true }),
  failed('createAccount', 'the address was proven meanwhile', Object.assign(new Error('taken'), { type: 'Verification' })),
  failed('createAccount', 'the database is down at the end'),
];

const modelInput = (createAccount: Mode) => ({
  deps: { provider: { id: 'password', password: { signUp: { createAccount, maxAge: 900, maxAttempts: 5, resendCooldown: 60, minLength: 8 } } } },
  callbackUrl: `${ORIGIN}/`,
  providerId: 'password',
  startedAt: 0,
});
// Snapshots are told apart by what the guards read (the value and whether the sign-up has expired).
const stateKey = (s: { value: unknown; context: { expires?: number } }) => JSON.stringify([s.value, s.context.expires ?? null]);
const pathsOf = (mode: Mode) => modelPaths(signUpMachine, { events: () => events, input: modelInput(mode), stateKey: stateKey as never });
const branchesOf = (path: ModelPath) => (path.events as Labelled[]).map((e) => e.branch);

const pg = useMigratedPGlite();
const memory = memoryFlowStore();
let storeDown = false;
let forget = false;
const guard = async <T>(key: string, run: () => Promise<T>): Promise<T> => {
  if (storeDown) throw Object.assign(new Error('connect ECONNREFUSED (injected)'), { code: 'ECONNREFUSED' });
  // The pending sign-up is gone (spent or expired) just before the flow reads it.
  if (forget && /:pending:[0-9a-f]+$/.test(key)) await memory.take(key);
  return run();
};
const flowStore = guardedFlowStore(memory, guard);
const faults = new Set<string>();
const faultyAdapter = (): Adapter => faultsInto(pg.adapter, faults);

const hasher = argon2id({ memoryCost: 1024, timeCost: 1 });
const outbox: SignUpMail[] = [];
let mailDown = false;
let breachedDown = false;
const coverage = createCoverage(signUpMachine);
afterAll(() => console.log(`flow coverage: ${coverage.format()}`));

type Verify = Extract<SignUpMail, { kind: 'verify' }>;
const verifyMailTo = (email: string, since: number) => outbox.slice(since).findLast((m): m is Verify => m.kind === 'verify' && m.to === email);

async function post(t: TestAuth, client: TestClient, fields: Record<string, string>): Promise<ClientResponse> {
  return client.post(`${ORIGIN}/auth/signup/password`, { csrfToken: await t.csrfToken(client), ...fields });
}

const kinds = (...k: string[]) => k.map((kind) => ({ kind, machine: 'password-signup', method: 'credentials' }));
// What the runtime writes for a sign-up that made an account and signed it in, and for a sign-in alone.
const NEW_ACCOUNT = kinds('signUp.completed', 'signIn.succeeded');
// The proof of an account made at once by someone else's sign-up (outside the browser signed in as it): the account
// is taken over, its password dropped and its sessions ended, then signed in.
const TAKEN_OVER = [
  { kind: 'password.changed', machine: 'password-signup', method: 'password' },
  { kind: 'session.ended', machine: 'password-signup', method: null },
  ...kinds('signIn.succeeded'),
];

const byKind = <T extends { kind: string }>(records: T[]) => [...records].sort((a, b) => a.kind.localeCompare(b.kind));

/** Where a failed sign-up sends the browser: an outage is one; an app's callback that throws (the mail, the breached
 * lookup) is its configuration's; a mail that could not go is the sign-in page's; a dead or taken proof a Verification. */
function errorPage(state: string, branches: string[]): string {
  if (state === 'failed.emailSignIn') return `${ORIGIN}/auth/signin?error=EmailSignInError`;
  if (state !== 'failed.callbackRoute') return `${ORIGIN}/auth/error?error=Verification`;
  const callback = branches.some((b) => b.startsWith('the mail server') || b.startsWith('the breached'));
  return `${ORIGIN}/auth/error?error=${callback ? 'Configuration' : 'ServiceUnavailable'}`;
}

/** Plays one path: each request set up so the real flow takes the branches its segment names. */
async function play(path: ModelPath, mode: Mode) {
  const t = testAuth({
    providers: [Password({ hasher, breached: async () => (breachedDown ? Promise.reject(new Error('breached service down (injected)')) : false), signUp: { createAccount: mode, maxAge: 60, send: (m) => (mailDown ? Promise.reject(new Error('550 refused (injected)')) : void outbox.push(m)) } })],
    adapter: faultyAdapter(),
    flowStore,
    session: { strategy: 'database' },
    throttle: { enabled: false },
    activity: {},
  });
  const email = `ada-${randomUUID()}@example.test`;
  /** A sign-up of this address in another browser (its run is not this path's); made at once, it makes the account. */
  const signUpElsewhere = async () => {
    const since = outbox.length;
    await post(t, t.newClient(), { email, password: 'another horse battery staple', name: 'Sam' });
    return verifyMailTo(email, since)!;
  };
  const traces: TraceEntry[][] = [];
  let last: ClientResponse | undefined;
  let mail: Verify | undefined;
  let expired = false;
  // Records of the address's user written before this path (an account made at once elsewhere).
  let before: { kind: string; machine: string; method: string }[] = [];
  for (const segment of requestsOf(path)) {
    const [event, ...outcomes] = segment;
    const has = (b: string) => outcomes.some((o) => o.branch === b);
    if (has('an address with an account')) {
      // Someone signed up with this address at once: an unproven account, which the proof of its owner takes over.
      await signUpElsewhere();
      before = NEW_ACCOUNT;
    }
    if (has('a live link')) {
      // The link a sign-up made elsewhere mailed. Made at once, that sign-up made the account its own link verifies;
      // a second sign-up of the address then mails the proof that takes the unproven account over.
      mail = await signUpElsewhere();
      if (mode === 'at-once') before = NEW_ACCOUNT;
      if (mode === 'at-once' && !has('the account made')) mail = await signUpElsewhere();
    }
    if (has('the address was proven meanwhile')) {
      const owner = await pg.adapter.getUserByEmail(email);
      if (owner) await pg.adapter.updateUser({ id: owner.id, emailVerified: new Date() });
      else await pg.adapter.createUser({ id: randomUUID(), email, emailVerified: new Date() });
    }
    if (has('too soon for a new mail')) {
      // Another tab of this browser asked for a new mail moments ago: this tab's sign-up is in its cooldown.
      const tab = t.newClient();
      for (const c of t.client.cookies.all()) tab.cookies.set(c.name, c.value, ORIGIN, c);
      await post(t, tab, { resend: '1' });
    }
    const csrfToken = await t.csrfToken(t.client);
    const send = (fields: Record<string, string>) => t.client.post(`${ORIGIN}/auth/signup/password`, { csrfToken, ...fields });
    storeDown = has('the store is down') || has('the store is down for the link');
    forget = has('a dead code') || has('nothing left to resend');
    mailDown = has('the mail server refuses') || has('the mail server refuses again') || has('the mail server refuses after the account is made');
    breachedDown = has('the breached service is down');
    if (has('the database is down')) faults.add('getUserByEmail');
    if (has('the database is down at the end')) faults.add('getUserByEmail').add('getUser');
    // The sign-up's age (maxAge 60 s) has passed since its proof was mailed.
    const now = Date.now;
    if (expired) vi.spyOn(Date, 'now').mockImplementation(() => now() + 61_000);
    const logs = t.logger.debugs.length;
    const since = outbox.length;
    try {
      switch (event!.type) {
        case 'SUBMIT':
          last = await send({ email: has('an address that is none') ? 'not an address' : email, password: has('a password too short') ? 'short' : 'correct horse battery staple', name: 'Ada' });
          break;
        case 'CODE':
          last = await send({ code: has('the right code') ? mail!.code : mail!.code === '000000' ? '111111' : '000000' });
          break;
        case 'RESEND':
          last = await send({ resend: '1' });
          break;
        case 'LINK':
          last = await t.client.get(has('a live link') ? mail!.url : `${ORIGIN}/auth/signup/password?token=no-such-token`);
          break;
      }
    } finally {
      storeDown = forget = mailDown = breachedDown = false;
      faults.clear();
      vi.restoreAllMocks();
    }
    // A new mail is what tells a resend's two ways back to the code page apart.
    if (event!.type === 'RESEND') expect(verifyMailTo(email, since) !== undefined, 'a new mail').toBe(has('a new mail'));
    mail = verifyMailTo(email, since) ?? mail;
    expired ||= has('the proof mailed, since expired');
    const logged = t.logger.debugs.slice(logs).filter((d) => d.message.startsWith('flow password-signup '));
    expect(logged, `one trace for ${event!.type}`).toHaveLength(1);
    // The machine's own steps (not the sign-in stages after it).
    traces.push((logged[0]!.metadata as { trace: TraceEntry[] }).trace.filter((e) => e.machine === undefined));
  }
  return { t, traces, last: last!, email, before };
}

for (const mode of ['after-verification', 'at-once'] as const) {
  describe(`sign-up over HTTP, the model (createAccount: ${mode})`, () => {
    const paths = pathsOf(mode);

    it.each(paths.map((p) => [`${p.description} [${branchesOf(p).slice(1).filter((b) => !/^(a code|a link|send a new mail|the sign-up form)$/.test(b)).join(' / ')}]`, p] as const))('%s', async (_name, path) => {
      const run = await play(path, mode);
      const segments = requestsOf(path);
      for (const [i, trace] of run.traces.entries()) {
        coverage.record(trace);
        // The real flow took the model's path, request by request.
        expect(trace.map((e) => e.event), `request ${i + 1}`).toEqual(segments[i]!.map((e) => e.type));
      }
      expect(run.traces.at(-1)!.at(-1)!.to).toBe(path.finalState);
      const branches = branchesOf(path);
      const signedUp = path.finalState === 'signedUp';
      const owner = await pg.adapter.getUserByEmail(run.email);
      // The activity log of the address's user: a sign-up that made an account leaves its sign-up and sign-in; one
      // that proved the address of an account another browser made at once takes it over (its password and sessions
      // gone, then a sign-in); anything else leaves none. An account exists only where one was made (by this path, or
      // before it) or the address was proven meanwhile.
      const made = signedUp ? (mode === 'after-verification' || branches.includes('an account made at once') ? NEW_ACCOUNT : TAKEN_OVER) : [];
      const expected = [...run.before, ...made];
      const records = owner ? (await pg.db.query<{ kind: string; machine: string | null; method: string | null }>('SELECT kind, machine, method FROM activity WHERE user_id = $1 ORDER BY at, id', [owner.id])).rows : [];
      // Compared as a multiset: records written in one millisecond have no order among them (ids are random).
      expect(byKind(records)).toEqual(byKind(expected));
      const accountLeft = branches.includes('the mail server refuses after the account is made');
      expect(owner !== null, 'an account at the address').toBe(expected.length > 0 || accountLeft || branches.includes('the address was proven meanwhile'));
      // Made at once before its mail failed, the account stays, unproven, with nothing on record.
      if (accountLeft) expect(owner!.emailVerified).toBeNull();
      if (signedUp) {
        expect(run.last.status).toBe(302);
        expect(run.last.location?.href).toBe(`${ORIGIN}/`);
        const session = (await (await run.t.client.get('/auth/session')).json()) as { user?: { email?: string } } | null;
        expect(session?.user?.email).toBe(run.email);
        // Signed in by the password just chosen, the address is not proven yet; by the mail, it is.
        expect(owner!.emailVerified === null).toBe(branches.includes('an account made at once'));
      } else if (path.finalState.startsWith('failed.')) {
        expect(run.last.status).toBe(302);
        expect(run.last.location?.href).toBe(errorPage(path.finalState, branches));
      } else {
        expect(run.last.status).toBe(path.finalState === 'correcting' ? 400 : 200);
      }
    });
  });
}

describe('sign-up, the model', () => {
  it('has a path to every end and through every outcome', () => {
    const paths = [...pathsOf('after-verification'), ...pathsOf('at-once')];
    const ends = ['failed.callbackRoute', 'failed.codeDead', 'failed.emailSignIn', 'failed.expired', 'failed.linkDead', 'failed.taken', 'signedUp'];
    expect([...new Set(paths.map((p) => p.finalState))].filter((s) => s === 'signedUp' || s.startsWith('failed.')).sort()).toEqual(ends);
    expect([...new Set(paths.flatMap(branchesOf))].sort()).toEqual([...new Set(events.map((e) => e.branch))].sort());
  });
});

describe('sign-up coverage', () => {
  it('took every state and every transition of the machine', () => {
    coverage.assertComplete();
    const report = coverage.report();
    expect(report.states.covered).toBe(report.states.total);
    expect(report.transitions.covered).toBe(report.transitions.total);
  });
});
