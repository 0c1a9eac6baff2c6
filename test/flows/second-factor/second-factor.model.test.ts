// Model-based test of the second-factor machine: paths generated from `secondFactorMachine` (second-factor-model.ts),
// each played over HTTP against a real app on PGlite (database sessions), steered into the path's branches (the
// codes typed, the passkey's assertions, the clock, another user's session, an adapter method that fails). A
// signed-in user's paths start at the factor routes; the sign-in's start with a password sign-in. Each run's logged
// trace must follow its path; each path must leave the browser, the events, the session and the rows as its final
// state says; together they must take every state and transition of the machine.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Adapter } from '../../../src/core/adapter.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { hashBackupCode } from '../../../src/flows/second-factor/backup-codes.js';
import { secondFactorMachine, FRESH_CHECK_MS } from '../../../src/flows/second-factor/machine.js';
import { FACTOR_TTL_MS } from '../../../src/flows/second-factor/steps.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { Passkey } from '../../../src/providers/webauthn.js';
import { storedSessionToken } from '../../../src/session/session-token.js';
import { ORIGIN, testAuth, type TestAuth } from '../../support/auth-app.js';
import type { ClientResponse, TestClient } from '../../support/client.js';
import { activeBackupCode, activeTotp, codeNow, keyOnPage, otherCode, registeredPasskey, SESSION_COOKIE, setsSession, STAGE_COOKIE } from '../../support/factors.js';
import { createCoverage } from '../../support/flow-coverage.js';
import type { ModelPath } from '../../support/model-paths.js';
import { useMigratedPGlite } from '../../support/pglite.js';
import type { SoftAuthenticator } from '../webauthn/webauthn-authenticator.js';
import { A, allBranches, secondFactorPaths, branchesOf, C, D, E, G, L, NOT_OFFERED, O, P, REQUESTS, S, starts, type Labelled } from './second-factor-model.js';

const pg = useMigratedPGlite();
const PASSWORD = 'model password';
const BACK = `${ORIGIN}/account`;
const JSON_ACCEPT = { headers: { accept: 'application/json' } };

/** The adapter method a failure branch makes throw (armed for the request that meets it). */
const FAILS: Record<string, keyof Adapter> = {
  [L.fails]: 'listFactors',
  [C.fails]: 'advanceFactorStep',
  [O.unavailable]: 'listAuthenticatorsByUserId',
  [P.refused]: 'updateAuthenticatorCounter',
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
  /** The path's requests' responses (the start, then one per answer), and their bodies. */
  responses: ClientResponse[];
  pages: string[];
  /** The second-factor machine's transitions across the path's requests, and each request's logged status. */
  trace: TraceEntry[];
  statuses: string[];
  events: { name: string; message: Record<string, unknown> }[];
  /** What was stored before the machine ran: the user's factor rows; another session of theirs (signed in only). */
  before: { factors: string[]; elsewhere?: string };
  device?: SoftAuthenticator;
  /** The kinds of the activity records the path's requests wrote for the user (sorted). */
  activity: string[];
}

const slug = () => randomUUID().replace(/-/g, '').slice(0, 12);

async function signIn(t: TestAuth, browser: TestClient, userId: string): Promise<string> {
  const csrfToken = await t.csrfToken(browser);
  const res = await browser.post('/auth/callback/credentials', { csrfToken, email: `${userId}@example.com`, password: PASSWORD });
  expect(res.status, 'signed in').toBe(302);
  expect(browser.cookies.get(SESSION_COOKIE), 'a session cookie').toBeTruthy();
  return csrfToken;
}

/** The user's factor rows, as `kind:active|pending`. */
async function factorRows(userId: string): Promise<string[]> {
  return (await pg.adapter.listFactors(userId)).map((f) => `${f.kind}:${f.activatedAt ? 'active' : 'pending'}`).sort();
}

const isRequest = (e: { type: string }) => REQUESTS.has(e.type);

/**
 * After the machine passed, the route records the check in the session (no machine state): played as an extra case
 * of the step-up, with the database refusing that update.
 */
const REFUSED_UPDATE = 'the database refuses the session update';

/**
 * Sets up the user, their factors and the browser for the path, then sends the path's requests (`refuseUpdate`:
 * the last one meets a database that refuses to update the session).
 */
