// Model-based tests of the standard sign-in tail: paths generated from `signInMachine` (signin-model.ts), each one
// played over HTTP through a real flow that ends `authenticated`, in a world (signin-world.ts) that makes the real
// tail take exactly that path. The traces it logs must follow the model path, and together must cover every state
// and transition; each path must leave the browser, the events and the database as its final state says.
import { afterAll, describe, expect, it } from 'vitest';
import { signInMachine } from '../../../src/flows/signin/machine.js';
import { ORIGIN } from '../../support/auth-app.js';
import { createCoverage } from '../../support/flow-coverage.js';
import type { ModelPath } from '../../support/model-paths.js';
import { useMigratedPGlite } from '../../support/pglite.js';
import {
  accountType,
  branchesOf,
  DB_FAILURES,
  F,
  findOwnerOutcomes,
  I,
  issueFailsAfter,
  issueFailures,
  pathsFor,
  R,
  RESOLUTION_EVENTS,
  resolveOutcomes,
  signInOutcomes,
  storesUsers,
  variants,
  type IssueFailure,
  type Variant,
} from './signin-model.js';
import { newUserId, PASSWORD, play, rows as query, SESSION_COOKIE, sessionUserId, type Run } from './signin-world.js';
import { setsSession, stageCookieOf } from '../../support/factors.js';
import { storedSessionToken } from '../../../src/session/session-token.js';

const pg = useMigratedPGlite();
const rows = <T>(sql: string, params: unknown[]) => query<T>(pg, sql, params);

/** What a path (and, for a resolved one, a session issue failing after it) must leave: status, redirect, events, log. */
function expectedFor(path: ModelPath, b: Record<string, string>, issue?: IssueFailure) {
  const written = path.events.some((e) => e.type === 'xstate.done.actor.resolveUser') ? (RESOLUTION_EVENTS[b.resolveUser] ?? []) : [];
  const dbFailure = Object.values(b).some((branch) => DB_FAILURES.has(branch));
  switch (path.finalState) {
    case 'resolved':
      // The session issue fails in the runtime, after the tail: what resolveUser wrote stays and is announced,
      // never a signIn event. A refusing jwt callback is AccessDenied; a throwing one and a refusing database are
      // the server's (Configuration), the database's keeping its own type in the log.
      if (issue === I.jwtNull) return { status: 'failed', location: `${ORIGIN}/auth/error?error=AccessDenied`, session: false, events: written, logged: ['AccessDenied'] };
      if (issue === I.jwtThrows) return { status: 'failed', location: `${ORIGIN}/auth/error?error=Configuration`, session: false, events: written, logged: ['CallbackRouteError'] };
      if (issue === I.refusesSession) return { status: 'failed', location: `${ORIGIN}/auth/error?error=Configuration`, session: false, events: written, logged: ['AdapterError'] };
      return { status: 'signedIn', location: `${ORIGIN}/dashboard`, session: true, events: [...written, 'signIn'], logged: [] };
    case 'redirected':
      return { status: 'redirected', location: `${ORIGIN}/blocked`, session: false, events: [], logged: [] };
    case 'failed.accessDenied':
      return { status: 'failed', location: `${ORIGIN}/auth/error?error=AccessDenied`, session: false, events: written, logged: ['AccessDenied'] };
    case 'failed.oauthAccountNotLinked':
      return { status: 'failed', location: `${ORIGIN}/auth/signin?error=OAuthAccountNotLinked`, session: false, events: [], logged: ['OAuthAccountNotLinked'] };
    case 'failed.accountNotLinked':
      return { status: 'failed', location: `${ORIGIN}/auth/signin?error=AccountNotLinked`, session: false, events: [], logged: ['AccountNotLinked'] };
    case 'failed.callbackRoute':
      // A database failure keeps its own type in the log; the browser sees only `Configuration`.
      return { status: 'failed', location: `${ORIGIN}/auth/error?error=Configuration`, session: false, events: written, logged: [dbFailure ? 'AdapterError' : 'CallbackRouteError'] };
    default:
      throw new Error(`no expectation for ${path.finalState}`);
  }
}

/** What the signIn callback must have seen: the stored owner when there is one, else the flow's user. */
function expectSignInCallback(variant: Variant, run: Run, b: Record<string, string>) {
  expect(run.recorded.signIns).toHaveLength(1);
  const [asked] = run.recorded.signIns;
  const { provider, providerAccountId, email, userId } = run.world.identity;
  expect(asked.account).toMatchObject({ provider, type: accountType(variant), providerAccountId: provider === 'credentials' ? userId : providerAccountId });
  if (b.findOwner === F.known) expect(asked.user).toMatchObject({ id: run.world.ownerId, name: 'Stored' });
  else expect(asked.user).toMatchObject({ name: expect.stringMatching(/^Ada/), email });
  if (provider === 'credentials') expect(asked.credentials).toMatchObject({ email, password: PASSWORD });
  else expect(asked.credentials).toBeUndefined();
  if (variant.startsWith('oauth')) expect(asked.profile).toMatchObject({ sub: providerAccountId });
}

