// No way around the second factor (issue 18): for every first-factor flow (credentials, OIDC against a real OP with
// and without discovery, magic links one-click and confirmed, passkeys signing in or registered, a custom flow), the
// routes into `authenticated` are generated from the flow machine's own graph, and each is walked over HTTP for a
// user with an active authenticator app. Every one must end at the stage (its page and cookie, no session cookie,
// no signIn event); a wrong code must not pass it; only the right code issues the session. A route added to a
// machine later and not walked here fails the test.
import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import type { Adapter } from '../../src/core/adapter.js';
import type { AuthConfig } from '../../src/core/options.js';
import { machineTransitions, namedTrace, transitionKey, type TraceEntry, type TransitionRef } from '../../src/devtools/graph.js';
import { credentialsMachine } from '../../src/flows/credentials/machine.js';
import { emailMachine } from '../../src/flows/email/machine.js';
import { oauthMachine } from '../../src/flows/oauth/machine.js';
import { secondFactorMachine } from '../../src/flows/second-factor/machine.js';
import { webauthnMachine } from '../../src/flows/webauthn/machine.js';
import { Credentials } from '../../src/providers/credentials.js';
import { OIDC } from '../../src/providers/oauth.js';
import { Passkey } from '../../src/providers/webauthn.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import type { ClientResponse, TestClient } from '../support/client.js';
import { activeBackupCode, activeTotp, codeNow, keyOnPage, otherCode, registeredPasskey, setsSession, stageCookieOf } from '../support/factors.js';
import { memoryOutbox, requestLink, type Outbox } from '../support/magic-link.js';
import { startOidcProvider, type OidcProviderHarness } from '../e2e/peers/oidc.js';
import { identityMachine, identityProvider } from '../flows/signin/identity-flow.js';
import { SoftAuthenticator } from '../flows/webauthn/webauthn-authenticator.js';

// ---- the routes: every simple path of a machine's graph from its initial state into `authenticated` ----------

function nodeAt(machine: AnyStateMachine, id: string): AnyStateNode {
  let node: AnyStateNode = machine.root;
  for (const key of id.split('.')) node = node.states[key];
  return node;
}

/** A compound target means its initial leaf. */
function leaf(machine: AnyStateMachine, id: string): string {
  let node = nodeAt(machine, id);
  while (node.type === 'compound' && node.initial) node = node.initial.target[0];
  return node.path.join('.');
}

/** The routes into `authenticated`, as transition keys. */
export function routesInto(machine: AnyStateMachine, end = 'authenticated'): string[][] {
  const out = new Map<string, TransitionRef[]>();
  for (const t of machineTransitions(machine)) out.set(t.from, [...(out.get(t.from) ?? []), t]);
  const routes: string[][] = [];
  const walk = (state: string, seen: Set<string>, route: string[]) => {
    if (state === end) return void routes.push(route);
    for (const t of out.get(state) ?? []) {
      const next = leaf(machine, t.to);
      if (!seen.has(next)) walk(next, new Set([...seen, next]), [...route, transitionKey(t)]);
    }
  };
  const start = leaf(machine, String(machine.config.initial));
  walk(start, new Set([start]), []);
  return routes;
}

// ---- the world --------------------------------------------------------------------------------------------

const PASSWORD = 'correct horse battery staple';
const OP_PROVIDERS = ['op', 'op-manual'];
let db: PGlite;
let adapter: PostgresAdapterInstance;
let op: OidcProviderHarness;
const people = Array.from({ length: 8 }, (_, i) => `p${i}`);

beforeAll(async () => {
  db = await PGlite.create();
  adapter = PostgresAdapter(db);
  await adapter.migrate();
  op = await startOidcProvider({
    redirectUris: OP_PROVIDERS.map((id) => `${ORIGIN}/auth/callback/${id}`),
    accounts: Object.fromEntries(people.map((p) => [p, { email: `${p}@op.example`, email_verified: true, name: p }])),
  });
}, 60_000);
afterAll(async () => {
  await op?.stop();
  await db?.close();
});

interface Person {
  id: string;
  email: string;
  key: Uint8Array;
}