async function play(path: ModelPath, refuseUpdate = false): Promise<Run> {
  const b = branchesOf(path);
  const started = starts.find((s) => s.branch === b.START)!;
  const signingIn = started.purpose === 'signIn';
  const userId = `f-${slug()}`;
  await pg.adapter.createUser!({ id: userId, email: `${userId}@example.com`, emailVerified: null });
  const armed = new Set<string>();
  const events: Run['events'] = [];
  const record = (name: string) => async (message: unknown) => void events.push({ name, message: message as Record<string, unknown> });
  const lastAttempt = b.checkFactorCode === C.locked || b.confirmEnrolment === E.locked || b.checkPasskey === P.locked;
  const t = testAuth({
    adapter: failing(pg.adapter, armed),
    session: { strategy: 'database' },
    activity: {},
    secondFactor: {
      issuer: 'Model',
      ...(lastAttempt ? { maxAttempts: 1 } : {}),
      ...(b.assess === L.required ? { require: true } : {}),
      ...(b.assess === L.requireThrows
        ? {
            require: () => {
              throw new Error('require callback crashed');
            },
          }
        : {}),
    },
    // A passkey can answer the check (for a user who has one): the WebAuthn provider its ceremony uses.
    experimental: { enableWebAuthn: true },
    events: {
      signIn: record('signIn'),
      factorEnrolled: record('factorEnrolled'),
      factorRemoved: record('factorRemoved'),
      secondFactorFailed: record('secondFactorFailed'),
    },
    providers: [
      Credentials({ credentials: { email: {}, password: {} }, authorize: (c) => (c.password === PASSWORD ? { id: String(c.email).split('@')[0], email: String(c.email) } : null) }),
      Passkey(),
    ],
  });
  // A signed-in user signs in with a password first (no factor yet: no check), then the factors the path finds
  // are stored, and another browser of theirs holds a session too.
  const csrfToken = signingIn ? await t.csrfToken() : await signIn(t, t.client, userId);
  const hasApp = b.assess === L.app || b.assess === L.appAndCodes || b.assess === L.appAndPasskey;
  const key = hasApp ? await activeTotp(pg.adapter, userId) : undefined;
  const backupCode = b.assess === L.appAndCodes ? await activeBackupCode(pg.adapter, userId) : undefined;
  const device = b.assess === L.appAndPasskey ? await registeredPasskey(pg.adapter, userId) : undefined;
  const stored = await pg.adapter.listFactors(userId);
  let target: string | undefined;
  if (b.START === A.removeApp) target = stored.find((f) => f.kind === 'totp')?.id;
  if (b.START === A.removeCodes) target = stored.find((f) => f.kind === 'backup')?.id;
  if (b.START === A.removeStranger) {
    const stranger = `s-${slug()}`;
    await pg.adapter.createUser!({ id: stranger, email: `${stranger}@example.com`, emailVerified: null });
    await activeTotp(pg.adapter, stranger);
    target = (await pg.adapter.listFactors(stranger))[0].id;
  }
  let elsewhere: string | undefined;
  if (!signingIn) {
    elsewhere = storedSessionToken(randomUUID());
    await pg.adapter.createSession!({ sessionToken: elsewhere, userId, expires: new Date(Date.now() + 86_400_000) });
  }
  const before = { factors: await factorRows(userId), elsewhere };
  events.length = 0;
  const activityBefore = (await pg.db.query<{ id: string }>('SELECT id FROM activity WHERE user_id = $1', [userId])).rows.map((r) => r.id);
  // Signed in long enough ago that the last check is stale.
  if (started.verifiedAt === 0) vi.setSystemTime(Date.now() + FRESH_CHECK_MS + 60_000);

  const responses: ClientResponse[] = [];
  const pages: string[] = [];
  const answer = async (res: ClientResponse) => {
    responses.push(res);
    pages.push(await res.text());
  };
  let options: unknown;
  const all = path.events as Labelled[];
  for (const [i, event] of all.entries()) {
    if (!isRequest(event)) continue;
    // What this request meets: its own answers, up to the next request. The failures among them are armed for it.
    const end = all.findIndex((e, j) => j > i && isRequest(e));
    const meets = all.slice(i + 1, end === -1 ? undefined : end);
    const next = meets[0];
    const failures = meets.map((e) => FAILS[e.branch]).filter(Boolean);

    if (event.type === 'START') {
      for (const f of failures) armed.add(f);
      if (signingIn) await answer(await t.client.post('/auth/callback/credentials', { csrfToken, email: `${userId}@example.com`, password: PASSWORD, callbackUrl: '/account' }));
      else if (started.purpose === 'stepUp') await answer(await t.client.get(`/auth/factors/verify?callbackUrl=${encodeURIComponent('/account')}`));
      else {
        const action = { enrolTotp: 'totp', backupCodes: 'backup-codes', remove: 'remove' }[started.purpose as string];
        await answer(await t.client.post(`/auth/factors/${action}`, { csrfToken, callbackUrl: '/account', ...(target ? { id: target } : {}) }));
      }
      armed.clear();
      continue;
    }

    let code = '';
    if (event.type === 'SUBMIT_CODE') {
      const enrolling = all.slice(0, i).some((e) => e.type === 'xstate.done.actor.startEnrolment');
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
    }
    // The user's passkeys removed after the page offered one: no options can be made.
    if (event.type === 'PASSKEY_OPTIONS' && next?.branch === O.gone) await pg.db.query('DELETE FROM authenticators WHERE user_id = $1', [userId]);
    if (event.branch === S.late) vi.setSystemTime(Date.now() + FACTOR_TTL_MS + 1_000);

    // Another user's browser, holding a copy of this check's cookie, sends what the user would.
    let browser = t.client;
    let csrf = csrfToken;
    if (event.branch === S.other) {
      browser = t.newClient();
      const malloryId = `m-${slug()}`;
      await pg.adapter.createUser!({ id: malloryId, email: `${malloryId}@example.com`, emailVerified: null });
      const n = events.length;
      csrf = await signIn(t, browser, malloryId);
      events.splice(n);
      browser.cookies.set(STAGE_COOKIE, t.client.cookies.get(STAGE_COOKIE)!, ORIGIN);
    }
    for (const f of failures) armed.add(f);
    if (refuseUpdate && end === -1) armed.add('updateSession');
    try {
      // The code form posts to /second-factor; a change of factors' codes go to its older name, which still works.
      const codeRoute = started.purpose === 'enrolTotp' || started.purpose === 'backupCodes' || started.purpose === 'remove' ? '/auth/factors/code' : '/auth/second-factor';
      if (event.type === 'SUBMIT_CODE') await answer(await browser.post(codeRoute, { csrfToken: csrf, code }));
      if (event.type === 'PASSKEY_OPTIONS') await answer(await browser.get('/auth/second-factor?action=authenticate', JSON_ACCEPT));
      if (event.type === 'SUBMIT_PASSKEY') {
        const bad = next?.branch === P.bad || next?.branch === P.locked;
        const assertion = device!.authenticate(options as never, { badSignature: bad });
        await answer(await browser.post('/auth/second-factor', { csrfToken: csrf, action: 'authenticate', data: JSON.stringify(assertion) }));
      }
    } finally {
      armed.clear();
    }
    if (event.type === 'PASSKEY_OPTIONS' && next?.branch === O.offered) options = (JSON.parse(pages.at(-1)!) as { options: unknown }).options;
  }

  // One record per request: the sign-in's first under its provider's flow (the machine ran after the tail), every
  // other under the second-factor machine.
  const records = t.logger.debugs.filter((d) => d.message.startsWith('flow second-factor ') || (signingIn && d.message.startsWith('flow credentials ')));
  expect(records.map((r) => r.message.split(' ')[1]), 'one flow record per request').toEqual(responses.map((_, i) => (signingIn && i === 0 ? 'credentials' : 'second-factor')));
  const trace = records.flatMap((r) => (r.metadata as { trace: TraceEntry[] }).trace).filter((e) => e.machine === 'second-factor');
  const statuses = records.map((r) => r.message.replace(/^flow \S+ /, ''));
  const activity = (await pg.db.query<{ kind: string }>('SELECT kind FROM activity WHERE user_id = $1 AND NOT (id = ANY($2::text[]))', [userId, activityBefore])).rows.map((r) => r.kind).sort();
  return { t, userId, responses, pages, trace, statuses, events, before, device, activity };
}

