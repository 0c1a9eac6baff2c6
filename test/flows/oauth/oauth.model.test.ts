// Model-based tests of the OAuth/OIDC machine: paths generated from its graph, each one played through the HTTP
// layer against a real OpenID Provider, steered into its branch by configuration only (a dead issuer, a wrong
// client secret, a profile() that throws, an adapter that fails, a signIn callback's answer...). The traces the
// runtime logs must follow the model path exactly, and together must cover every state and transition.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, type AnyEventObject } from 'xstate';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import type { Adapter } from '../../src/core/adapter.js';
import { AccessDenied, AdapterError, InvalidCheck, OAuthAccountNotLinked, OAuthCallbackError, OAuthProfileParseError, OAuthSignInError } from '../../src/core/errors.js';
import type { AuthConfig } from '../../src/core/options.js';
import { traceEntriesFromMicrostep, transitionKey, type TraceEntry } from '../../src/devtools/graph.js';
import { OAUTH_FLOW_TTL_MS, oauthMachine } from '../../src/machines/oauth.js';
import { OIDC } from '../../src/providers/oauth.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';
import { createCoverage } from '../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../support/model-paths.js';
import { BASE, callbackOf, callbackWithCookie, expectFailure, flowCookieOf, flowCookieValue, loggedTraces, setsSession, startSignIn, withParam } from '../e2e/oauth/harness.js';
import { startOidcProvider, type AccountClaims, type OidcProviderHarness } from '../e2e/peers/oidc.js';

// ---- the model: every event the machine takes, with outputs and errors that drive each guard ----------------

const done = (actor: string, output?: unknown) => ({ type: `xstate.done.actor.${actor}`, output });
const failed = (actor: string, error: Error) => ({ type: `xstate.error.actor.${actor}`, error });
const user = { id: 'u1', email: 'u1@example.test' };
const account = { provider: 'model', type: 'oidc', providerAccountId: 'u1' };

const modelEvents: AnyEventObject[] = [
  { type: 'START', extraParams: {}, discover: true },
  { type: 'START', extraParams: {}, discover: false },
  done('discover'),
  failed('discover', new OAuthSignInError('discovery failed')),
  done('prepare', { url: 'https://op.test/auth', formPost: false, codeVerifier: 'v', state: 's', nonce: 'n' }),
  failed('prepare', new OAuthSignInError('prepare failed')),
  { type: 'CALLBACK', params: {}, at: 1_000 },
  { type: 'CALLBACK', params: {}, at: OAUTH_FLOW_TTL_MS + 1_000 },
  done('validate'),
  failed('validate', new InvalidCheck('state')),
  failed('validate', new OAuthCallbackError('access_denied')),
  done('exchange', { tokens: { access_token: 'at' } }),
  failed('exchange', new InvalidCheck('nonce')),
  failed('exchange', new OAuthCallbackError('invalid_client')),
  done('readProfile', { user, account, profile: { sub: 'u1' } }),
  failed('readProfile', new OAuthProfileParseError('profile() threw')),
  failed('readProfile', new OAuthCallbackError('user info failed')),
  done('findOwner', null),
  failed('findOwner', new AdapterError('getUserByAccount failed')),
  done('checkSignIn', { allowed: true }),
  done('checkSignIn', { allowed: false, redirect: `${BASE}/elsewhere` }),
  done('checkSignIn', { allowed: false }),
  failed('checkSignIn', new Error('signIn threw')),
  done('link', { user, isNewUser: true, created: true, linked: true }),
  failed('link', new OAuthAccountNotLinked('e-mail taken')),
  failed('link', new AdapterError('linkAccount failed')),
  done('issueSession'),
  failed('issueSession', new AccessDenied('jwt returned null')),
  failed('issueSession', new Error('jwt threw')),
];

const paths = modelPaths(oauthMachine, {
  input: { callbackUrl: `${BASE}/dashboard`, startedAt: 0 },
  events: () => modelEvents,
  // Guards read only the event, so the state value is enough to tell snapshots apart.
  stateKey: (snapshot) => JSON.stringify(snapshot.value),
});

