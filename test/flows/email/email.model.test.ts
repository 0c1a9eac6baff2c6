// Model-based tests of the e-mail flow: paths generated from `emailMachine` (with and without the confirmation
// page), each one played through the HTTP layer with a configuration that makes the real flow take exactly that
// path, against PostgreSQL on PGlite. The traces the runtime logs are checked against the path and feed coverage.
import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { initialTransition, transition, type AnyEventObject, type AnyMachineSnapshot } from 'xstate';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { adapterMethods, type Adapter } from '../../src/core/adapter.js';
import { AccessDenied, AdapterError } from '../../src/core/errors.js';
import type { AuthConfig } from '../../src/core/options.js';
import { emailMachine } from '../../src/machines/email.js';
import type { TraceEntry } from '../../src/devtools/graph.js';
import { Email } from '../../src/providers/email.js';
import { readForms } from '../e2e/peers/html-form.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import type { ClientResponse } from '../support/client.js';
import { createCoverage } from '../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../support/model-paths.js';

const SESSION_COOKIE = 'authchart.session-token';
const MAX_AGE = 600;
const FUTURE = Date.now() + 3_600_000;

/** An event the model sends, labelled with how the HTTP run makes the real flow produce it. */
type Labelled = AnyEventObject & { branch: string };

const done = (actor: string, branch: string, output: unknown): Labelled => ({ type: `xstate.done.actor.${actor}`, branch, output });
const failed = (actor: string, branch: string, error: unknown): Labelled => ({ type: `xstate.error.actor.${actor}`, branch, error });
const dbFails = (actor: string) => failed(actor, 'the database fails', new AdapterError('injected'));

const modelUser = { id: 'model-user', email: 'model@example.test', emailVerified: null };

const events: Labelled[] = [
  { type: 'REQUEST', branch: 'the sign-in form', email: modelUser.email },
  { type: 'OPEN_LINK', branch: 'the mailed link', token: 'token', email: modelUser.email },
  { type: 'OPEN_LINK', branch: 'a link without its token', email: modelUser.email },
  { type: 'CONFIRM', branch: 'the confirmation form' },
  done('normalize', 'a valid address', modelUser.email),
  failed('normalize', 'an invalid address', new TypeError('not an address')),
  done('findUser', 'no user yet', null),
  done('findUser', 'a stored user', modelUser),
  dbFails('findUser'),
  done('checkSignIn', 'signIn returns true', { allowed: true }),
  done('checkSignIn', 'signIn returns a URL', { allowed: false, redirect: `${ORIGIN}/elsewhere` }),
  done('checkSignIn', 'signIn returns false', { allowed: false }),
  failed('checkSignIn', 'signIn throws', new Error('signIn crashed')),
  done('storeToken', 'stored', { token: 'token', expires: FUTURE }),
  dbFails('storeToken'),
  done('sendLink', 'sent', undefined),
  failed('sendLink', 'the mail server refuses', new Error('550 mailbox unavailable')),
  done('revokeToken', 'revoked', undefined),
  dbFails('revokeToken'),
  done('peekToken', 'stored', { expires: FUTURE }),
  done('peekToken', 'not stored (wrong token)', null),
  done('peekToken', 'stored but expired', { expires: 0 }),
  done('peekToken', 'the adapter cannot look', 'unchecked'),
  dbFails('peekToken'),
  done('consumeToken', 'found', { expires: FUTURE }),
  done('consumeToken', 'not found', null),
  done('consumeToken', 'found but expired', { expires: 0 }),
  dbFails('consumeToken'),
  done('createUser', 'created', modelUser),
  dbFails('createUser'),
  done('markVerified', 'updated', modelUser),
  dbFails('markVerified'),
  done('issueSession', 'session issued', undefined),
  failed('issueSession', 'jwt returns null', new AccessDenied('no token')),
  failed('issueSession', 'jwt throws', new Error('jwt crashed')),
];

type Variant = 'confirm' | 'one-click';
const providerIds: Record<Variant, string> = { confirm: 'email', 'one-click': 'oneclick' };