/** A stored user with an active authenticator app (and, for the OP, the account `sub` linked to them). */
async function person(opAccount?: string): Promise<Person> {
  const id = `u-${randomUUID()}`;
  const email = `${id}@example.com`;
  await adapter.createUser({ id, email, emailVerified: null, name: 'Ada' });
  if (opAccount) for (const provider of OP_PROVIDERS) await adapter.linkAccount({ provider, type: 'oidc', providerAccountId: opAccount, userId: id });
  return { id, email, key: await activeTotp(adapter, id) };
}

interface App {
  t: TestAuth;
  events: string[];
  outbox: Outbox;
  confirmOutbox: Outbox;
  codeOutbox: Outbox;
}

/** One instance with every kind of provider (and `more`), on `store` (the PostgreSQL adapter, or one lacking a method). */
function app(store: Adapter = adapter, more: AuthConfig['providers'] = []): App {
  const events: string[] = [];
  const outbox = memoryOutbox();
  const confirmOutbox = memoryOutbox({ id: 'email-confirm', confirm: true });
  const codeOutbox = memoryOutbox({ id: 'email-code', code: true });
  const t = testAuth({
    adapter: store,
    session: { strategy: 'database' },
    secondFactor: {},
    experimental: { enableWebAuthn: true },
    events: { signIn: () => void events.push('signIn'), secondFactorFailed: () => void events.push('secondFactorFailed') },
    providers: [
      Credentials({
        credentials: { email: {}, password: { type: 'password' } },
        authorize: async (c) => {
          const user = c.password === PASSWORD ? await adapter.getUserByEmail(String(c.email)) : null;
          return user ? { id: user.id, email: user.email } : null;
        },
      }),
      OIDC({ id: 'op', name: 'OP', issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret! }),
      // No discovery: every endpoint the flow needs is configured.
      OIDC({ id: 'op-manual', name: 'OP by hand', issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret!, authorization: `${op.issuer}/auth`, token: `${op.issuer}/token` }),
      outbox.provider,
      confirmOutbox.provider,
      codeOutbox.provider,
      Passkey(),
      ...more,
    ],
  });
  return { t, events, outbox, confirmOutbox, codeOutbox };
}

/** The transitions the runs of one flow machine logged: its own, and the second-factor machine's that ran after it. */
function traces(t: TestAuth, machine: string): { flow: TraceEntry[]; assurance: TraceEntry[] } {
  const all = t.logger.debugs.filter((d) => d.message.startsWith(`flow ${machine} `)).flatMap((r) => (r.metadata as { trace: TraceEntry[] }).trace);
  return { flow: all.filter((e) => e.machine === undefined), assurance: all.filter((e) => e.machine === 'second-factor') };
}

/**
 * The route a flow took to `authenticated`: its entries from the last run that started at the initial state, guards
 * named as the graph names them. A step the trace records as fitting several branches (the observer never asks a
 * guard which one passed) makes one candidate route per branch; the route taken is one of them.
 */
function routesTaken(machine: AnyStateMachine, flow: TraceEntry[]): string[] {
  const start = leaf(machine, String(machine.config.initial));
  const from = flow.map((e) => e.from).lastIndexOf(start);
  let routes: string[][] = [[]];
  for (const entry of namedTrace(machine, flow.slice(Math.max(from, 0)))) {
    routes = routes.flatMap((route) => (entry.branches ?? [entry]).map((branch) => [...route, transitionKey(branch)]));
  }
  return routes.map((route) => route.join(' | '));
}

interface Walk {
  /** Every response of the first factor, the last one being where it ended. */
  responses: ClientResponse[];
  machine: AnyStateMachine;
  /** The logged machine id. */
  logged: string;
}

const walked = new Map<AnyStateMachine, Set<string>>();

/**
 * After a first factor: the stage's page and cookie, no session cookie on any response, no signIn event, no
 * session; a wrong code is refused; only the right code issues the session, for this user.
 */