/**
 * The activity records a path writes for its user: one per outcome. What the machine emits (a wrong code, a factor
 * added or removed); a check that failed otherwise than by a locking wrong code; a check that passed (a sign-in's or
 * a step-up's: a change of factors is recorded as the change); and the sign-in its pass completed.
 */
function activityOf(path: ModelPath, b: Record<string, string>): string[] {
  const names: Record<string, string> = { secondFactorFailed: 'secondFactor.failed', factorEnrolled: 'factor.added', factorRemoved: 'factor.removed' };
  const kinds = emitted(path).map((e) => names[e]);
  const last = path.events.at(-1) as Labelled;
  if (path.finalState.startsWith('failed.') && last.output?.result !== 'locked') kinds.push('secondFactor.failed');
  const started = starts.find((s) => s.branch === b.START)!;
  if (path.finalState === 'passed' && (started.purpose === 'signIn' || started.purpose === 'stepUp')) kinds.push('secondFactor.passed');
  if (path.finalState === 'passed' && started.purpose === 'signIn') kinds.push('signIn.succeeded');
  // A signed-in user's change of factors ends their other sessions (one record for them all).
  const changed = (path.finalState === 'passed' || path.finalState === 'showingCodes') && ['enrolTotp', 'backupCodes', 'remove'].includes(started.purpose as string);
  if (changed) kinds.push('session.ended');
  return kinds.sort();
}