/** The transitions a path takes in the model: the machine driven by the path's events, actors never settling. */
function modelTrace(path: ModelPath): string[] {
  const pending = fromPromise(() => new Promise<never>(() => {}));
  const names = ['discover', 'prepare', 'validate', 'exchange', 'readProfile', 'findOwner', 'checkSignIn', 'link', 'issueSession'];
  const machine = oauthMachine.provide({ actors: Object.fromEntries(names.map((n) => [n, pending])) as never });
  const trace: TraceEntry[] = [];
  const actor = createActor(machine, { input: { callbackUrl: `${BASE}/dashboard`, startedAt: 0 }, inspect: (ev) => trace.push(...traceEntriesFromMicrostep(ev)) });
  actor.start();
  for (const event of path.events) actor.send(event as never);
  actor.stop();
  return trace.map(transitionKey);
}

// ---- from a path to a real sign-in -------------------------------------------------------------------------

interface Scenario {
  discover: boolean;
  /** The actor that fails on this path, and the error type the model gives it. */
  fail?: { actor: string; type: string };
  expired: boolean;
  signIn: 'allow' | 'redirect' | 'deny' | 'throw';
}

function scenarioOf(path: ModelPath): Scenario {
  const s: Scenario = { discover: false, expired: false, signIn: 'allow' };
  for (const event of path.events) {
    if (event.type === 'START') s.discover = event.discover;
    else if (event.type === 'CALLBACK') s.expired = event.at > OAUTH_FLOW_TTL_MS;
    else if (event.type.startsWith('xstate.error.actor.')) s.fail = { actor: event.type.slice('xstate.error.actor.'.length), type: event.error.type ?? 'Error' };
    else if (event.type === 'xstate.done.actor.checkSignIn') s.signIn = event.output.allowed ? 'allow' : event.output.redirect ? 'redirect' : 'deny';
  }
  if (s.fail?.actor === 'checkSignIn') s.signIn = 'throw';
  return s;
}

const fails = (s: Scenario, actor: string, type?: string) => s.fail?.actor === actor && (type === undefined || s.fail.type === type);

const SECRET = 'model-client-secret-0123456789abcdef';
const people = Array.from({ length: 40 }, (_, i) => `m${i}`);
let op: OidcProviderHarness;
let db: PGlite;
/** An issuer nobody listens on: discovery against it fails for real (connection refused). */
let deadIssuer: string;