async function expectStageThenSession(a: App, client: TestClient, who: Person, walk: Walk, signedInBefore = false) {
  const { t, events } = a;
  const last = walk.responses.at(-1)!;
  for (const res of walk.responses) expect(setsSession(res), `no session cookie from ${res.requestUrl.pathname}`).toBe(false);
  expect(last.status).toBe(200);
  const page = await last.text();
  expect(page).toContain('Two-step verification');
  expect(page).toMatch(/action="[^"]*\/auth\/second-factor"/);
  expect(stageCookieOf(last), 'the stage cookie').toBeTruthy();
  expect(events).not.toContain('signIn');
  expect(await db.query('SELECT 1 FROM sessions WHERE user_id = $1', [who.id]).then((r) => r.rows.length), 'no session row').toBe(signedInBefore ? 1 : 0);

  // The route the flow took is one of the machine's routes into `authenticated`; the second-factor machine then
  // paused at the check.
  const { flow, assurance } = traces(t, walk.logged);
  expect(flow.at(-1)?.to).toBe('authenticated');
  if (!walked.has(walk.machine)) walked.set(walk.machine, new Set());
  for (const route of routesTaken(walk.machine, flow)) {
    expect(routesInto(walk.machine).map((r) => r.join(' | '))).toContain(route);
    walked.get(walk.machine)!.add(route);
  }
  expect(assurance.at(-1)).toMatchObject({ from: 'assessing', to: 'awaitingCheck', guard: 'mustCheck' });

  const csrfToken = await t.csrfToken(client);
  const right = codeNow(who.key);
  const wrong = await client.post('/auth/second-factor', { csrfToken, code: otherCode(right) });
  expect(wrong.status).toBe(200);
  expect(setsSession(wrong)).toBe(false);
  expect(events).toEqual(['secondFactorFailed']);

  const passed = await client.post('/auth/second-factor', { csrfToken, code: right });
  expect(passed.status).toBe(302);
  expect(passed.location?.searchParams.get('error')).toBeNull();
  expect(setsSession(passed)).toBe(true);
  expect(events).toEqual(['secondFactorFailed', 'signIn']);
  const session = (await (await client.get('/auth/session')).json()) as { user?: { email?: string } } | null;
  expect(session?.user?.email).toBe(who.email);
}

const generated = {
  credentials: routesInto(credentialsMachine),
  oauth: routesInto(oauthMachine),
  email: routesInto(emailMachine),
  webauthn: routesInto(webauthnMachine),
  identity: routesInto(identityMachine),
};