function inputFor(variant: Variant) {
  return { callbackUrl: `${ORIGIN}/dashboard`, providerId: providerIds[variant], startedAt: 0, confirm: variant === 'confirm', verifyRequestUrl: '' };
}

/** The state values a path passes through, one per event, computed with xstate's pure `transition`. */
function statesAlong(variant: Variant, path: { events: AnyEventObject[] }): string[] {
  let [snapshot] = initialTransition(emailMachine, inputFor(variant));
  return path.events.map((event) => {
    [snapshot] = transition(emailMachine, snapshot, event as never);
    return JSON.stringify(snapshot.value);
  });
}

/**
 * The model's paths, each ending in a final state: a path that stops midway (its continuations are already
 * on other paths) is completed with the rest of a path that passes through the same state, since the run
 * over HTTP can only stop where the flow stops.
 */
function pathsFor(variant: Variant): ModelPath[] {
  const paths = modelPaths(emailMachine, {
    events: (_snapshot: AnyMachineSnapshot) => events,
    input: inputFor(variant),
    // Guards read only the event and `confirm`, which is fixed per variant: the state value tells snapshots apart.
    stateKey: (snapshot) => JSON.stringify(snapshot.value),
  });
  const isFinal = (id: string) => id === 'linkSent' || id === 'done' || id === 'redirected' || id.startsWith('failed.');
  // Prefer finishing with a sign-in or a sent link: the happy continuation says most about the branch before it.
  const rank = (id: string) => (id === 'done' || id === 'linkSent' ? 0 : 1);
  const complete = paths.filter((p) => isFinal(p.finalState)).sort((a, b) => rank(a.finalState) - rank(b.finalState));
  const short = (type: string) => type.replace(/^xstate\.(done|error)\.actor\.(.+)$/, '$1: $2');
  return paths.map((path) => {
    if (isFinal(path.finalState)) return path;
    const end = statesAlong(variant, path).at(-1);
    for (const other of complete) {
      const at = statesAlong(variant, other).indexOf(end!);
      if (at >= 0) {
        const events = [...path.events, ...other.events.slice(at + 1)];
        return { events, finalState: other.finalState, description: `reaches ${other.finalState}: ${events.map((e) => short(e.type)).join(' → ')} (via ${path.finalState})` };
      }
    }
    throw new Error(`no way to finish ${path.description}`);
  });
}

/** The branch of every event on a path, by actor name (or event type); a path runs within one request phase. */
function branchesOf(path: ModelPath): Record<string, string> {
  const out: Record<string, string> = {};
  for (const event of path.events as Labelled[]) {
    const actor = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(event.type)?.[1] ?? event.type;
    out[actor] = event.branch;
  }
  return out;
}

// The adapter method each actor's "the database fails" branch breaks.
const faultFor: Record<string, string> = {
  findUser: 'getUserByEmail',
  storeToken: 'createVerificationToken',
  revokeToken: 'useVerificationToken',
  peekToken: 'getVerificationToken',
  consumeToken: 'useVerificationToken',
  createUser: 'createUser',
  markVerified: 'updateUser',
};

let db: PGlite;
let stored: Adapter;
const faults = new Set<string>();

/**
 * The real PostgreSQL adapter, with the methods named in `faults` failing as a broken database would; `canPeek`
 * false drops the `getVerificationToken` extension, as an Auth.js adapter lacks it.
 */
function faultyAdapter(canPeek: boolean): Adapter {
  const out: Record<string, unknown> = {};
  for (const method of [...adapterMethods, ...(canPeek ? ['getVerificationToken'] : [])]) {
    const fn = (stored as Record<string, unknown>)[method];
    if (typeof fn !== 'function') continue;
    out[method] = (...args: unknown[]) => {
      if (faults.has(method)) throw new Error(`connection terminated (injected into ${method})`);
      return (fn as (...a: unknown[]) => unknown).apply(stored, args);
    };
  }
  return out as Adapter;
}