const coverage = createCoverage(signInMachine);
const pathsByVariant = new Map(variants.map((v) => [v, pathsFor(v)] as const));

afterAll(() => {
  console.log(`${[...pathsByVariant.values()].reduce((n, p) => n + p.length, 0)} paths\nflow coverage: ${coverage.format()}`);
});

describe('sign-in tail, the model', () => {
  it('has a path for every branch of every actor, per variant', () => {
    for (const variant of variants) {
      const taken = new Set(pathsByVariant.get(variant)!.flatMap((p) => Object.values(branchesOf(p))));
      const offered = [...findOwnerOutcomes[variant], ...signInOutcomes, ...resolveOutcomes[variant].unknown, ...resolveOutcomes[variant].known].map((o) => o.branch);
      for (const branch of offered) {
        expect(taken.has(branch), `${variant}: ${branch}`).toBe(true);
      }
      // The path the session issue is made to fail on exists, and ends with the user resolved.
      const failing = pathsByVariant.get(variant)!.filter((p) => branchesOf(p).resolveUser === issueFailsAfter[variant]);
      expect(failing.map((p) => p.finalState), `${variant}: ${issueFailsAfter[variant]}`).toEqual(['resolved']);
    }
  });

  it('reaches every final state across the variants', () => {
    const finals = new Set([...pathsByVariant.values()].flat().map((p) => p.finalState));
    expect([...finals].sort()).toEqual(['failed.accessDenied', 'failed.accountNotLinked', 'failed.callbackRoute', 'failed.oauthAccountNotLinked', 'redirected', 'resolved']);
  });
});

/** A variant's cases: every path as it is, then the issue-failing path once per way the issue fails. */
function casesOf(variant: Variant): [string, ModelPath, IssueFailure | undefined][] {
  const paths = pathsByVariant.get(variant)!;
  const name = (p: ModelPath) => `${p.description} [${Object.values(branchesOf(p)).join(', ')}]`;
  const failing = paths.filter((p) => branchesOf(p).resolveUser === issueFailsAfter[variant]);
  return [
    ...paths.map((p) => [name(p), p, undefined] as [string, ModelPath, undefined]),
    ...failing.flatMap((p) => issueFailures(variant).map((issue) => [`${name(p)}, then ${issue}`, p, issue] as [string, ModelPath, IssueFailure])),
  ];
}

describe.each(variants)('sign-in tail, model paths with %s', (variant) => {
  it.each(casesOf(variant))('%s', async (_name, path, issue) => {
    const b = branchesOf(path);
    const want = expectedFor(path, b, issue);
    const run = await play(pg, variant, path, issue);
    coverage.record(run.tail);

    // The carrier flow proved the identity; the real tail took the model's path, transition by transition, and no
    // other machine ran (no second factor is configured).
    expect(run.flowTrace.at(-1)?.to).toBe('authenticated');
    expect(run.tail.map((e) => e.event)).toEqual(path.events.map((e) => e.type));
    expect(run.tail.at(-1)?.to).toBe(path.finalState);
    expect(run.others).toEqual([]);
    expect(run.status).toBe(want.status);

    // One response: the redirect, with the session cookie only for a signed-in browser.
    expect(run.res.status).toBe(302);
    expect(run.res.headers.get('location')).toBe(want.location);
    expect(setsSession(run.res), 'a session cookie is set').toBe(want.session);
    expect(stageCookieOf(run.res), 'no second-factor check').toBeUndefined();
    expect(run.recorded.events.map((e) => e.name)).toEqual(want.events);
    expect(run.t.logger.errorTypes()).toEqual(want.logged);
    if (path.events.some((e) => e.type.endsWith('.actor.checkSignIn'))) expectSignInCallback(variant, run, b);
    else expect(run.recorded.signIns).toEqual([]);

    await expectWorld(variant, run, path, b, issue);
  });
});