describe('every route into a proven identity ends at the second-factor stage', () => {
  it('the machines have routes into `authenticated` (generated from their graphs)', () => {
    expect(Object.fromEntries(Object.entries(generated).map(([k, v]) => [k, v.length]))).toEqual({ credentials: 1, oauth: 1, email: 7, webauthn: 2, identity: 1 });
  });

  it('the second-factor machine passes only after a check passed, with nothing to check, or once a new factor is active', () => {
    const into = (state: string) => machineTransitions(secondFactorMachine).filter((t) => t.to === state).map(transitionKey).sort();
    // What the user came for (a session, a change) is chosen only after one of these.
    expect(into('choosing')).toEqual(
      [
        'assessing --xstate.done.actor.assess--> choosing',
        'verifyingCode --xstate.done.actor.checkFactorCode [codePassed]--> choosing',
        'verifyingPasskey --xstate.done.actor.checkPasskey [codePassed]--> choosing',
      ].sort(),
    );
    // The unguarded way from `assessing` is taken only when no guard before it holds: no check is needed.
    const fromAssessing = machineTransitions(secondFactorMachine).filter((t) => t.from === 'assessing' && t.event === 'xstate.done.actor.assess').map((t) => t.guard ?? '(none)');
    expect(fromAssessing).toEqual(['unknownTarget', 'stepUpWithoutFactor', 'mustCheck', 'mustEnrol', '(none)']);
    expect(into('passed')).toEqual(
      [
        'activatingFactor --xstate.done.actor.activateFactor--> passed',
        'choosing --always--> passed',
        'removing --xstate.done.actor.removeFactor--> passed',
      ].sort(),
    );
    expect(into('showingCodes')).toEqual(['generatingCodes --xstate.done.actor.replaceBackupCodes--> showingCodes']);
  });

  it('credentials', async () => {
    const a = app();
    const who = await person();
    const csrfToken = await a.t.csrfToken();
    const res = await a.t.client.post('/auth/callback/credentials', { csrfToken, email: who.email, password: PASSWORD, callbackUrl: '/dashboard' });
    await expectStageThenSession(a, a.t.client, who, { responses: [res], machine: credentialsMachine, logged: 'credentials' });
  });

  it.each([
    ['with discovery', 'op', 0],
    ['without discovery', 'op-manual', 1],
  ])('OIDC against a real OP, %s', async (_name, providerId, i) => {
    const a = app();
    const who = await person(people[i]);
    const csrfToken = await a.t.csrfToken();
    const start = await a.t.client.post(`/auth/signin/${providerId}`, { csrfToken, callbackUrl: `${ORIGIN}/dashboard` });
    expect(start.status).toBe(302);
    const nav = await op.login(start.location!.href, people[i]);
    const callback = await a.t.client.submit(nav);
    await expectStageThenSession(a, a.t.client, who, { responses: [start, callback], machine: oauthMachine, logged: 'oauth' });
  });

  it('a one-click magic link', async () => {
    const a = app();
    const who = await person();
    const requested = await requestLink(a.t, who.email);
    const opened = await a.t.client.get(a.outbox.linkFor(who.email));
    // The second-factor page is the answer that reports the proof: the token is spent with it, not left for a replay.
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM verification_token WHERE identifier = $1', [who.email])).rows[0]!.n).toBe(0);
    await expectStageThenSession(a, a.t.client, who, { responses: [requested, opened], machine: emailMachine, logged: 'email' });
  });

  it.each([
    ['an adapter that looks the link up first', false],
    ['an adapter that cannot look it up (Auth.js)', true],
  ])('a magic link confirmed on its page, %s', async (_name, unchecked) => {
    const store: Adapter = unchecked ? { ...adapter, getVerificationToken: undefined } : adapter;
    const a = app(store);
    const who = await person();
    const csrf = await a.t.csrfToken();
    const requested = await a.t.client.post('/auth/signin/email-confirm', { csrfToken: csrf, email: who.email, callbackUrl: '/after' });
    const opened = await a.t.client.get(a.confirmOutbox.linkFor(who.email));
    expect(opened.status).toBe(200);
    expect(setsSession(opened)).toBe(false);
    const confirmed = await a.t.client.post('/auth/callback/email-confirm', { csrfToken: await a.t.csrfToken() });
    await expectStageThenSession(a, a.t.client, who, { responses: [requested, opened, confirmed], machine: emailMachine, logged: 'email' });
  });

  it('an e-mail code typed in the browser that asked for it', async () => {
    const a = app();
    const who = await person();
    const csrf = await a.t.csrfToken();
    const requested = await a.t.client.post('/auth/signin/email-code', { csrfToken: csrf, email: who.email, callbackUrl: '/after' });
    expect(requested.status).toBe(200); // the code page
    expect(setsSession(requested)).toBe(false);
    const code = a.codeOutbox.sent.at(-1)!.code!;
    const typed = await a.t.client.post('/auth/callback/email-code', { csrfToken: await a.t.csrfToken(), code });
    await expectStageThenSession(a, a.t.client, who, { responses: [requested, typed], machine: emailMachine, logged: 'email' });
  });

  it('a passkey, signing in', async () => {
    const a = app();
    const who = await person();
    const device = new SoftAuthenticator(ORIGIN);
    const row = device.row(who.id);
    await adapter.linkAccount({ provider: 'passkey', type: 'webauthn', providerAccountId: row.providerAccountId, userId: who.id });
    await adapter.createAuthenticator(row);
    const optionsRes = await a.t.client.get('/auth/webauthn-options/passkey?action=authenticate');
    const { options } = (await optionsRes.json()) as { options: never };
    const csrfToken = await a.t.csrfToken();
    const res = await a.t.client.post('/auth/callback/passkey', { action: 'authenticate', data: JSON.stringify(device.authenticate(options)), csrfToken, callbackUrl: '/after' });
    await expectStageThenSession(a, a.t.client, who, { responses: [optionsRes, res], machine: webauthnMachine, logged: 'webauthn' });
  });

  it('a passkey registered by a signed-in user: the stage again before the session is renewed', async () => {
    const a = app();
    const who = await person();
    // Signed in properly first (password and code), then a new passkey is added.
    const csrf = await a.t.csrfToken();
    await a.t.client.post('/auth/callback/credentials', { csrfToken: csrf, email: who.email, password: PASSWORD });
    const signedIn = await a.t.client.post('/auth/second-factor', { csrfToken: csrf, code: codeNow(who.key, -1) });
    expect(setsSession(signedIn)).toBe(true);
    a.events.length = 0;
    a.t.logger.debugs.length = 0;
    const device = new SoftAuthenticator(ORIGIN);
    const optionsRes = await a.t.client.get('/auth/webauthn-options/passkey?action=register');
    const { options } = (await optionsRes.json()) as { options: never };
    const res = await a.t.client.post('/auth/callback/passkey', { action: 'register', data: JSON.stringify(device.register(options)), csrfToken: await a.t.csrfToken(), callbackUrl: '/after' });
    await expectStageThenSession(a, a.t.client, who, { responses: [optionsRes, res], machine: webauthnMachine, logged: 'webauthn' }, true);
  });

  it('a custom flow through the standard tail', async () => {
    const who = await person();
    const providerAccountId = `custom-${randomUUID()}`;
    // A custom provider whose flow proves an account this user owns.
    await adapter.linkAccount({ provider: 'proof', type: 'oauth', providerAccountId, userId: who.id });
    const a = app(adapter, [identityProvider({ user: { id: providerAccountId, name: 'Ada', email: who.email }, account: { type: 'oauth', providerAccountId } })]);
    const csrfToken = await a.t.csrfToken();
    const res = await a.t.client.post('/auth/callback/proof', { csrfToken, callbackUrl: '/dashboard' });
    await expectStageThenSession(a, a.t.client, who, { responses: [res], machine: identityMachine, logged: 'identity' });
  });

  // Routes the graph has but the guards exclude: with codes on, `and(signInAllowed, codesOn)` is taken before
  // `signInAllowed` alone, and `storeToken [codesOn]` before the plain `storeToken`; so a code is never sent
  // without the cooldown claimed and the code stored. Named here so a new route cannot hide among them.
  const codeRoute = (cooldown: boolean, stored: boolean) =>
    [
      'idle --REQUEST--> normalizing',
      'normalizing --xstate.done.actor.normalize--> findingRecipient',
      'findingRecipient --xstate.done.actor.findRecipient--> checkingRequest',
      cooldown ? 'checkingRequest --xstate.done.actor.checkSignIn [and(signInAllowed, codesOn)]--> claimingCooldown' : 'checkingRequest --xstate.done.actor.checkSignIn [signInAllowed]--> storingToken',
      ...(cooldown ? ['claimingCooldown --xstate.done.actor.claimCooldown--> storingToken'] : []),
      ...(stored ? ['storingToken --xstate.done.actor.storeToken [codesOn]--> storingCode', 'storingCode --xstate.done.actor.storeCode--> sendingLink'] : ['storingToken --xstate.done.actor.storeToken--> sendingLink']),
      'sendingLink --xstate.done.actor.sendLink [codesOn]--> awaitingCode',
      'awaitingCode --SUBMIT_CODE--> checkingCode',
      'checkingCode --xstate.done.actor.checkCode [codePassed]--> consumingToken',
      'consumingToken --xstate.done.actor.consumeToken--> authenticated',
    ].join(' | ');
  const unreachable = new Map<AnyStateMachine, string[]>([[emailMachine, [codeRoute(true, false), codeRoute(false, true), codeRoute(false, false)]]]);

  it('walked every generated route of every flow', () => {
    const names = new Map<AnyStateMachine, string>([
      [credentialsMachine, 'credentials'],
      [oauthMachine, 'oauth'],
      [emailMachine, 'email'],
      [webauthnMachine, 'webauthn'],
      [identityMachine, 'identity'],
    ]);
    for (const [machine, name] of names) {
      const missing = routesInto(machine)
        .map((r) => r.join(' | '))
        .filter((r) => !walked.get(machine)?.has(r));
      expect(missing, `${name}: routes into authenticated not walked`).toEqual(unreachable.get(machine) ?? []);
    }
  });
});