beforeAll(async () => {
  db = await PGlite.create();
  stored = PostgresAdapter(db);
  await (stored as ReturnType<typeof PostgresAdapter>).migrate();
}, 30_000);
afterAll(async () => {
  if (db && !db.closed) await db.close();
});

interface Scenario {
  signIn: string;
  send: string;
  issue: string;
}
const allGood: Scenario = { signIn: 'signIn returns true', send: 'sent', issue: 'session issued' };
let scenario: Scenario = allGood;
const outbox: { identifier: string; url: string }[] = [];

function instance(emitted: string[], canPeek: boolean): TestAuth {
  const send = async ({ identifier, url }: { identifier: string; url: string }) => {
    if (scenario.send === 'the mail server refuses') throw new Error('550 mailbox unavailable');
    outbox.push({ identifier, url });
  };
  const record = (name: string) => async () => void emitted.push(name);
  const config: Partial<AuthConfig> = {
    adapter: faultyAdapter(canPeek),
    // JWT sessions, so that the jwt callback can refuse at issue time (the AccessDenied branch of issuingSession).
    session: { strategy: 'jwt' },
    callbacks: {
      signIn: async () => {
        if (scenario.signIn === 'signIn throws') throw new Error('signIn crashed');
        if (scenario.signIn === 'signIn returns a URL') return '/elsewhere';
        return scenario.signIn === 'signIn returns true';
      },
      jwt: async ({ token }) => {
        if (scenario.issue === 'jwt returns null') return null;
        if (scenario.issue === 'jwt throws') throw new Error('jwt crashed');
        return token;
      },
    },
    events: { createUser: record('createUser'), updateUser: record('updateUser'), signIn: record('signIn') },
  };
  return testAuth({
    providers: [
      Email({ id: 'email', maxAge: MAX_AGE, sendVerificationRequest: send }),
      Email({ id: 'oneclick', maxAge: MAX_AGE, confirm: false, sendVerificationRequest: send }),
    ],
    ...config,
  });
}

interface Run {
  t: TestAuth;
  res: ClientResponse;
  email: string;
  emitted: string[];
  trace: TraceEntry[];
  statuses: string[];
  mailed: boolean;
}

/** Requests a real link for `email` with everything succeeding, outside the path under test. */
async function mailedLink(t: TestAuth, providerId: string, email: string): Promise<string> {
  const csrfToken = await t.csrfToken();
  const res = await t.client.post(`/auth/signin/${providerId}`, { csrfToken, email, callbackUrl: '/dashboard' });
  expect(res.location?.href, 'setup: link requested').toBe(`${ORIGIN}/auth/verify-request?provider=${providerId}&type=email`);
  const mail = outbox.find((m) => m.identifier === email);
  if (!mail) throw new Error('setup: no link was sent');
  return mail.url;
}

