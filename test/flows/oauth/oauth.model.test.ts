// Model-based tests of the OAuth/OIDC machine: paths generated from its graph, each one played through the HTTP
// layer against a real OpenID Provider, steered into its branch by configuration only (a dead issuer, a wrong
// client secret, a profile() or account() that throws...). The traces the runtime logs must follow the model path
// exactly, and together must cover every state and transition. A path that ends `authenticated` runs on through
// the standard sign-in tail; the tail's own branches, reached from OAuth, are checked at the end of this file.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, type AnyEventObject } from 'xstate';
import { PostgresAdapter } from '../../../src/adapters/postgres/index.js';
import type { Adapter } from '../../../src/core/adapter.js';
import { InvalidCheck, OAuthCallbackError, OAuthProfileParseError, OAuthSignInError } from '../../../src/core/errors.js';
import type { AuthConfig } from '../../../src/core/options.js';
import { traceEntriesFromMicrostep, transitionKey, type TraceEntry } from '../../../src/devtools/graph.js';
import type { FlowDeps } from '../../../src/flows/runtime/contract.js';
import { OAUTH_FLOW_TTL_MS, oauthMachine } from '../../../src/flows/oauth/machine.js';
import { OIDC } from '../../../src/providers/oauth.js';
import { testAuth, type TestAuth } from '../../support/auth-app.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { BASE, callbackOf, callbackWithCookie, expectFailure, flowCookieOf, flowCookieValue, loggedTraces, setsSession, withParam } from '../../e2e/oauth/harness.js';
import { startOidcProvider, type AccountClaims, type OidcProviderHarness } from '../../e2e/peers/oidc.js';

// ---- the model: every event the machine takes, with outputs and errors that drive each guard ----------------

const done = (actor: string, output?: unknown) => ({ type: `xstate.done.actor.${actor}`, output });
const failed = (actor: string, error: Error) => ({ type: `xstate.error.actor.${actor}`, error });
const user = { id: 'u1', email: 'u1@example.test' };
const account = { provider: 'model', type: 'oidc', providerAccountId: 'u1' };

const modelEvents: AnyEventObject[] = [
  { type: 'START', extraParams: {} },
  done('prepare', { url: 'https://op.test/auth', formPost: false, codeVerifier: 'v', state: 's', nonce: 'n' }),
  failed('prepare', new OAuthSignInError('prepare failed')),
  { type: 'CALLBACK', params: {}, at: 1_000 },
  { type: 'CALLBACK', params: {}, at: OAUTH_FLOW_TTL_MS + 1_000 },
  done('exchange', { tokens: { access_token: 'at' } }),
  // The exchange step checks the authorization response first: a tampered state, the provider's error= answer.
  failed('exchange', new InvalidCheck('state')),
  failed('exchange', new OAuthCallbackError('access_denied')),
  done('readProfile', { user, account, profile: { sub: 'u1' } }),
  failed('readProfile', new OAuthProfileParseError('profile() threw')),
  failed('readProfile', new OAuthCallbackError('user info failed')),
  // Not one of our typed errors: the app's own account() mapping threw.
  failed('readProfile', new TypeError('account() threw')),
];

// The model never runs an actor, so its deps are never read.
const modelInput = { deps: {} as FlowDeps, callbackUrl: `${BASE}/dashboard`, providerId: 'model', startedAt: 0 };

const paths = modelPaths(oauthMachine, {
  input: modelInput,
  events: () => modelEvents,
  // Guards read only the event (and the fixed startedAt), so the state value is enough to tell snapshots apart.
  stateKey: (snapshot) => JSON.stringify(snapshot.value),
});

/** The transitions a path takes in the model: the machine driven by the path's events, actors never settling. */
function modelTrace(path: ModelPath): string[] {
  const pending = fromPromise(() => new Promise<never>(() => {}));
  const names = ['prepare', 'exchange', 'readProfile'];
  const machine = oauthMachine.provide({ actors: Object.fromEntries(names.map((n) => [n, pending])) as never });
  const trace: TraceEntry[] = [];
  const actor = createActor(machine, { input: modelInput, inspect: (ev) => trace.push(...traceEntriesFromMicrostep(ev)) });
  actor.start();
  for (const event of path.events) actor.send(event as never);
  actor.stop();
  return trace.map(transitionKey);
}