// ---- step-up and factor management: the same machine, for a signed-in user ------------------------------------

/** A route with its loops cut out (asking for passkey options returns to the check): the simple path it walked. */
function simplePath(entries: TraceEntry[]): string[] {
  const out: TraceEntry[] = [];
  for (const e of entries) {
    const back = out.findIndex((o) => o.from === e.from);
    if (back >= 0) out.length = back;
    out.push(e);
  }
  return out.map(transitionKey);
}

/** The routes of the second-factor machine into what a user came for that pass through a check. */
const checkedRoutes = [...routesInto(secondFactorMachine, 'passed'), ...routesInto(secondFactorMachine, 'showingCodes')]
  .filter((r) => r.some((k) => k.includes('[codePassed]--> choosing')))
  .map((r) => r.join(' | '));

const assuranceWalked = new Set<string>();

/** The second-factor machine's entries logged since `from` (every run, sign-in or signed-in), as one route. */
function assuranceRoute(t: TestAuth, from: number): string {
  const entries = t.logger.debugs.slice(from).flatMap((r) => (r.metadata as { trace?: TraceEntry[] } | undefined)?.trace ?? []).filter((e) => e.machine === 'second-factor');
  const start = entries.map((e) => e.from).lastIndexOf('idle');
  return simplePath(entries.slice(Math.max(start, 0))).join(' | ');
}