beforeAll(async () => {
  const accounts: Record<string, AccountClaims> = Object.fromEntries(people.map((id) => [id, { email: `${id}@example.test`, email_verified: true, name: id }]));
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

/** The adapter for a scenario: PostgreSQL on PGlite, with one method made to fail where the path says so. */
function adapterFor(s: Scenario): Adapter {
  const base = PostgresAdapter(db);
  if (fails(s, 'findOwner')) return { ...base, getUserByAccount: async () => Promise.reject(new Error('relation "accounts" is unavailable')) };
  // Without a transaction the account write is a separate statement that can fail on its own.
  if (fails(s, 'link', 'AdapterError')) return { ...base, withTransaction: undefined, linkAccount: async () => Promise.reject(new Error('accounts table is read-only')) };
  return base;
}

function configFor(s: Scenario): Partial<AuthConfig> & Pick<AuthConfig, 'providers'> {
  const issuer = (s.discover && fails(s, 'discover')) || (!s.discover && fails(s, 'prepare')) ? deadIssuer : op.issuer;
  const userinfoFails = fails(s, 'readProfile', 'OAuthCallbackError');
  // Without discovery every endpoint the flow needs is configured (needsDiscovery is false).
  const endpoints = s.discover ? {} : { authorization: `${op.issuer}/auth`, token: `${op.issuer}/token` };
  const provider = OIDC({
    id: 'model',
    name: 'Model OP',
    issuer,
    ...endpoints,
    clientId: 'model',
    clientSecret: fails(s, 'exchange', 'OAuthCallbackError') ? 'not-the-secret' : SECRET,
    checks: ['pkce', 'state', 'nonce'],
    // A user-info endpoint that answers 404: the profile cannot be read.
    ...(userinfoFails ? { idToken: false, userinfo: `${op.issuer}/no-such-userinfo` } : {}),
    ...(fails(s, 'readProfile', 'OAuthProfileParseError')
      ? {
          profile: () => {
            throw new Error('unexpected profile shape');
          },
        }
      : {}),
  });
  return {
    providers: [provider],
    adapter: adapterFor(s),
    session: { strategy: 'jwt' },
    callbacks: {
      signIn: () => {
        if (s.signIn === 'throw') throw new Error('signIn callback failed');
        return s.signIn === 'allow' ? true : s.signIn === 'redirect' ? `${BASE}/elsewhere` : false;
      },
      jwt: ({ token }) => {
        if (fails(s, 'issueSession', 'AccessDenied')) return null;
        if (fails(s, 'issueSession')) throw new Error('jwt callback failed');
        return token;
      },
    },
  };
}

const isFinal = (state: string) => state === 'done' || state === 'redirected' || state.startsWith('failed.');

const errorTypes: Record<string, [string, string]> = {
  'failed.signInError': ['OAuthSignInError', 'Configuration'],
  'failed.callbackError': ['OAuthCallbackError', 'OAuthCallbackError'],
  'failed.invalidCheck': ['InvalidCheck', 'Configuration'],
  'failed.profileParse': ['OAuthProfileParseError', 'Configuration'],
  'failed.accountNotLinked': ['OAuthAccountNotLinked', 'OAuthAccountNotLinked'],
  'failed.accessDenied': ['AccessDenied', 'AccessDenied'],
  'failed.callbackRoute': ['CallbackRouteError', 'Configuration'],
};

/** Plays one path through HTTP and answers the transitions the runtime logged, across both requests. */
async function play(path: ModelPath, index: number): Promise<TraceEntry[]> {
  const s = scenarioOf(path);
  const person = people[index];
  if (fails(s, 'link', 'OAuthAccountNotLinked')) {
    await PostgresAdapter(db).createUser!({ id: randomUUID(), email: `${person}@example.test`, emailVerified: null, name: 'Someone else' });
  }
  const t: TestAuth = testAuth(configFor(s));
  const start = await t.client.post(`/auth/signin/model`, { csrfToken: await t.csrfToken(), callbackUrl: `${BASE}/dashboard` });
  let last = start;
  if (path.finalState !== 'failed.signInError') {
    expect(start.status).toBe(302);
    let authorization = start.location!.href;
    if (fails(s, 'exchange', 'InvalidCheck')) authorization = withParam(authorization, 'nonce', 'n'.repeat(43));
    const nav = await op.login(authorization, person, { cancel: fails(s, 'validate', 'OAuthCallbackError') });
    if (fails(s, 'validate', 'InvalidCheck')) nav.url = withParam(nav.url, 'state', 's'.repeat(43));
    if (s.expired) {
      const cookie = `${flowCookieOf('model')}=${flowCookieValue(start, 'model')}`;
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + OAUTH_FLOW_TTL_MS + 5_000);
      last = await callbackWithCookie(t.client, nav, cookie);
    } else {
      last = await t.client.submit(nav);
    }
  }
  // The browser sees the outcome the path ends in (a path that stops mid-way runs on to a session).
  if (path.finalState === 'done' || !isFinal(path.finalState)) {
    expect(last.location?.href).toBe(`${BASE}/dashboard`);
    expect(setsSession(last)).toBe(true);
  } else if (path.finalState === 'redirected') {
    expect(last.location?.href).toBe(`${BASE}/elsewhere`);
    expect(setsSession(last)).toBe(false);
  } else {
    const [type, publicType] = errorTypes[path.finalState];
    // A database failure is reported as itself, whichever state caught it.
    expectFailure(t, last, fails(s, 'findOwner') || fails(s, 'link', 'AdapterError') ? 'AdapterError' : type, publicType);
  }
  return loggedTraces(t).flatMap((r) => r.trace);
}

// ---- the suite ----------------------------------------------------------------------------------------------

const coverage = createCoverage(oauthMachine);

describe('oauth machine, model-based through HTTP and a real OP', () => {
  it('has paths for every final state', () => {
    const finals = new Set(paths.map((p) => p.finalState));
    for (const state of ['done', 'redirected', ...Object.keys(errorTypes)]) expect(finals.has(state), state).toBe(true);
  });

  paths.forEach((path, index) => {
    it(path.description, async () => {
      const trace = await play(path, index);
      coverage.record(trace);
      const expected = modelTrace(path);
      // A path that stops mid-way is a prefix of what the real flow did; any other is the whole of it.
      expect(isFinal(path.finalState) ? trace.map(transitionKey) : trace.map(transitionKey).slice(0, expected.length)).toEqual(expected);
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