/** Configures the instance so that the real flow takes the path's branches, then makes the path's requests. */
async function play(variant: Variant, path: ModelPath): Promise<Run> {
  const b = branchesOf(path);
  const providerId = providerIds[variant];
  const email = `m-${randomUUID()}@model.test`;
  const emitted: string[] = [];
  const t = instance(emitted, b.peekToken !== 'the adapter cannot look');
  scenario = allGood;
  faults.clear();
  vi.useFakeTimers({ toFake: ['Date'] });
  const t0 = Date.now();
  vi.setSystemTime(t0);
  try {
    let link: string | undefined;
    if (b.OPEN_LINK === 'the mailed link') {
      link = await mailedLink(t, providerId, email);
      outbox.length = 0;
      // With the confirmation page the link is looked up on opening: a wrong or expired one stops there, and the
      // consume step can only miss a token used up (or expire) between opening and confirming.
      const oneClick = variant === 'one-click';
      if (b.peekToken === 'not stored (wrong token)' || (oneClick && b.consumeToken === 'not found')) {
        const url = new URL(link);
        url.searchParams.set('token', 'f'.repeat(64));
        link = url.href;
      }
      if (b.peekToken === 'stored but expired' || (oneClick && b.consumeToken === 'found but expired')) vi.setSystemTime(t0 + MAX_AGE * 1000 + 1000);
    }
    if (b.findUser === 'a stored user') await stored.createUser!({ id: randomUUID(), email, emailVerified: null });
    for (const [actor, branch] of Object.entries(b)) if (branch === 'the database fails') faults.add(faultFor[actor]);
    scenario = { signIn: b.checkSignIn ?? allGood.signIn, send: b.sendLink ?? allGood.send, issue: b.issueSession ?? allGood.issue };

    const mark = t.logger.debugs.length;
    let res: ClientResponse;
    const first = path.events[0].type;
    if (first === 'REQUEST') {
      const typed = b.normalize === 'an invalid address' ? 'not an address' : `  ${email.toUpperCase()} `;
      const csrfToken = await t.csrfToken();
      res = await t.client.post(`/auth/signin/${providerId}`, { csrfToken, email: typed, callbackUrl: '/dashboard' });
    } else if (first === 'CONFIRM') {
      // Someone posts the confirmation form without having opened a link in this browser.
      const csrfToken = await t.csrfToken();
      res = await t.client.post(`/auth/callback/${providerId}`, { csrfToken });
    } else if (b.OPEN_LINK === 'a link without its token') {
      res = await t.client.get(`/auth/callback/${providerId}?email=${encodeURIComponent(email)}&callbackUrl=%2Fdashboard`);
    } else {
      res = await t.client.get(link!);
      if (b.CONFIRM) {
        expect(res.status, 'the confirmation page').toBe(200);
        const page = res;
        const body = await page.text();
        // The address is named only when a stored token was found for it.
        expect(body.includes(email), 'the page names the address').toBe(b.peekToken === 'stored');
        if (b.consumeToken === 'not found') await db.query('DELETE FROM verification_token WHERE identifier = $1', [email]);
        if (b.consumeToken === 'found but expired') vi.setSystemTime(t0 + MAX_AGE * 1000 + 1000);
        const [form] = readForms(body);
        res = await t.client.post(new URL(form.action, page.requestUrl), form.fields);
      }
    }
    const logged = t.logger.debugs.slice(mark).filter((d) => d.message.startsWith('flow email '));
    const trace = logged.flatMap((d) => (d.metadata as { trace: TraceEntry[] }).trace);
    return { t, res, email, emitted, trace, statuses: logged.map((d) => d.message.slice('flow email '.length)), mailed: outbox.some((m) => m.identifier === email) };
  } finally {
    faults.clear();
    scenario = allGood;
    vi.useRealTimers();
  }
}

/** What the browser must see, and what must be logged, at the end of each final state. */
function expectedFor(path: ModelPath, b: Record<string, string>, providerId: string): { status: string; location: string; logged: string[] } {
  const error = (type: string) => `${ORIGIN}/auth/error?error=${type}`;
  const emailSignInError = `${ORIGIN}/auth/signin?error=EmailSignInError`;
  switch (path.finalState) {
    case 'linkSent':
      return { status: 'redirected', location: `${ORIGIN}/auth/verify-request?provider=${providerId}&type=email`, logged: [] };
    case 'done':
      return { status: 'signedIn', location: `${ORIGIN}/dashboard`, logged: [] };
    case 'redirected':
      return { status: 'redirected', location: `${ORIGIN}/elsewhere`, logged: [] };
    case 'failed.invalidAddress':
    case 'failed.emailSignIn':
      return { status: 'failed', location: emailSignInError, logged: ['EmailSignInError'] };
    case 'failed.accessDenied':
      return { status: 'failed', location: error('AccessDenied'), logged: ['AccessDenied'] };
    case 'failed.linkMalformed':
    case 'failed.confirmationExpired':
    case 'failed.linkUnknown':
    case 'failed.linkExpired':
      return { status: 'failed', location: error('Verification'), logged: ['Verification'] };
    case 'failed.callbackRoute': {
      const adapterFailed = Object.values(b).includes('the database fails');
      return { status: 'failed', location: error('Configuration'), logged: [adapterFailed ? 'AdapterError' : 'CallbackRouteError'] };
    }
    default:
      throw new Error(`no expectation for ${path.finalState}`);
  }
}