// ---- from a path to a real sign-in -------------------------------------------------------------------------

interface Scenario {
  /** The actor that fails on this path, and the error type the model gives it. */
  fail?: { actor: string; type: string };
  expired: boolean;
}

function scenarioOf(path: ModelPath): Scenario {
  const s: Scenario = { expired: false };
  for (const event of path.events) {
    if (event.type === 'CALLBACK') s.expired = event.at > OAUTH_FLOW_TTL_MS;
    else if (event.type.startsWith('xstate.error.actor.')) s.fail = { actor: event.type.slice('xstate.error.actor.'.length), type: event.error.type ?? 'Error' };
  }
  return s;
}

const fails = (s: Scenario, actor: string, type?: string) => s.fail?.actor === actor && (type === undefined || s.fail.type === type);

const SECRET = 'model-client-secret-0123456789abcdef';
const people = Array.from({ length: 40 }, (_, i) => `m${i}`);
/** The users of the tail cases at the end of the file, one each. */
const tailPeople = Array.from({ length: 10 }, (_, i) => `t${i}`);
let op: OidcProviderHarness;
let db: PGlite;
/** An issuer nobody listens on: discovery against it fails for real (connection refused). */
let deadIssuer: string;

beforeAll(async () => {
  const accounts: Record<string, AccountClaims> = Object.fromEntries([...people, ...tailPeople].map((id) => [id, { email: `${id}@example.test`, email_verified: true, name: id }]));
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  deadIssuer = `http://127.0.0.1:${(probe.address() as { port: number }).port}`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  [op, db] = await Promise.all([
    startOidcProvider({
      accounts,
      clients: [{ client_id: 'model', client_secret: SECRET, redirect_uris: [callbackOf('model')], response_types: ['code'], grant_types: ['authorization_code'], token_endpoint_auth_method: 'client_secret_basic' }],
    }),
    PGlite.create(),
  ]);
  await PostgresAdapter(db).migrate();
}, 60_000);
afterAll(async () => {
  await op?.stop();
  if (db && !db.closed) await db.close();
});
afterEach(() => {
  vi.useRealTimers();
});

type ProviderOptions = Partial<Parameters<typeof OIDC>[0]>;

function providerFor(s: Scenario): ReturnType<typeof OIDC> {
  // The endpoints come from discovery, which fails for real against the dead issuer.
  const issuer = fails(s, 'prepare') ? deadIssuer : op.issuer;
  const options: ProviderOptions = {};
  // A user-info endpoint that answers 404: the profile cannot be read.
  if (fails(s, 'readProfile', 'OAuthCallbackError')) Object.assign(options, { idToken: false, userinfo: `${op.issuer}/no-such-userinfo` });
  if (fails(s, 'readProfile', 'OAuthProfileParseError')) {
    options.profile = () => {
      throw new Error('unexpected profile shape');
    };
  }
  if (fails(s, 'readProfile', 'Error')) {
    options.account = () => {
      throw new TypeError('cannot read properties of undefined');
    };
  }
  return OIDC({
    id: 'model',
    name: 'Model OP',
    issuer,
    clientId: 'model',
    clientSecret: SECRET,
    checks: ['pkce', 'state', 'nonce'],
    ...options,
  });
}

const isFinal = (state: string) => state === 'authenticated' || state.startsWith('failed.');

const errorTypes: Record<string, [string, string]> = {
  'failed.signInError': ['OAuthSignInError', 'Configuration'],
  'failed.callbackError': ['OAuthCallbackError', 'OAuthCallbackError'],
  'failed.invalidCheck': ['InvalidCheck', 'Configuration'],
  'failed.profileParse': ['OAuthProfileParseError', 'Configuration'],
  'failed.callbackRoute': ['CallbackRouteError', 'Configuration'],
};

