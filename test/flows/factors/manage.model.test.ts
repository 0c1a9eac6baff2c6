// Model-based test of the signed-in factor flow: paths generated from `factorsMachine` (factors-model.ts), each
// played over HTTP against a real app on PGlite with a signed-in browser (database sessions), steered into the
// path's branches (the codes typed, the clock, another user's session, an adapter method that fails). Each run's
// logged trace must follow its path; each path must leave the browser, the events and the rows as its final state
// says; together they must take every state and transition of the machine.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Adapter } from '../../../src/core/adapter.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { hashBackupCode } from '../../../src/flows/factors/backup-codes.js';
import { factorsMachine, FRESH_CHECK_MS } from '../../../src/flows/factors/manage.js';
import { FACTOR_TTL_MS } from '../../../src/flows/factors/steps.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { storedSessionToken } from '../../../src/session/session-token.js';
import { ORIGIN, testAuth, type TestAuth } from '../../support/auth-app.js';
import type { ClientResponse, TestClient } from '../../support/client.js';
import { activeBackupCode, activeTotp, codeNow, keyOnPage, otherCode, SESSION_COOKIE } from '../../support/factors.js';
import { createCoverage } from '../../support/flow-coverage.js';
import type { ModelPath } from '../../support/model-paths.js';
import { useMigratedPGlite } from '../../support/pglite.js';
import { A, allBranches, branchesOf, C, D, E, factorPaths, G, K, L, S, starts, type Outcome } from './factors-model.js';

const pg = useMigratedPGlite();
const FACTORS_COOKIE = 'authchart.flow-factors';
const PASSWORD = 'model password';
const BACK = `${ORIGIN}/account`;

/** The adapter method a failure branch makes throw (armed once the browser is signed in). */
const FAILS: Record<string, keyof Adapter> = {
  [L.fails]: 'listFactors',
  [C.fails]: 'advanceFactorStep',
  [K.fails]: 'updateSession',
  [E.refusesNew]: 'createFactor',
  [E.fails]: 'advanceFactorStep',
  [E.refusesActivation]: 'activateFactor',
  [G.fails]: 'deleteFactors',
  [D.fails]: 'deleteFactors',
};