const coverage = createCoverage(emailMachine);
const variants: Variant[] = ['confirm', 'one-click'];
const pathsByVariant = new Map(variants.map((v) => [v, pathsFor(v)] as const));

afterAll(() => {
  console.log(`flow coverage: ${coverage.format()}`);
});

describe.each(variants)('email flow, model paths (%s)', (variant) => {
  const paths = pathsByVariant.get(variant)!;
  const providerId = providerIds[variant];

  it.each(paths.map((p) => [`${p.description} [${Object.values(branchesOf(p)).join(', ')}]`, p] as const))('%s', async (_name, path) => {
    const b = branchesOf(path);
    const want = expectedFor(path, b, providerId);
    const run = await play(variant, path);
    coverage.record(run.trace);

    // The real flow took the model's path, transition by transition, across the requests it needed.
    expect(run.trace.map((e) => e.event)).toEqual(path.events.map((e) => e.type));
    expect(run.trace.at(-1)?.to).toBe(path.finalState);
    expect(run.statuses.at(-1)).toBe(want.status);
    if (b.CONFIRM && b.OPEN_LINK) expect(run.statuses[0]).toBe('paused');

    expect(run.res.status).toBe(302);
    expect(run.res.headers.get('location')).toBe(want.location);
    const sessionCookies = run.res.setCookie.filter((line) => line.startsWith(`${SESSION_COOKIE}=`) && !/max-age=0/i.test(line));
    expect(sessionCookies.length > 0, 'a session cookie is set').toBe(path.finalState === 'done');
    expect(run.t.logger.errorTypes()).toEqual(want.logged);

    // Side effects: events where they happened, mail only when the flow says it was sent.
    const wantEmitted = [
      ...(b.createUser === 'created' ? ['createUser'] : []),
      ...(b.markVerified === 'updated' ? ['updateUser'] : []),
      ...(path.finalState === 'done' ? ['signIn'] : []),
    ];
    expect(run.emitted).toEqual(wantEmitted);
    expect(run.mailed).toBe(path.finalState === 'linkSent');

    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM verification_token WHERE identifier = $1', [run.email]);
    const tokenLeft =
      path.finalState === 'linkSent' || // the new link waits to be used
      b.revokeToken === 'the database fails' || // the unsent token could not be removed (and the log says so)
      b.peekToken === 'not stored (wrong token)' || // the real token was never presented
      b.peekToken === 'stored but expired' || // opening a link uses nothing up
      b.peekToken === 'the database fails' ||
      (variant === 'one-click' && b.consumeToken === 'not found') || // the real token was never presented
      b.consumeToken === 'the database fails';
    expect(rows[0].n, 'tokens stored for the address').toBe(tokenLeft ? 1 : 0);

    if (path.finalState === 'done') {
      const session = (await (await run.t.client.get('/auth/session')).json()) as { user?: { email?: string } } | null;
      expect(session?.user?.email).toBe(run.email);
      const user = await stored.getUserByEmail!(run.email);
      expect(user?.emailVerified).toBeInstanceOf(Date);
    }
    if (b.revokeToken === 'the database fails') {
      const error = run.t.logger.errors[0] as { cause?: { expected?: unknown; actual?: unknown; err?: Error } };
      expect(error.cause?.err?.message).toBe('550 mailbox unavailable');
      expect(String(error.cause?.actual)).toMatch(/^still stored: /);
    }
  });
});

describe('email flow coverage', () => {
  it('took every state and every transition of the machine', () => {
    const report = coverage.report();
    expect(report.states.total).toBeGreaterThan(20);
    coverage.assertComplete();
    expect(report.transitions.covered).toBe(report.transitions.total);
  });
});