/** What one sign-in left: the flow's own transitions and the tail's, across both requests, and the events fired. */
interface Played {
  flow: TraceEntry[];
  tail: TraceEntry[];
  events: string[];
  /** The activity records the sign-in wrote. */
  activity: { kind: string; reason?: string | null }[];
}

/** Logs in at the OP as `person` and brings the browser back, tampering on the way where the scenario says so. */
async function signIn(t: TestAuth, s: Scenario, person: string) {
  const start = await t.client.post(`/auth/signin/model`, { csrfToken: await t.csrfToken(), callbackUrl: `${BASE}/dashboard` });
  if (fails(s, 'prepare')) return start;
  expect(start.status).toBe(302);
  const nav = await op.login(start.location!.href, person, { cancel: fails(s, 'exchange', 'OAuthCallbackError') });
  if (fails(s, 'exchange', 'InvalidCheck')) nav.url = withParam(nav.url, 'state', 's'.repeat(43));
  if (!s.expired) return t.client.submit(nav);
  const cookie = `${flowCookieOf('model')}=${flowCookieValue(start, 'model')}`;
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + OAUTH_FLOW_TTL_MS + 5_000);
  return callbackWithCookie(t.client, nav, cookie);
}

function tracesOf(t: TestAuth): Omit<Played, 'events' | 'activity'> {
  const entries = loggedTraces(t).flatMap((r) => r.trace);
  return { flow: entries.filter((e) => e.machine === undefined), tail: entries.filter((e) => e.machine === 'signin') };
}

/** Plays one path through HTTP and answers the transitions the runtime logged. */
async function play(path: ModelPath, index: number): Promise<Played> {
  const s = scenarioOf(path);
  const events: string[] = [];
  const record = (name: string) => () => void events.push(name);
  const activity: { kind: string; reason?: string | null; correlationId: string; flow?: { machine: string } | null }[] = [];
  const t = testAuth({
    providers: [providerFor(s)],
    adapter: PostgresAdapter(db),
    session: { strategy: 'jwt' },
    activity: { sinks: [{ name: 'test', write: (records) => void activity.push(...records) }] },
    events: { signIn: record('signIn'), createUser: record('createUser'), linkAccount: record('linkAccount') },
  });
  const last = await signIn(t, s, people[index]);
  // The browser sees the outcome the path ends in (a path that stops mid-way runs on to a session).
  if (path.finalState === 'authenticated' || !isFinal(path.finalState)) {
    expect(last.location?.href).toBe(`${BASE}/dashboard`);
    expect(setsSession(last)).toBe(true);
  } else {
    const [type, publicType] = errorTypes[path.finalState];
    expectFailure(t, last, type, publicType);
  }
  return { ...tracesOf(t), events, activity };
}

// ---- the suite ----------------------------------------------------------------------------------------------

const coverage = createCoverage(oauthMachine);

describe('oauth machine, model-based through HTTP and a real OP', () => {
  it('has paths for every final state', () => {
    const finals = new Set(paths.map((p) => p.finalState));
    for (const state of ['authenticated', ...Object.keys(errorTypes)]) expect(finals.has(state), state).toBe(true);
  });

  paths.forEach((path, index) => {
    it(path.description, async () => {
      const { flow, tail, events, activity } = await play(path, index);
      coverage.record(flow);
      const expected = modelTrace(path);
      // A path that stops mid-way is a prefix of what the real flow did; any other is the whole of it.
      expect(isFinal(path.finalState) ? flow.map(transitionKey) : flow.map(transitionKey).slice(0, expected.length)).toEqual(expected);
      if (!path.finalState.startsWith('failed.')) {
        // Proven, then signed in by the standard tail with its default answers: a new user, linked, a session.
        expect(tail.at(-1)?.to).toBe('resolved');
        expect(events).toEqual(['createUser', 'linkAccount', 'signIn']);
        // The activity log: the new user's sign-up and sign-in, one record each, of the oauth machine's run.
        expect(activity.map((r) => r.kind)).toEqual(['signUp.completed', 'signIn.succeeded']);
      } else {
        expect(activity.map((r) => r.kind)).toEqual(['signIn.failed']);
        expect(activity[0].reason).toBe(errorTypes[path.finalState][0]);
        // A failed flow never reaches the tail: nothing is stored, no event fires.
        expect(tail).toEqual([]);
        expect(events).toEqual([]);
      }
    });
  });

  it('covers 100 % of states and transitions', () => {
    console.log(`${paths.length} paths\n${coverage.format()}`);
    coverage.assertComplete();
    const report = coverage.report();
    expect(report.states.covered).toBe(report.states.total);
    expect(report.transitions.covered).toBe(report.transitions.total);
  });
});