/** The events a path emits: a failure per wrong code or passkey, the factor enrolled (an app, a set of codes) or removed. */
function emitted(path: ModelPath): string[] {
  return path.events.flatMap((e) => {
    const checks = ['xstate.done.actor.checkFactorCode', 'xstate.done.actor.confirmEnrolment', 'xstate.done.actor.checkPasskey'];
    if (checks.includes(e.type) && e.output.result !== 'passed') return ['secondFactorFailed'];
    if (e.type === 'xstate.done.actor.activateFactor' || e.type === 'xstate.done.actor.replaceBackupCodes') return ['factorEnrolled'];
    return e.type === 'xstate.done.actor.removeFactor' ? ['factorRemoved'] : [];
  });
}

/** How the check passed on a path, if it did (`amr`: `otp` for a code or a backup code, `hwk` for a passkey). */
function passedBy(path: ModelPath): 'otp' | 'hwk' | undefined {
  const passed = path.events.filter((e) => /^xstate\.done\.actor\.(checkFactorCode|confirmEnrolment|checkPasskey)$/.test(e.type) && e.output.result === 'passed').at(-1);
  return passed ? (passed.output.method === 'passkey' ? 'hwk' : 'otp') : undefined;
}

const errorPage = (type: string) => `${ORIGIN}/auth/error?error=${type}`;

interface Expected {
  status: number;
  location: string | null;
  logged: string[];
  /** The record's status of the last request. */
  flow: string;
  /** The JSON body of an answer to a request for passkey options. */
  json?: Record<string, unknown>;
}