/** The real adapter, with the methods named in `armed` refusing (as a database that is down or read-only would). */
function failing(real: Adapter, armed: Set<string>): Adapter {
  return new Proxy(real, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof name !== 'string' || typeof value !== 'function') return value;
      // Decided at each call: the library wraps the adapter's methods once, at start, before any is armed.
      return async (...args: unknown[]) => {
        if (armed.has(name)) throw new Error(`refused for the model: ${name}`);
        // Inside a transaction the same methods refuse: the adapter bound to it is armed too.
        if (name === 'withTransaction') {
          const fn = args[0] as (tx: Adapter) => Promise<unknown>;
          return (value as (f: typeof fn) => unknown).call(target, (tx: Adapter) => fn(failing(tx, armed)));
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

interface Run {
  t: TestAuth;
  userId: string;
  responses: ClientResponse[];
  pages: string[];
  trace: TraceEntry[];
  events: { name: string; message: Record<string, unknown> }[];
  /** What was stored before the flow ran: the app's id, and the rows of the user's factors. */
  before: { appId?: string; factors: string[] };
}

const slug = () => randomUUID().replace(/-/g, '').slice(0, 12);

async function signIn(t: TestAuth, browser: TestClient, userId: string): Promise<string> {
  const csrfToken = await t.csrfToken(browser);
  const res = await browser.post('/auth/callback/credentials', { csrfToken, email: `${userId}@example.com`, password: PASSWORD });
  expect(res.status, 'signed in').toBe(302);
  expect(browser.cookies.get(SESSION_COOKIE), 'a session cookie').toBeTruthy();
  return csrfToken;
}

/** The user's factor rows, as `kind:active` plus whether the app stored before is still there. */
async function factorRows(userId: string): Promise<string[]> {
  return (await pg.adapter.listFactors(userId)).map((f) => `${f.kind}:${f.activatedAt ? 'active' : 'pending'}`).sort();
}

/** Sets up the user, their factors and the signed-in browser for the path, then sends the path's requests. */
async function play(path: ModelPath): Promise<Run> {
  const b = branchesOf(path);
  const started = starts.find((s) => s.branch === b.START)!;
  const userId = `f-${slug()}`;
  await pg.adapter.createUser!({ id: userId, email: `${userId}@example.com`, emailVerified: null });
  const armed = new Set<string>();
  const events: Run['events'] = [];
  const record = (name: string) => async (message: unknown) => void events.push({ name, message: message as Record<string, unknown> });
  const lastAttempt = b.checkFactorCode === C.locked || b.confirmEnrolment === E.locked;
  const t = testAuth({
    adapter: failing(pg.adapter, armed),
    session: { strategy: 'database' },
    secondFactor: { issuer: 'Model', ...(lastAttempt ? { maxAttempts: 1 } : {}) },
    events: { factorEnrolled: record('factorEnrolled'), factorRemoved: record('factorRemoved'), secondFactorFailed: record('secondFactorFailed') },
    providers: [Credentials({ credentials: { email: {}, password: {} }, authorize: (c) => (c.password === PASSWORD ? { id: String(c.email).split('@')[0], email: String(c.email) } : null) })],
  });
  // Signed in with a password first (no factor yet, so no stage), then the factors the path finds are stored.
  const csrfToken = await signIn(t, t.client, userId);
  const key = b.loadAccount === L.app || b.loadAccount === L.appAndCodes ? await activeTotp(pg.adapter, userId) : undefined;
  const backupCode = b.loadAccount === L.appAndCodes ? await activeBackupCode(pg.adapter, userId) : undefined;
  const stored = await pg.adapter.listFactors(userId);
  const appId = stored.find((f) => f.kind === 'totp')?.id;
  let target: string | undefined;
  if (b.START === A.removeApp) target = appId;
  if (b.START === A.removeCodes) target = stored.find((f) => f.kind === 'backup')?.id;
  if (b.START === A.removeStranger) {
    const stranger = `s-${slug()}`;
    await pg.adapter.createUser!({ id: stranger, email: `${stranger}@example.com`, emailVerified: null });
    await activeTotp(pg.adapter, stranger);
    target = (await pg.adapter.listFactors(stranger))[0].id;
  }
  const before = { appId, factors: await factorRows(userId) };
  for (const branch of Object.values(b)) if (FAILS[branch]) armed.add(FAILS[branch]);
  // Signed in long enough ago that the last check is stale.
  if (started.verifiedAt === 0) vi.setSystemTime(Date.now() + FRESH_CHECK_MS + 60_000);

  const responses: ClientResponse[] = [];
  const pages: string[] = [];
  const answer = async (res: ClientResponse) => {
    responses.push(res);
    pages.push(await res.text());
  };
  if (started.op === 'verify') await answer(await t.client.get(`/auth/factors/verify?callbackUrl=${encodeURIComponent('/account')}`));
  else {
    const action = { enrolTotp: 'totp', backupCodes: 'backup-codes', remove: 'remove' }[started.op as string];
    await answer(await t.client.post(`/auth/factors/${action}`, { csrfToken, callbackUrl: '/account', ...(target ? { id: target } : {}) }));
  }

  for (const [i, event] of (path.events as Outcome[]).entries()) {
    if (event.type !== 'SUBMIT_CODE') continue;
    const next = path.events[i + 1] as Outcome | undefined;
    const enrolling = path.events.slice(0, i).some((e) => e.type === 'xstate.done.actor.startEnrolment');
    let code: string;
    if (enrolling) {
      const right = codeNow(keyOnPage(pages.at(-1)!));
      const wrong = next?.branch === E.wrong || next?.branch === E.locked;
      // The factor being enrolled removed before the (wrong) code: the page cannot be shown again.
      if (wrong && b.enrolmentPage === E.gone) await pg.db.query('DELETE FROM factors WHERE user_id = $1 AND activated_at IS NULL', [userId]);
      code = wrong ? otherCode(right) : right;
    } else {
      const right = codeNow(key!);
      code = next?.branch === C.backup ? backupCode! : next?.branch === C.wrong || next?.branch === C.locked ? otherCode(right) : right;
    }
    if (event.branch === S.late) vi.setSystemTime(Date.now() + FACTOR_TTL_MS + 1_000);
    if (event.branch === S.other) {
      // Another user's browser, holding a copy of this flow's cookie, posts the right code.
      const mallory = t.newClient();
      const malloryId = `m-${slug()}`;
      await pg.adapter.createUser!({ id: malloryId, email: `${malloryId}@example.com`, emailVerified: null });
      const malloryCsrf = await signIn(t, mallory, malloryId);
      mallory.cookies.set(FACTORS_COOKIE, t.client.cookies.get(FACTORS_COOKIE)!, ORIGIN);
      await answer(await mallory.post('/auth/factors/code', { csrfToken: malloryCsrf, code }));
    } else {
      await answer(await t.client.post('/auth/factors/code', { csrfToken, code }));
    }
  }
  const records = t.logger.debugs.filter((d) => d.message.startsWith('flow factors '));
  expect(records, 'one flow record per request').toHaveLength(responses.length);
  const trace = records.flatMap((r) => (r.metadata as { trace: TraceEntry[] }).trace);
  return { t, userId, responses, pages, trace, events, before };
}

/** The events a path emits: a failure per wrong code, the factor enrolled (an app, a set of codes) or removed. */
function emitted(path: ModelPath): string[] {
  return path.events.flatMap((e) => {
    if (['xstate.done.actor.checkFactorCode', 'xstate.done.actor.confirmEnrolment'].includes(e.type) && e.output.result !== 'passed') return ['secondFactorFailed'];
    if (e.type === 'xstate.done.actor.activateFactor' || e.type === 'xstate.done.actor.replaceBackupCodes') return ['factorEnrolled'];
    return e.type === 'xstate.done.actor.removeFactor' ? ['factorRemoved'] : [];
  });
}

const errorPage = (type: string) => `${ORIGIN}/auth/error?error=${type}`;

/** Where the browser goes and what the server logs, per final state. */
function expectedFor(path: ModelPath, b: Record<string, string>): { status: number; location: string | null; logged: string[] } {
  const dbFailure = Object.values(b).some((branch) => FAILS[branch]);
  switch (path.finalState) {
    case 'done':
      return { status: 302, location: BACK, logged: [] };
    case 'showingCodes':
    case 'awaitingCheck':
    case 'awaitingEnrolment':
      return { status: 200, location: null, logged: [] };
    case 'signInRequired':
      return { status: 302, location: `${ORIGIN}/auth/signin?callbackUrl=${encodeURIComponent(BACK)}`, logged: [] };
    case 'failed.accessDenied':
      return { status: 302, location: errorPage('AccessDenied'), logged: ['AccessDenied'] };
    case 'failed.secondFactor':
      return { status: 302, location: errorPage('SecondFactorFailed'), logged: ['SecondFactorFailed'] };
    case 'failed.invalidRequest':
      // A browser is told its request was not valid (never blamed on the server's configuration); JSON gets a 400.
      return { status: 302, location: errorPage('InvalidRequest'), logged: ['InvalidRequest'] };
    case 'failed.callbackRoute':
      // A database failure keeps its own type in the log; the browser sees only `Configuration`.
      return { status: 302, location: errorPage('Configuration'), logged: [dbFailure ? 'AdapterError' : 'CallbackRouteError'] };
    default:
      throw new Error(`no expectation for ${path.finalState}`);
  }
}

/** The user's factor rows a path leaves: changed only by a change that went through. */
function rowsAfter(path: ModelPath, b: Record<string, string>, before: string[]): string[] {
  const final = path.finalState;
  const enrolled = final === 'done' && b.activateFactor === E.activated;
  const pendingLeft = ['awaitingEnrolment', 'failed.accessDenied', 'failed.secondFactor'].includes(final) && b.startEnrolment === E.started;
  const pendingLeftToo = final === 'failed.callbackRoute' && (b.confirmEnrolment === E.fails || b.activateFactor === E.refusesActivation);
  if (enrolled) return [...before, 'totp:active'].sort();
  if (pendingLeft || pendingLeftToo) return [...before, 'totp:pending'].sort();
  if (final === 'showingCodes') return [...before.filter((r) => r !== 'backup:active'), ...Array(10).fill('backup:active')].sort();
  // A backup code that passed the check is spent.
  if (b.checkFactorCode === C.backup) before = before.filter((r, i) => i !== before.indexOf('backup:active'));
  if (final === 'done' && b.removeFactor === D.removed) return before.filter((r) => r !== (b.START === A.removeApp ? 'totp:active' : 'backup:active'));
  return before;
}

const paths = factorPaths();
const coverage = createCoverage(factorsMachine);
const label = (path: ModelPath) => `${path.description} [${(path.events as Outcome[]).map((e) => e.branch).join('; ')}]`;

afterAll(() => {
  console.log(`${paths.length} paths\nflow coverage: ${coverage.format()}`);
});

describe('factor flow, the model', () => {
  it('takes every branch it offers and reaches every final state', () => {
    const taken = new Set(paths.flatMap((p) => Object.values(branchesOf(p))));
    for (const branch of allBranches) expect(taken.has(branch), branch).toBe(true);
    expect([...new Set(paths.map((p) => p.finalState))].sort()).toEqual([
      'awaitingCheck', 'awaitingEnrolment', 'done', 'failed.accessDenied', 'failed.callbackRoute', 'failed.invalidRequest', 'failed.secondFactor', 'showingCodes', 'signInRequired',
    ]);
  });
});

describe('factor flow over HTTP', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 23, 12, 0, 10) }));
  afterEach(() => vi.useRealTimers());

  it.each(paths.map((p) => [label(p), p] as const))('%s', async (_name, path) => {
    const b = branchesOf(path);
    const run = await play(path);
    coverage.record(run.trace);
    const want = expectedFor(path, b);

    // The real flow took the model's path, transition by transition (the choice of operation is eventless).
    expect(run.trace.filter((e) => e.event !== 'always').map((e) => e.event)).toEqual(path.events.map((e) => e.type));
    expect(run.trace.at(-1)?.to).toBe(path.finalState);
    for (const res of run.responses) expect(res.status).toBeLessThan(500);
    const res = run.responses.at(-1)!;
    expect(res.status).toBe(want.status);
    expect(res.headers.get('location')).toBe(want.location);
    expect(run.t.logger.errorTypes()).toEqual(want.logged);
    expect(run.events.map((e) => e.name)).toEqual(emitted(path));
    // Paused: the code form, sealed in the flow cookie; otherwise the cookie is spent (or was never set).
    const sealed = res.setCookie.some((l) => l.startsWith(`${FACTORS_COOKIE}=`) && !/max-age=0/i.test(l));
    expect(sealed).toBe(path.finalState.startsWith('awaiting'));
    if (path.finalState.startsWith('awaiting')) expect(run.pages.at(-1)).toContain('did not match');
    expect(await factorRows(run.userId)).toEqual(rowsAfter(path, b, run.before.factors));

    if (path.finalState === 'showingCodes') {
      const codes = [...run.pages.at(-1)!.matchAll(/<li>([a-z2-9]{5}-[a-z2-9]{5})<\/li>/g)].map((m) => m[1]);
      const stored = (await pg.adapter.listFactors(run.userId)).filter((f) => f.kind === 'backup').map((f) => f.secret);
      expect(stored.sort()).toEqual(codes.map(hashBackupCode).sort());
    }
    // A check that passed, and an app confirmed by its first code, is recorded in the session as one.
    const token = storedSessionToken(run.t.client.cookies.get(SESSION_COOKIE)!);
    const [session] = (await pg.db.query<{ amr: string; auth_time: Date }>('SELECT amr, auth_time FROM sessions WHERE session_token = $1', [token])).rows;
    const checked = b.recordCheck === K.recorded || b.activateFactor === E.activated;
    expect(session.amr.split(' ')).toEqual(checked ? ['pwd', 'otp'] : ['pwd']);
    if (checked) expect(session.auth_time.getTime()).toBe(Date.now());
  });
});

describe('factor flow coverage', () => {
  it('took every state and every transition of the machine', () => {
    coverage.assertComplete();
    const report = coverage.report();
    expect(report.states.covered).toBe(report.states.total);
    expect(report.transitions.covered).toBe(report.transitions.total);
  });
});
