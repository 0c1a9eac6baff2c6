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
  C,
  DB_FAILURES,
  E,
  F,
  factorBranches,
  factorNeedOutcomes,
  findOwnerOutcomes,
  I,
  N,
  O,
  P,
  PASSKEY_VARIANT,
  pathsFor,
  R,
  RESOLUTION_EVENTS,
  resolveOutcomes,
  S,
  signInOutcomes,
  storesUsers,
  variants,
  type Variant,
} from './signin-model.js';
import { newUserId, PASSWORD, play, rows as query, SESSION_COOKIE, sessionUserId, type Run } from './signin-world.js';
import { setsSession, STAGE_COOKIE, stageCookieOf } from '../../support/factors.js';
import { storedSessionToken } from '../../../src/session/session-token.js';

const pg = useMigratedPGlite();
const rows = <T>(sql: string, params: unknown[]) => query<T>(pg, sql, params);

/** The events the stage emits on a path: a failure per wrong code, the enrolled factor. */
function stageEvents(path: ModelPath): string[] {
  return path.events.flatMap((e) => {
    const checks = ['xstate.done.actor.checkFactorCode', 'xstate.done.actor.confirmEnrolment', 'xstate.done.actor.checkPasskey'];
    if (checks.includes(e.type) && e.output.result !== 'passed') return ['secondFactorFailed'];
    return e.type === 'xstate.done.actor.activateFactor' ? ['factorEnrolled'] : [];
  });
}

function expectedFor(path: ModelPath, b: Record<string, string>) {
  const written = [...(path.events.some((e) => e.type === 'xstate.done.actor.resolveUser') ? (RESOLUTION_EVENTS[b.resolveUser] ?? []) : []), ...stageEvents(path)];
  const dbFailure = Object.values(b).some((branch) => DB_FAILURES.has(branch));
  switch (path.finalState) {
    case 'done':
      return { status: 'signedIn', location: `${ORIGIN}/dashboard`, session: true, events: [...written, 'signIn'], logged: [] };
    case 'awaitingFactor':
    case 'awaitingEnrolment':
      // Still at the stage (a wrong code, asked again): its page, no session, nothing logged.
      return { status: 'paused', location: null, session: false, events: written, logged: [] };
    case 'failed.secondFactor':
      // Too many wrong codes, or too late: the pending sign-in is dead; never a signIn event.
      return { status: 'failed', location: `${ORIGIN}/auth/error?error=SecondFactorFailed`, session: false, events: written, logged: ['SecondFactorFailed'] };
    case 'redirected':
      return { status: 'redirected', location: `${ORIGIN}/blocked`, session: false, events: [], logged: [] };
    case 'failed.accessDenied':
      // A refused session still leaves what resolveUser wrote, and says so; never a signIn event.
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
      const passkey = variant === PASSKEY_VARIANT ? [...Object.values(O), ...Object.values(P)] : [];
      const stage = factorBranches[variant] ? [...factorNeedOutcomes(variant, factorBranches[variant].stored).map((o) => o.branch), ...Object.values(S), ...Object.values(C), ...Object.values(E), ...passkey] : [N.off];
      const offered = [...[...findOwnerOutcomes[variant], ...signInOutcomes, ...resolveOutcomes[variant].unknown, ...resolveOutcomes[variant].known].map((o) => o.branch), ...stage];
      for (const branch of offered) {
        expect(taken.has(branch), `${variant}: ${branch}`).toBe(true);
      }
    }
  });

  it('reaches every final state across the variants', () => {
    const finals = new Set([...pathsByVariant.values()].flat().map((p) => p.finalState));
    expect([...finals].sort()).toEqual([
      'awaitingEnrolment',
      'awaitingFactor',
      'done',
      'failed.accessDenied',
      'failed.accountNotLinked',
      'failed.callbackRoute',
      'failed.oauthAccountNotLinked',
      'failed.secondFactor',
      'redirected',
    ]);
  });
});

describe.each(variants)('sign-in tail, model paths with %s', (variant) => {
  const paths = pathsByVariant.get(variant)!;

  it.each(paths.map((p) => [`${p.description} [${Object.values(branchesOf(p)).join(', ')}]`, p] as const))('%s', async (_name, path) => {
    const b = branchesOf(path);
    const want = expectedFor(path, b);
    const run = await play(pg, variant, path);
    coverage.record(run.tail);

    // The carrier flow proved the identity; the real tail took the model's path, transition by transition.
    expect(run.flowTrace.at(-1)?.to).toBe('authenticated');
    expect(run.tail.map((e) => e.event)).toEqual(path.events.map((e) => e.type));
    expect(run.tail.at(-1)?.to).toBe(path.finalState);
    expect(run.status).toBe(want.status);

    expect(run.res.status).toBe(want.status === 'paused' ? (refusedOptions(b) ? 400 : 200) : 302);
    expect(run.res.headers.get('location')).toBe(want.location);
    expect(setsSession(run.res), 'a session cookie is set').toBe(want.session);
    expectStage(run, path);
    expect(run.recorded.events.map((e) => e.name)).toEqual(want.events);
    expect(run.t.logger.errorTypes()).toEqual(want.logged);
    if (path.events.some((e) => e.type.endsWith('.actor.checkSignIn'))) expectSignInCallback(variant, run, b);
    else expect(run.recorded.signIns).toEqual([]);

    await expectWorld(variant, run, path, b);
    if (storesUsers(variant)) await expectFactors(path, b, run.world.factor?.userId ?? (b.factorNeed === N.enrol ? await newUserId(pg, run) : undefined));
  });
});