/** Where the browser goes, what the server logs and records, per final state (and, for JSON, the body). */
function expectedFor(path: ModelPath, b: Record<string, string>): Expected {
  const dbFailure = Object.values(b).some((branch) => FAILS[branch]);
  const signingIn = b.START === A.signIn;
  const ended = signingIn ? 'signedIn' : 'assured';
  // A request for passkey options asks for JSON: a failure is JSON with the type a page would show (the server's own
  // failures as Configuration, 500), never a page.
  const asksJson = path.events.filter(isRequest).at(-1)?.type === 'PASSKEY_OPTIONS';
  const failure = (type: string, logged: string): Expected =>
    asksJson
      ? { status: type === 'InvalidRequest' ? 400 : type === 'Configuration' ? 500 : 403, location: null, logged: [logged], flow: 'failed', json: { error: type } }
      : { status: 302, location: errorPage(type), logged: [logged], flow: 'failed' };
  switch (path.finalState) {
    case 'passed':
      return { status: 302, location: BACK, logged: [], flow: ended };
    case 'showingCodes':
      return { status: 200, location: null, logged: [], flow: ended };
    case 'awaitingCheck':
    case 'awaitingEnrolment': {
      if (!asksJson) return { status: 200, location: null, logged: [], flow: 'paused' };
      // No passkey to make options for (none offered, or none left): a 400, and the check stays as it was.
      const refused = b.PASSKEY_OPTIONS === NOT_OFFERED || path.events.at(-1)?.type === 'xstate.error.actor.passkeyOptions';
      if (refused) return { status: 400, location: null, logged: [], flow: 'paused', json: { error: 'InvalidRequest' } };
      return { status: 200, location: null, logged: [], flow: 'paused', json: { action: 'authenticate', options: { challenge: expect.any(String) } } };
    }
    case 'signInRequired':
      return { status: 302, location: `${ORIGIN}/auth/signin?callbackUrl=${encodeURIComponent(BACK)}`, logged: [], flow: ended };
    case 'failed.accessDenied':
      return failure('AccessDenied', 'AccessDenied');
    case 'failed.secondFactor':
      return failure('SecondFactorFailed', 'SecondFactorFailed');
    case 'failed.expired':
      // Too late is not "too many wrong codes": its own type, its own words on the page.
      return failure('SecondFactorExpired', 'SecondFactorExpired');
    case 'failed.invalidRequest':
      // A browser is told its request was not valid (never blamed on the server's configuration).
      return failure('InvalidRequest', 'InvalidRequest');
    case 'failed.callbackRoute':
      // A database failure keeps its own type in the log; the browser sees only `Configuration`.
      return failure('Configuration', dbFailure ? 'AdapterError' : 'CallbackRouteError');
    default:
      throw new Error(`no expectation for ${path.finalState}`);
  }
}

/** The user's factor rows a path leaves: changed only by a change that went through. */
function rowsAfter(path: ModelPath, b: Record<string, string>, before: string[]): string[] {
  const final = path.finalState;
  const enrolled = final === 'passed' && b.activateFactor === E.activated;
  const pendingLeft = ['awaitingEnrolment', 'failed.accessDenied', 'failed.secondFactor', 'failed.expired'].includes(final) && b.startEnrolment === E.started;
  const pendingLeftToo = final === 'failed.callbackRoute' && (b.confirmEnrolment === E.fails || b.activateFactor === E.refusesActivation);
  if (enrolled) return [...before, 'totp:active'].sort();
  if (pendingLeft || pendingLeftToo) return [...before, 'totp:pending'].sort();
  if (final === 'showingCodes') return [...before.filter((r) => r !== 'backup:active'), ...Array(10).fill('backup:active')].sort();
  // A backup code that passed the check is spent.
  if (b.checkFactorCode === C.backup) before = before.filter((r, i) => i !== before.indexOf('backup:active'));
  if (final === 'passed' && b.removeFactor === D.removed) return before.filter((r) => r !== (b.START === A.removeApp ? 'totp:active' : 'backup:active'));
  return before;
}

const paths = secondFactorPaths();
const coverage = createCoverage(secondFactorMachine);
const label = (path: ModelPath) => `${path.description} [${(path.events as Labelled[]).map((e) => e.branch).join('; ')}]`;

afterAll(() => {
  console.log(`${paths.length} paths\nflow coverage: ${coverage.format()}`);
});

describe('second-factor machine, the model', () => {
  it('takes every branch it offers and reaches every final state', () => {
    const taken = new Set(paths.flatMap((p) => (p.events as Labelled[]).map((e) => e.branch)));
    for (const branch of allBranches) expect(taken.has(branch), branch).toBe(true);
    expect([...new Set(paths.map((p) => p.finalState))].sort()).toEqual([
      'awaitingCheck',
      'awaitingEnrolment',
      'failed.accessDenied',
      'failed.callbackRoute',
      'failed.expired',
      'failed.invalidRequest',
      'failed.secondFactor',
      'passed',
      'showingCodes',
      'signInRequired',
    ]);
    expect(new Set(paths.map(label)).size, 'every path has its own name').toBe(paths.length);
  });

  it('each request of another user is refused wherever a check waits for one', () => {
    const otherUser = paths.flatMap((p) => (p.events as Labelled[]).filter((e) => e.branch === S.other).map((e) => `${e.type} → ${p.finalState}`));
    expect([...new Set(otherUser)].sort()).toEqual(['PASSKEY_OPTIONS → failed.accessDenied', 'SUBMIT_CODE → failed.accessDenied', 'SUBMIT_PASSKEY → failed.accessDenied']);
  });
});