/** The rows and the session each path must leave behind. */
async function expectWorld(variant: Variant, run: Run, path: ModelPath, b: Record<string, string>, issue?: IssueFailure) {
  const { world, t, recorded } = run;
  const r = path.events.some((e) => e.type.endsWith('.actor.resolveUser')) ? b.resolveUser : undefined;
  const { provider, providerAccountId, email } = world.identity;

  if (path.finalState === 'resolved' && !issue) {
    const signIn = recorded.events.at(-1)!.message as { user: { id?: string; email?: string | null }; account: { providerAccountId: string }; isNewUser?: boolean };
    if (!storesUsers(variant)) {
      // JWT without a stored user: the session is the flow's user.
      const session = (await (await t.client.get('/auth/session')).json()) as { user?: { email?: string; name?: string } } | null;
      expect(session?.user).toMatchObject({ email, name: 'Ada' });
      expect(signIn.isNewUser).toBe(false);
      return;
    }
    const expectedId = world.expectedUser.kind === 'stored' ? world.expectedUser.id : await newUserId(pg, run);
    expect(expectedId, 'the user the sign-in ended as exists').toBeTruthy();
    expect(await sessionUserId(pg, t), 'the session row names the resolved user').toBe(expectedId);
    expect(signIn.user.id).toBe(expectedId);
    expect(signIn.isNewUser).toBe(world.expectedUser.kind === 'new');
    for (const e of recorded.events.filter((x) => x.name === 'createUser')) expect((e.message.user as { id: string }).id).toBe(expectedId);
    for (const e of recorded.events.filter((x) => x.name === 'linkAccount')) {
      expect(e.message.user).toMatchObject({ id: expectedId });
      expect(e.message.account).toMatchObject({ provider, providerAccountId: provider === 'credentials' ? world.identity.userId : providerAccountId });
    }
    if (world.other) {
      // The browser switched users (or re-signed in): the session it held before is gone, not left valid.
      expect(await rows('SELECT 1 FROM sessions WHERE session_token = $1', [storedSessionToken(world.other.token)])).toEqual([]);
      expect(t.client.cookies.get(SESSION_COOKIE)).not.toBe(world.other.token);
    }
    if (variant === 'credentials-database') {
      // Whichever way the user was found, its credentials account row names it now.
      expect(await rows('SELECT user_id FROM accounts WHERE provider = $1 AND provider_account_id = $2', ['credentials', world.identity.userId])).toEqual([{ user_id: expectedId }]);
      const [user] = await rows<{ name: string }>('SELECT name FROM users WHERE id = $1', [expectedId]);
      // A stored user stays who it was: not a second row made from authorize's answer.
      expect(user.name).toBe(r === R.created ? 'Ada' : 'Ada (stored)');
    }
    if (variant === 'oauth-database') {
      expect(await rows('SELECT user_id FROM accounts WHERE provider = $1 AND provider_account_id = $2', [provider, providerAccountId])).toEqual([{ user_id: expectedId }]);
      if (r === R.newUser) expect(await rows('SELECT name, email FROM users WHERE id = $1', [expectedId])).toEqual([{ name: 'Ada', email }]);
    }
    if (variant === 'email') {
      // A proven address is verified, on the stored user or on the new one.
      const [user] = await rows<{ email: string; email_verified: Date | null }>('SELECT email, email_verified FROM users WHERE id = $1', [expectedId]);
      expect(user.email).toBe(email);
      expect(user.email_verified).toBeInstanceOf(Date);
    }
    if (variant === 'webauthn' && (r === R.registersSignedOut || r === R.registersSignedIn)) {
      expect(await rows('SELECT user_id FROM authenticators WHERE credential_id = $1', [providerAccountId])).toEqual([{ user_id: expectedId }]);
      // A passkey registered signed out makes a user that owns no address.
      if (r === R.registersSignedOut) expect(await rows('SELECT email FROM users WHERE id = $1', [expectedId])).toEqual([{ email: null }]);
    }
    return;
  }

  // Nothing signed in: no session for the identity, and a browser signed in before keeps its session.
  if (world.other) expect(await rows('SELECT user_id FROM sessions WHERE session_token = $1', [storedSessionToken(world.other.token)])).toEqual([{ user_id: world.other.id }]);
  if (!storesUsers(variant)) {
    // JWT sessions: no cookie was set, so the browser has no session at all.
    const session = (await (await t.client.get('/auth/session')).json()) as { user?: unknown } | null;
    expect(session?.user).toBeUndefined();
    return;
  }
  // (An id or address PostgreSQL refused cannot be looked up either: nothing was written under it.)
  if (r === R.addressTaken || r === R.idOtherAddress) {
    // A refused sign-in makes no user and links no account.
    if (provider === 'credentials') {
      if (r === R.addressTaken) expect(await rows('SELECT id FROM users WHERE id = $1', [world.identity.userId])).toEqual([]);
      expect(await rows('SELECT 1 FROM accounts WHERE provider = $1 AND provider_account_id = $2', ['credentials', world.identity.userId])).toEqual([]);
    } else {
      expect(await rows('SELECT 1 FROM accounts WHERE provider = $1 AND provider_account_id = $2', [provider, providerAccountId])).toEqual([]);
    }
  }
  if (r === R.refusesUser) expect(await rows('SELECT 1 FROM users WHERE email = $1', [email])).toEqual([]);
  if (r === R.registersForAnother || r === R.noPasskeyOwner) expect(await rows('SELECT 1 FROM authenticators WHERE credential_id = $1', [providerAccountId])).toEqual([]);
  if (issue === I.refusesSession) {
    // The user was made before the session failed (and the events said so); no session row names them.
    const created = await newUserId(pg, run);
    expect(created).toBeTruthy();
    expect(await rows('SELECT 1 FROM sessions WHERE user_id = $1', [created])).toEqual([]);
  }
}

describe('sign-in tail coverage', () => {
  it('took every state and every transition of the machine', () => {
    const report = coverage.report();
    expect(report.states.total).toBeGreaterThan(0);
    coverage.assertComplete();
    expect(report.states.covered).toBe(report.states.total);
    expect(report.transitions.covered).toBe(report.transitions.total);
  });
});