/** A path that ends asking for passkey options the stage cannot give (none offered, or none left): a 400. */
const refusedOptions = (b: Record<string, string>) => b.PASSKEY_OPTIONS === O.notOffered || b.passkeyOptions === O.gone;

/**
 * A path through the stage paused at it first: the form post answered the stage's page and its cookie, no
 * session; every answer before the last set no session either, and the last spent the cookie unless still paused.
 */
function expectStage(run: Run, path: ModelPath) {
  const paused = path.events.some((e) => ['SUBMIT_CODE', 'PASSKEY_OPTIONS', 'SUBMIT_PASSKEY'].includes(e.type)) || path.finalState.startsWith('awaiting');
  const [first] = run.responses;
  if (!paused) {
    expect(run.responses).toHaveLength(1);
    expect(stageCookieOf(first), 'no stage without a factor').toBeUndefined();
    return;
  }
  const b = branchesOf(path);
  for (const res of run.responses.slice(0, -1)) {
    expect(res.status).toBe(200);
    expect(setsSession(res), 'no session before the factor').toBe(false);
    expect(stageCookieOf(res), 'the stage cookie').toBeTruthy();
  }
  const enrolling = path.events.some((e) => e.type === 'xstate.done.actor.startEnrolment');
  expect(run.pages[0]).toContain(enrolling ? 'Set up two-step verification' : 'Two-step verification');
  expect(run.pages[0]).toMatch(/action="[^"]*\/auth\/second-factor"/);
  if (b.factorNeed === N.verifyPasskey) expect(run.pages[0]).toContain('data-action="authenticate">Use a passkey instead</button>');
  else expect(run.pages[0]).not.toContain('data-webauthn');
  if (path.finalState.startsWith('awaiting')) {
    expect(stageCookieOf(run.res)).toBeTruthy();
    const asked = path.events.at(-1)?.type === 'xstate.done.actor.passkeyOptions';
    if (refusedOptions(b)) expect(JSON.parse(run.pages.at(-1)!)).toMatchObject({ error: 'InvalidRequest' });
    // Options asked for again: the newer challenge is the one sealed.
    else if (asked) expect(JSON.parse(run.pages.at(-1)!)).toMatchObject({ action: 'authenticate', options: { challenge: expect.any(String) } });
    else expect(run.pages.at(-1)).toContain(b.checkPasskey ? 'That passkey could not be verified' : 'That code did not match');
  } else {
    expect(run.res.setCookie.some((l) => l.startsWith(`${STAGE_COOKIE}=;`) && /max-age=0/i.test(l)), 'the stage cookie is spent').toBe(true);
  }
}

/** The second-factor rows a path through the stage leaves: spent steps and codes, enrolled factors, counted misses. */
async function expectFactors(path: ModelPath, b: Record<string, string>, userId: string | undefined) {
  if (!userId || !path.events.some((e) => e.type === 'xstate.done.actor.factorNeed')) return;
  const factors = await rows<{ kind: string; activated_at: Date | null; last_step: number | null }>('SELECT kind, activated_at, last_step FROM factors WHERE user_id = $1', [userId]);
  const totp = factors.filter((f) => f.kind === 'totp');
  if (b.factorNeed === N.verify || b.factorNeed === N.verifyPasskey) {
    // The factor stays; the step is spent only by the right code (the backup code is gone instead).
    expect(totp).toHaveLength(1);
    expect(totp[0].last_step !== null).toBe(b.checkFactorCode === C.otp);
    if (b.checkFactorCode === C.backup) expect(factors.filter((f) => f.kind === 'backup')).toEqual([]);
  }
  if (b.factorNeed === N.verifyPasskey && b.passkeyOptions !== O.gone) {
    // The passkey's counter moves only with a verified assertion whose new counter the database took.
    const [passkey] = await rows<{ counter: number }>('SELECT counter FROM authenticators WHERE user_id = $1', [userId]);
    expect(Number(passkey.counter)).toBe(b.checkPasskey === P.valid ? 1 : 0);
  }
  if (b.factorNeed === N.enrol) {
    // Active only once its first code passed and the activation was stored; a refused new factor is no row at all.
    const activated = b.activateFactor === E.activated;
    if (b.startEnrolment === E.refusesNew || b.enrolmentPage === E.gone) expect(totp).toEqual([]);
    else expect(totp.map((f) => f.activated_at !== null)).toEqual([activated]);
  }
  if (b.factorNeed === N.none || b.factorNeed === N.off) expect(factors).toEqual([]);
  if (path.finalState !== 'done') expect(await rows('SELECT 1 FROM sessions WHERE user_id = $1', [userId]), 'no session row for the user').toEqual([]);
}

/** The rows and the session each path must leave behind. */
async function expectWorld(variant: Variant, run: Run, path: ModelPath, b: Record<string, string>) {
  const { world, t, recorded } = run;
  const r = path.events.some((e) => e.type.endsWith('.actor.resolveUser')) ? b.resolveUser : undefined;
  const { provider, providerAccountId, email } = world.identity;

  if (path.finalState === 'done') {
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
  if (!storesUsers(variant)) return;
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
  if (b.issueSession === I.refusesSession) {
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