interface Signed {
  a: App;
  who: Person;
  device: SoftAuthenticator;
  csrfToken: string;
}

/** A user with an app, backup codes and a passkey, signed in properly (password and code) six minutes ago. */
async function signedInLongAgo(): Promise<Signed> {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  const a = app();
  const who = await person();
  await activeBackupCode(adapter, who.id);
  const device = await registeredPasskey(adapter, who.id);
  const csrfToken = await a.t.csrfToken();
  await a.t.client.post('/auth/callback/credentials', { csrfToken, email: who.email, password: PASSWORD });
  expect(setsSession(await a.t.client.post('/auth/second-factor', { csrfToken, code: codeNow(who.key) }))).toBe(true);
  vi.setSystemTime(Date.now() + 6 * 60_000);
  a.events.length = 0;
  return { a, who, device, csrfToken };
}

/** The check's page, then the answer: a wrong code first (refused, nothing changed), then the code or the passkey. */
async function passCheck(s: Signed, asked: ClientResponse, by: 'code' | 'passkey', unchanged: () => Promise<void>): Promise<ClientResponse> {
  const { a, who, device, csrfToken } = s;
  expect(asked.status).toBe(200);
  expect(await asked.text()).toContain('Confirm it is you');
  expect(stageCookieOf(asked), 'the check waits in its cookie').toBeTruthy();
  await unchanged();
  const wrong = await a.t.client.post('/auth/second-factor', { csrfToken, code: otherCode(codeNow(who.key)) });
  expect(wrong.status).toBe(200);
  await unchanged();
  if (by === 'code') return a.t.client.post('/auth/second-factor', { csrfToken, code: codeNow(who.key) });
  const { options } = (await (await a.t.client.get('/auth/second-factor?action=authenticate')).json()) as { options: never };
  return a.t.client.post('/auth/second-factor', { csrfToken, action: 'authenticate', data: JSON.stringify(device.authenticate(options)) });
}

const verifiedAt = async (s: Signed) => ((await (await s.a.t.client.get('/auth/factors', { headers: { accept: 'application/json' } })).json()) as { verifiedAt: string }).verifiedAt;
const rows = async (who: Person, kind: string) => (await adapter.listFactors(who.id)).filter((f) => f.kind === kind).map((f) => f.id).sort();