describe('second-factor machine over HTTP', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 23, 12, 0, 10) }));
  afterEach(() => vi.useRealTimers());

  const stepUpByCode = paths.filter((p) => branchesOf(p).START === A.stepUp && branchesOf(p).checkFactorCode === C.otp && p.finalState === 'passed');
  const cases: [string, ModelPath, boolean][] = [...paths.map((p) => [label(p), p, false] as [string, ModelPath, boolean]), ...stepUpByCode.map((p) => [`${label(p)}, then ${REFUSED_UPDATE}`, p, true] as [string, ModelPath, boolean])];

  it('plays the refused session update on the one step-up by code', () => {
    expect(stepUpByCode).toHaveLength(1);
  });

  it.each(cases)('%s', async (_name, path, refused) => {
    const b = branchesOf(path);
    const signingIn = b.START === A.signIn;
    const run = await play(path, refused);
    coverage.record(run.trace);
    // The machine passed; the route could not record it: the server's failure, logged with its own type, shown as
    // Configuration, and the session keeps what it had.
    const want = refused ? { status: 302, location: errorPage('Configuration'), logged: ['AdapterError'], flow: 'assured', json: undefined } : expectedFor(path, b);

    // The real machine took the model's path, transition by transition (the choice of purpose is eventless).
    expect(run.trace.filter((e) => e.event !== 'always').map((e) => e.event)).toEqual(path.events.map((e) => e.type));
    expect(run.trace.at(-1)?.to).toBe(path.finalState);
    expect(run.statuses.at(-1)).toBe(want.flow);
    // No 5xx for anything the browser did; only the server's own failure, at the last request, is a 500 (JSON).
    for (const res of run.responses.slice(0, -1)) expect(res.status).toBeLessThan(500);
    const res = run.responses.at(-1)!;
    expect(res.status).toBe(want.status);
    expect(res.headers.get('location')).toBe(want.location);
    if (want.json) expect(JSON.parse(run.pages.at(-1)!)).toMatchObject(want.json);
    expect(run.t.logger.errorTypes()).toEqual(want.logged);
    expect(run.events.map((e) => e.name)).toEqual([...emitted(path), ...(signingIn && path.finalState === 'passed' ? ['signIn'] : [])]);
    expect(run.activity, 'one activity record per outcome').toEqual(activityOf(path, b));

    // Every answer before the last waited at the check: its page (or passkey options), sealed in the check's
    // cookie, and no session cookie. The last one sealed the cookie again if still waiting, else spent it.
    for (const r of run.responses.slice(0, -1)) {
      expect(r.status).toBe(200);
      expect(setsSession(r), 'no session cookie before the check passed').toBe(false);
      expect(r.setCookie.some((l) => l.startsWith(`${STAGE_COOKIE}=`) && !/max-age=0/i.test(l)), 'the check waits in its cookie').toBe(true);
    }
    const sealed = res.setCookie.some((l) => l.startsWith(`${STAGE_COOKIE}=`) && !/max-age=0/i.test(l));
    expect(sealed).toBe(path.finalState.startsWith('awaiting'));
    if (!sealed && run.responses.length > 1) expect(res.setCookie.some((l) => l.startsWith(`${STAGE_COOKIE}=;`) && /max-age=0/i.test(l)), 'the check cookie is spent').toBe(true);
    expect(setsSession(res), 'a session cookie only for a sign-in that passed').toBe(signingIn && path.finalState === 'passed');
    expectPages(run, path, b);
    expect(await factorRows(run.userId)).toEqual(rowsAfter(path, b, run.before.factors));

    if (path.finalState === 'showingCodes') {
      const codes = [...run.pages.at(-1)!.matchAll(/<li>([a-z2-9]{5}-[a-z2-9]{5})<\/li>/g)].map((m) => m[1]);
      expect(codes).toHaveLength(10);
      const stored = (await pg.adapter.listFactors(run.userId)).filter((f) => f.kind === 'backup').map((f) => f.secret);
      expect(stored.sort()).toEqual(codes.map(hashBackupCode).sort());
    }
    if (run.device && !path.events.some((e) => e.branch === O.gone)) {
      // The passkey's counter moves only with a verified assertion whose new counter the database took.
      const [passkey] = (await pg.db.query<{ counter: number }>('SELECT counter FROM authenticators WHERE user_id = $1', [run.userId])).rows;
      expect(Number(passkey.counter)).toBe(b.checkPasskey === P.valid ? 1 : 0);
    }
    await expectSession(run, path, refused);
  });
});