// ---- after `authenticated`: the tail's branches, reached from a real OAuth sign-in ---------------------------
// The tail is model-tested on its own; these pin what an OAuth sign-in gets from it: the OAuth linking rules
// (an address another user holds is OAuthAccountNotLinked), and database failures reported as AdapterError.

interface TailCase {
  /** The tail state the sign-in ends in. */
  state: string;
  /** Logged error type and the one the browser sees; absent when the sign-in succeeds or is redirected. */
  error?: [string, string];
  adapter?: (base: Adapter) => Adapter;
  callbacks?: AuthConfig['callbacks'];
  /** Another user already has the address the OP vouches for. */
  emailTaken?: boolean;
}

const tailCases: [string, TailCase][] = [
  ['getUserByAccount fails', { state: 'failed.callbackRoute', error: ['AdapterError', 'Configuration'], adapter: (base) => ({ ...base, getUserByAccount: () => Promise.reject(new Error('relation "accounts" is unavailable')) }) }],
  ['the signIn callback answers a URL', { state: 'redirected', callbacks: { signIn: () => `${BASE}/elsewhere` } }],
  ['the signIn callback answers false', { state: 'failed.accessDenied', error: ['AccessDenied', 'AccessDenied'], callbacks: { signIn: () => false } }],
  [
    'the signIn callback throws',
    {
      state: 'failed.accessDenied',
      error: ['AccessDenied', 'AccessDenied'],
      callbacks: {
        signIn: () => {
          throw new Error('signIn callback failed');
        },
      },
    },
  ],
  ['the address belongs to another user', { state: 'failed.oauthAccountNotLinked', error: ['OAuthAccountNotLinked', 'OAuthAccountNotLinked'], emailTaken: true }],
  // Without a transaction the account write is a separate statement that can fail on its own.
  ['linkAccount fails', { state: 'failed.callbackRoute', error: ['AdapterError', 'Configuration'], adapter: (base) => ({ ...base, withTransaction: undefined, linkAccount: () => Promise.reject(new Error('accounts table is read-only')) }) }],
  ['the jwt callback returns null', { state: 'resolved', error: ['AccessDenied', 'AccessDenied'], callbacks: { jwt: () => null } }],
  [
    'the jwt callback throws',
    {
      // The tail resolved the user; issuing the session (the runtime's step after it) failed.
      state: 'resolved',
      error: ['CallbackRouteError', 'Configuration'],
      callbacks: {
        jwt: () => {
          throw new Error('jwt callback failed');
        },
      },
    },
  ],
];

describe('oauth sign-ins through the standard tail', () => {
  it.each(tailCases.map(([name, c], i) => [name, c, tailPeople[i]] as const))('%s', async (_name, c, person) => {
    if (c.emailTaken) await PostgresAdapter(db).createUser!({ id: randomUUID(), email: `${person}@example.test`, emailVerified: null, name: 'Someone else' });
    const base = PostgresAdapter(db);
    const t = testAuth({
      providers: [providerFor({ expired: false })],
      adapter: c.adapter ? c.adapter(base) : base,
      session: { strategy: 'jwt' },
      callbacks: c.callbacks,
    });
    const last = await signIn(t, { expired: false }, person);
    const { flow, tail } = tracesOf(t);
    expect(flow.at(-1)?.to).toBe('authenticated');
    expect(tail.at(-1)?.to).toBe(c.state);
    if (c.error) expectFailure(t, last, ...c.error);
    else {
      expect(last.location?.href).toBe(`${BASE}/elsewhere`);
      expect(setsSession(last)).toBe(false);
    }
  });
});