describe('a signed-in user reaches a step-up or a change of factors only through a fresh check', () => {
  afterEach(() => vi.useRealTimers());

  it.each(['code', 'passkey'] as const)('the second factor at sign-in, by %s', async (by) => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const a = app();
    const who = await person();
    const device = await registeredPasskey(adapter, who.id);
    const csrfToken = await a.t.csrfToken();
    const from = a.t.logger.debugs.length;
    const asked = await a.t.client.post('/auth/callback/credentials', { csrfToken, email: who.email, password: PASSWORD });
    expect(await asked.clone().text()).toContain('Two-step verification');
    const s = { a, who, device, csrfToken };
    const answered = by === 'code'
      ? await a.t.client.post('/auth/second-factor', { csrfToken, code: codeNow(who.key) })
      : await (async () => {
          const { options } = (await (await a.t.client.get('/auth/second-factor?action=authenticate')).json()) as { options: never };
          return a.t.client.post('/auth/second-factor', { csrfToken, action: 'authenticate', data: JSON.stringify(s.device.authenticate(options)) });
        })();
    expect(setsSession(answered)).toBe(true);
    assuranceWalked.add(assuranceRoute(a.t, from));
  });

  it.each(['code', 'passkey'] as const)('step-up, by %s', async (by) => {
    const s = await signedInLongAgo();
    const before = await verifiedAt(s);
    const from = s.a.t.logger.debugs.length;
    const asked = await s.a.t.client.get('/auth/factors/verify?callbackUrl=/after');
    const done = await passCheck(s, asked, by, async () => expect(await verifiedAt(s)).toBe(before));
    expect(done.location?.pathname).toBe('/after');
    expect(await verifiedAt(s)).not.toBe(before);
    assuranceWalked.add(assuranceRoute(s.a.t, from));
  });

  it.each(['code', 'passkey'] as const)('a new authenticator app, by %s', async (by) => {
    const s = await signedInLongAgo();
    const apps = await rows(s.who, 'totp');
    const from = s.a.t.logger.debugs.length;
    const asked = await s.a.t.client.post('/auth/factors/totp', { csrfToken: s.csrfToken });
    const shown = await passCheck(s, asked, by, async () => expect(await rows(s.who, 'totp')).toEqual(apps));
    const page = await shown.text();
    expect(page).toContain('Set up two-step verification');
    const confirmed = await s.a.t.client.post('/auth/second-factor', { csrfToken: s.csrfToken, code: codeNow(keyOnPage(page)) });
    expect(confirmed.status).toBe(302);
    expect((await adapter.listFactors(s.who.id)).filter((f) => f.kind === 'totp' && f.activatedAt)).toHaveLength(apps.length + 1);
    assuranceWalked.add(assuranceRoute(s.a.t, from));
  });

  it.each(['code', 'passkey'] as const)('new backup codes, by %s', async (by) => {
    const s = await signedInLongAgo();
    const codes = await rows(s.who, 'backup');
    const from = s.a.t.logger.debugs.length;
    const asked = await s.a.t.client.post('/auth/factors/backup-codes', { csrfToken: s.csrfToken });
    const shown = await passCheck(s, asked, by, async () => expect(await rows(s.who, 'backup')).toEqual(codes));
    expect(shown.status).toBe(200);
    expect(await rows(s.who, 'backup')).not.toEqual(codes);
    assuranceWalked.add(assuranceRoute(s.a.t, from));
  });

  it.each(['code', 'passkey'] as const)('removing a factor, by %s', async (by) => {
    const s = await signedInLongAgo();
    const codes = await rows(s.who, 'backup');
    const from = s.a.t.logger.debugs.length;
    const asked = await s.a.t.client.post('/auth/factors/remove', { csrfToken: s.csrfToken, id: codes[0] });
    const done = await passCheck(s, asked, by, async () => expect(await rows(s.who, 'backup')).toEqual(codes));
    expect(done.status).toBe(302);
    expect(await rows(s.who, 'backup')).toEqual([]);
    assuranceWalked.add(assuranceRoute(s.a.t, from));
  });

  it('walked every route of the second-factor machine that passes a check', () => {
    expect(checkedRoutes.length, checkedRoutes.join('\n')).toBe(8);
    expect(checkedRoutes.filter((r) => !assuranceWalked.has(r))).toEqual([]);
  });
});