/** The first page of a check or an enrolment, and the forms it posts. */
function expectPages(run: Run, path: ModelPath, b: Record<string, string>) {
  const [first] = run.pages;
  if (!run.responses[0].setCookie.some((l) => l.startsWith(`${STAGE_COOKIE}=`) && !/max-age=0/i.test(l))) return;
  // Straight into an enrolment (nothing to check first), or the check: a sign-in's, or a signed-in user's.
  const enrolsFirst = (path.events as Labelled[])[2]?.type === 'xstate.done.actor.startEnrolment';
  expect(first).toContain(enrolsFirst ? 'Set up two-step verification' : b.START === A.signIn ? 'Two-step verification' : 'Confirm it is you');
  expect(first).toMatch(/action="[^"]*\/auth\/second-factor"/);
  if (b.assess === L.appAndPasskey) expect(first).toContain('data-action="authenticate">Use a passkey instead</button>');
  else expect(first).not.toContain('Use a passkey instead');
  if (path.finalState.startsWith('awaiting') && !path.events.filter(isRequest).at(-1)?.type.startsWith('PASSKEY')) {
    expect(run.pages.at(-1)).toContain(b.checkPasskey && path.events.at(-1)?.type === 'xstate.done.actor.checkPasskey' ? 'That passkey could not be verified' : 'did not match');
  }
}

/**
 * The session a path leaves. A sign-in that passed is a new session with both factors (`pwd otp`, verified now),
 * and none otherwise. A signed-in user's session records a check that passed on the way to what they came for
 * (`amr` gains its method, `auth_time` is now); their other sessions end when their factors changed.
 */
async function expectSession(run: Run, path: ModelPath, refused = false) {
  const select = 'SELECT session_token, amr, auth_time FROM sessions WHERE user_id = $1';
  const sessions = (await pg.db.query<{ session_token: string; amr: string; auth_time: Date }>(select, [run.userId])).rows;
  const ended = path.finalState === 'passed' || path.finalState === 'showingCodes';
  if (!run.before.elsewhere) {
    if (!ended) return expect(sessions, 'no session for the user').toEqual([]);
    expect(sessions).toHaveLength(1);
    expect(sessions[0].session_token).toBe(storedSessionToken(run.t.client.cookies.get(SESSION_COOKIE)!));
    expect(sessions[0].amr.split(' ')).toEqual(['pwd', 'otp']);
    expect(sessions[0].auth_time.getTime()).toBe(Date.now());
    return;
  }
  const own = sessions.find((s) => s.session_token === storedSessionToken(run.t.client.cookies.get(SESSION_COOKIE)!));
  expect(own, 'the browser is still signed in').toBeTruthy();
  const method = ended && !refused ? passedBy(path) : undefined;
  expect(own!.amr.split(' ')).toEqual(method ? ['pwd', method] : ['pwd']);
  if (method) expect(own!.auth_time.getTime()).toBe(Date.now());
  const changed = ended && !refused && path.events.some((e) => ['xstate.done.actor.activateFactor', 'xstate.done.actor.removeFactor', 'xstate.done.actor.replaceBackupCodes'].includes(e.type));
  expect(sessions.some((s) => s.session_token === run.before.elsewhere), 'the other session').toBe(!changed);
}

describe('second-factor machine coverage', () => {
  it('took every state and every transition of the machine', () => {
    coverage.assertComplete();
    const report = coverage.report();
    expect(report.states.covered).toBe(report.states.total);
    expect(report.transitions.covered).toBe(report.transitions.total);
  });
});
