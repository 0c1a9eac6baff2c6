// The world of the sign-in tail's model test: for a path's branches, a configuration and database rows (PGlite)
// that make the real tail take it, and one HTTP sign-in through a real flow that ends `authenticated` (the
// credentials flow for credentials accounts, a custom flow proving the identity for the others).
import { randomUUID } from 'node:crypto';
import { expect, vi } from 'vitest';
import type { Adapter } from '../../../src/core/adapter.js';
import type { AuthConfig, EventsOptions, SignInCallbackParams } from '../../../src/core/options.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { ORIGIN, testAuth, type TestAuth } from '../../support/auth-app.js';
import type { ClientResponse } from '../../support/client.js';
import type { ModelPath } from '../../support/model-paths.js';
import type { MigratedPGlite } from '../../support/pglite.js';
import { identityProvider, type ProvenIdentity } from './identity-flow.js';
import { accountType, branchesOf, C, E, F, factorBranches, I, N, O, P, R, S, storesUsers, type Variant } from './signin-model.js';
import { storedSessionToken } from '../../../src/session/session-token.js';
import { FACTOR_TTL_MS } from '../../../src/flows/factors/steps.js';
import { activeBackupCode, activeTotp, codeNow, keyOnPage, otherCode, registeredPasskey } from '../../support/factors.js';
import type { SoftAuthenticator } from '../webauthn/webauthn-authenticator.js';
import { Passkey } from '../../../src/providers/webauthn.js';

export const SESSION_COOKIE = 'authchart.session-token';
export const PASSWORD = 'correct horse battery staple';
const NUL = '\u0000';

export interface World {
  config: Partial<AuthConfig> & Pick<AuthConfig, 'providers'>;
  /** The provider the browser posts to, and what it posts. */
  providerId: string;
  form: Record<string, string>;
  /** Who the sign-in must end as (`new`: a user this sign-in creates, found by its account or address). */
  expectedUser: { kind: 'identity' | 'new' | 'stored'; id?: string; email?: string | null };
  /** A user this browser was signed in as before (database session), and that session's token. */
  other?: { id: string; token: string };
  /** The stored user the identity belongs to, when one does. */
  ownerId?: string;
  /** The second-factor stage's set-up: the stored user's app key, backup code and passkey, when the path needs them. */
  factor?: { userId?: string; key?: Uint8Array; backupCode?: string; device?: SoftAuthenticator };
  identity: { userId: string; email: string; providerAccountId: string; provider: string };
}

export interface Recorded {
  events: { name: string; message: Record<string, unknown> }[];
  signIns: SignInCallbackParams[];
}

const slug = () => randomUUID().replace(/-/g, '').slice(0, 16);

async function storedUser(pg: MigratedPGlite, name: string, email: string | null, id = `user-${slug()}`): Promise<string> {
  await pg.adapter.createUser!({ id, name, email: email as string, emailVerified: null, image: null });
  return id;
}

/** A database session for `userId`, as if this browser had signed in as them before. */
async function signedInAs(pg: MigratedPGlite, t: TestAuth, userId: string): Promise<string> {
  const token = randomUUID();
  await pg.adapter.createSession!({ sessionToken: storedSessionToken(token), userId, expires: new Date(Date.now() + 3_600_000) });
  t.client.cookies.set(SESSION_COOKIE, token, ORIGIN);
  return token;
}

/** Builds the configuration and rows that make the real tail answer the path's branches. Returns the world. */
async function worldFor(pg: MigratedPGlite, variant: Variant, b: Record<string, string>, recorded: Recorded): Promise<{ world: World; signInOther: boolean }> {
  const id = slug();
  const type = accountType(variant);
  let email = `u${id}@example.com`;
  let providerAccountId = `acct-${id}`;
  let userId = `user-${id}`;
  let signInOther = false;
  const config: Partial<AuthConfig> = {};
  const world: Partial<World> = {};

  const record = (name: string) => async (message: unknown) => void recorded.events.push({ name, message: message as Record<string, unknown> });
  const events: EventsOptions = {
    signIn: record('signIn'),
    createUser: record('createUser'),
    linkAccount: record('linkAccount'),
    updateUser: record('updateUser'),
    secondFactorFailed: record('secondFactorFailed'),
    factorEnrolled: record('factorEnrolled'),
  };
  config.events = events;
  config.callbacks = {
    signIn: async (params) => {
      recorded.signIns.push(params);
      if (b.checkSignIn === 'signIn throws') throw new Error('signIn callback crashed');
      if (b.checkSignIn === 'signIn returns a URL') return '/blocked';
      return b.checkSignIn === 'signIn returns true';
    },
  };
  if (b.issueSession === I.jwtNull) config.callbacks.jwt = async () => null;
  if (b.issueSession === I.jwtThrows) {
    config.callbacks.jwt = async () => {
      throw new Error('jwt callback crashed');
    };
  }
  let adapter: Adapter | undefined = storesUsers(variant) ? pg.adapter : undefined;
  config.session = adapter ? { strategy: 'database' } : { strategy: 'jwt' };

  // The database refuses the lookup: an id or address with a NUL byte fails in PostgreSQL, not in a mock.
  if (b.findOwner === F.fails) {
    if (type === 'email') email = `bad${NUL}${id}@example.com`;
    else providerAccountId = `bad${NUL}${id}`;
  }
  const provider = type === 'credentials' ? 'credentials' : 'proof';
  const r = b.resolveUser;
  let expectedUser: World['expectedUser'] = { kind: 'new' };

  if (type === 'credentials') {
    if (r === R.refusesId) userId = `bad${NUL}${id}`;
    if (r === R.found || r === R.foundSwitching) {
      world.ownerId = await storedUser(pg, 'Ada (stored)', email, userId);
      await pg.adapter.linkAccount!({ provider: 'credentials', type: 'credentials', providerAccountId: userId, userId });
    }
    if (r === R.foundById) world.ownerId = await storedUser(pg, 'Ada (stored)', email, userId);
    if (r === R.idOtherAddress) world.ownerId = await storedUser(pg, 'Someone', `other-${id}@example.com`, userId);
    if (r === R.addressTaken) await storedUser(pg, 'Someone', email);
    if (r === R.foundSwitching) signInOther = true;
    expectedUser = variant === 'credentials-jwt' ? { kind: 'identity' } : world.ownerId ? { kind: 'stored', id: world.ownerId } : { kind: 'new', id: userId };
    config.providers = [
      Credentials({
        credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
        authorize: async (c) => (c.password === PASSWORD ? { id: userId, name: 'Ada', email } : null),
      }),
    ];
    world.form = { email, password: PASSWORD };
  } else {
    const identity: ProvenIdentity = { user: { id: providerAccountId, name: 'Ada', email }, account: { type, providerAccountId } };
    const extra: Record<string, unknown> = {};
    if (type === 'oauth') {
      identity.profile = { sub: providerAccountId, email, name: 'Ada' };
      identity.account = { ...identity.account, access_token: 'at', token_type: 'bearer' };
    }
    if (b.findOwner === F.known) {
      world.ownerId = await storedUser(pg, 'Stored', type === 'webauthn' ? null : email);
      if (type !== 'email') await pg.adapter.linkAccount!({ provider, type, providerAccountId, userId: world.ownerId });
    }
    if (r === R.ownerOtherSignedIn || r === R.linkedToCurrent || r === R.verifiedSwitching || r === R.registersSignedIn || r === R.registersForAnother) signInOther = true;
    if (r === R.linkedByAddress || r === R.addressTaken) world.ownerId = await storedUser(pg, 'Same address', email);
    if (r === R.linkedByAddress) extra.allowDangerousEmailAccountLinking = true;
    // A NUL byte in the name: the user row PostgreSQL is asked to write is refused.
    if (r === R.refusesUser && type === 'oauth') identity.user = { ...identity.user, name: `Ada${NUL}` };
    if (r === R.refusesUser && type === 'email') {
      adapter = {
        ...pg.adapter,
        createUser: async () => {
          throw new Error('users table is read-only');
        },
      };
    }
    config.providers = [identityProvider(identity, extra)];
    world.form = {};
    if (world.ownerId && r !== R.addressTaken) expectedUser = { kind: 'stored', id: world.ownerId };
    if (r === R.asGiven) expectedUser = { kind: 'identity' };
    // Registration: the passkey and whom its options were made for (filled in below once the other user exists).
    if (type === 'webauthn' && b.findOwner === F.unknown && r !== R.noPasskeyOwner) {
      identity.passkey = {
        credential: { credentialID: providerAccountId, credentialPublicKey: 'cHVibGljLWtleQ', counter: 0, credentialDeviceType: 'singleDevice', credentialBackedUp: false, transports: 'internal' },
      };
    }
  }
  config.adapter = adapter;
  // Every world that stores users runs the stage (on a user without factors it lets the sign-in through).
  if (storesUsers(variant)) {
    const enrol = b.factorNeed === N.enrol;
    const lastAttempt = b.checkFactorCode === C.locked || b.confirmEnrolment === E.locked || b.checkPasskey === P.locked;
    config.secondFactor = {
      ...(enrol ? { require: true } : {}),
      ...(b.factorNeed === N.requireThrows
        ? {
            require: () => {
              throw new Error('require callback crashed');
            },
          }
        : {}),
      ...(lastAttempt ? { maxAttempts: 1 } : {}),
    };
  }
  // A passkey beside the app: the WebAuthn provider its options and verification come from.
  if (b.factorNeed === N.verifyPasskey) {
    config.providers = [...config.providers!, Passkey()];
    config.experimental = { enableWebAuthn: true };
  }
  world.config = config as World['config'];
  world.providerId = provider;
  world.expectedUser = expectedUser;
  world.identity = { userId, email, providerAccountId, provider };
  return { world: world as World, signInOther };
}

export interface Run {
  t: TestAuth;
  world: World;
  res: ClientResponse;
  recorded: Recorded;
  /** Every response, first the flow's form post, then one per code posted at the stage; and their bodies. */
  responses: ClientResponse[];
  pages: string[];
  /** The carrier flow's transitions, and the tail's after them (across the stage's requests). */
  flowTrace: TraceEntry[];
  tail: TraceEntry[];
  status: string;
}

/** Sets the world up, signs the browser in as someone else where the path needs it, and posts the flow's form once. */
export async function play(pg: MigratedPGlite, variant: Variant, path: ModelPath): Promise<Run> {
  const b = branchesOf(path);
  const recorded: Recorded = { events: [], signIns: [] };
  const { world, signInOther } = await worldFor(pg, variant, b, recorded);
  const t = testAuth(world.config);
  if (signInOther) {
    const otherId = b.resolveUser === R.linkedToCurrent || b.resolveUser === R.registersSignedIn ? await storedUser(pg, 'Signed in', `in-${slug()}@example.com`) : await storedUser(pg, 'Someone else', `else-${slug()}@example.com`);
    world.other = { id: otherId, token: await signedInAs(pg, t, otherId) };
    if (b.resolveUser === R.linkedToCurrent || b.resolveUser === R.registersSignedIn) world.expectedUser = { kind: 'stored', id: otherId };
  }
  const passkey = (world.config.providers[0] as { identity?: ProvenIdentity }).identity?.passkey;
  if (passkey) passkey.forUserId = b.resolveUser === R.registersSignedIn ? world.other?.id : b.resolveUser === R.registersForAnother ? `someone-${slug()}` : undefined;
  await setUpStage(pg, variant, world, b);
  // The session write fails in PostgreSQL (tokens are stored hashed: no token can make the insert fail by itself).
  if (b.issueSession === I.refusesSession) {
    const { userId, email, providerAccountId } = world.identity;
    await refuse(pg, { credentials: userId, email }[accountType(variant) as string] ?? providerAccountId, 'session');
  }

  const csrfToken = await t.csrfToken();
  const responses: ClientResponse[] = [];
  const pages: string[] = [];
  const answer = async (res: ClientResponse) => {
    responses.push(res);
    pages.push(await res.text());
  };
  await answer(await t.client.post(`/auth/callback/${world.providerId}`, { csrfToken, callbackUrl: '/dashboard', ...world.form }));
  try {
    // The stage's requests, one per event the browser sends: a code, a request for passkey options, an assertion.
    let options: unknown;
    for (const [i, event] of path.events.entries()) {
      if (!['SUBMIT_CODE', 'PASSKEY_OPTIONS', 'SUBMIT_PASSKEY'].includes(event.type)) continue;
      const next = path.events[i + 1] as { branch?: string } | undefined;
      const code = event.type === 'SUBMIT_CODE' ? await codeFor(pg, world, next, b, pages.at(-1)!) : '';
      if ((event as { branch?: string }).branch === S.late) {
        vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
        vi.setSystemTime(Date.now() + FACTOR_TTL_MS + 1_000);
      }
      if (event.type === 'SUBMIT_CODE') await answer(await t.client.post('/auth/second-factor', { csrfToken, code }));
      if (event.type === 'PASSKEY_OPTIONS') {
        if (next?.branch === O.gone) await pg.db.query('DELETE FROM authenticators WHERE user_id = $1', [world.factor!.userId]);
        // The table is away for this one request: listing the passkeys fails in PostgreSQL.
        if (next?.branch === O.unavailable) await pg.db.exec('ALTER TABLE authenticators RENAME TO authenticators_away');
        try {
          await answer(await t.client.get('/auth/second-factor?action=authenticate', { headers: { accept: 'application/json' } }));
        } finally {
          if (next?.branch === O.unavailable) await pg.db.exec('ALTER TABLE authenticators_away RENAME TO authenticators');
        }
        if (next?.branch === O.offered) options = (JSON.parse(pages.at(-1)!) as { options: unknown }).options;
      }
      if (event.type === 'SUBMIT_PASSKEY') {
        const bad = next?.branch === P.bad || next?.branch === P.locked;
        const assertion = options ? world.factor!.device!.authenticate(options as never, { badSignature: bad }) : {};
        await answer(await t.client.post('/auth/second-factor', { csrfToken, action: 'authenticate', data: JSON.stringify(assertion) }));
      }
    }
  } finally {
    vi.useRealTimers();
  }
  // The flow's record, then one record of the tail per request at the stage.
  const machine = world.providerId === 'credentials' ? 'credentials' : 'identity';
  const logged = t.logger.debugs.filter((d) => d.message.startsWith(`flow ${machine} `));
  expect(logged, 'one flow record logged').toHaveLength(1);
  const resumed = t.logger.debugs.filter((d) => d.message.startsWith('flow signin '));
  expect(resumed, 'one tail record per request at the stage').toHaveLength(responses.length - 1);
  const trace = [logged[0], ...resumed].flatMap((r) => (r.metadata as { trace: TraceEntry[] }).trace);
  const last = [logged[0], ...resumed].at(-1)!;
  return {
    t,
    world,
    res: responses.at(-1)!,
    responses,
    pages,
    recorded,
    flowTrace: trace.filter((e) => e.machine === undefined),
    tail: trace.filter((e) => e.machine === 'signin'),
    status: last.message.replace(/^flow \S+ /, ''),
  };
}

/**
 * Test-only triggers: PostgreSQL refuses one write (a new factor, a spent step, an activation, a new session, a
 * passkey's new counter) for one user, for real. The user is named by its id, an account's provider id or its
 * address, whichever the world knows before the sign-in makes the user.
 */
const refusalsReady = new WeakSet<MigratedPGlite>();
async function refuse(pg: MigratedPGlite, who: string, op: 'create' | 'step' | 'activate' | 'session' | 'counter'): Promise<void> {
  if (!refusalsReady.has(pg)) {
    await pg.db.exec(`
      CREATE TABLE model_refusals (who text NOT NULL, op text NOT NULL);
      CREATE FUNCTION model_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (
          SELECT 1 FROM model_refusals r WHERE r.op = TG_ARGV[0] AND (
            r.who = NEW.user_id
            OR EXISTS (SELECT 1 FROM accounts a WHERE a.user_id = NEW.user_id AND a.provider_account_id = r.who)
            OR EXISTS (SELECT 1 FROM users u WHERE u.id = NEW.user_id AND u.email = r.who))
        ) THEN
          RAISE EXCEPTION 'refused for the model: %', TG_ARGV[0];
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER model_refuse_create BEFORE INSERT ON factors FOR EACH ROW EXECUTE FUNCTION model_refuse('create');
      CREATE TRIGGER model_refuse_step BEFORE UPDATE OF last_step ON factors FOR EACH ROW EXECUTE FUNCTION model_refuse('step');
      CREATE TRIGGER model_refuse_activate BEFORE UPDATE OF activated_at ON factors FOR EACH ROW EXECUTE FUNCTION model_refuse('activate');
      CREATE TRIGGER model_refuse_session BEFORE INSERT ON sessions FOR EACH ROW EXECUTE FUNCTION model_refuse('session');
      CREATE TRIGGER model_refuse_counter BEFORE UPDATE ON authenticators FOR EACH ROW EXECUTE FUNCTION model_refuse('counter');`);
    refusalsReady.add(pg);
  }
  await pg.db.query('INSERT INTO model_refusals (who, op) VALUES ($1, $2)', [who, op]);
}

/** The stored user's factors (an active app, a backup code) and the database refusals the path's branches need. */
async function setUpStage(pg: MigratedPGlite, variant: Variant, world: World, b: Record<string, string>): Promise<void> {
  if (!storesUsers(variant) || b.resolveUser !== factorBranches[variant]?.stored || !b.factorNeed) return;
  const userId = world.ownerId!;
  world.factor = { userId };
  if (b.factorNeed === N.verify || b.factorNeed === N.verifyPasskey) {
    world.factor.key = await activeTotp(pg.adapter, userId);
    if (b.checkFactorCode === C.backup) world.factor.backupCode = await activeBackupCode(pg.adapter, userId);
  }
  if (b.factorNeed === N.verifyPasskey) world.factor.device = await registeredPasskey(pg.adapter, userId);
  if (b.checkPasskey === P.refused) await refuse(pg, userId, 'counter');
  if (b.startEnrolment === E.refusesNew) await refuse(pg, userId, 'create');
  if (b.checkFactorCode === C.refused || b.confirmEnrolment === E.refused) await refuse(pg, userId, 'step');
  if (b.activateFactor === E.refusesActivation) await refuse(pg, userId, 'activate');
}

/** The code a person types for the outcome the path wants next (the key of an enrolment comes from its page). */
async function codeFor(pg: MigratedPGlite, world: World, next: { branch?: string } | undefined, b: Record<string, string>, page: string): Promise<string> {
  const enrolling = b.factorNeed === N.enrol;
  const key = enrolling ? keyOnPage(page) : world.factor?.key;
  if (!key) throw new Error('no key to compute a code from');
  const right = codeNow(key);
  switch (next?.branch) {
    case C.backup:
      return world.factor!.backupCode!;
    case C.wrong:
    case C.locked:
    case E.wrong:
    case E.locked:
      // The factor being enrolled removed before the (wrong) code: the page cannot be shown again.
      if (b.enrolmentPage === E.gone) await pg.db.query('DELETE FROM factors WHERE user_id = $1 AND activated_at IS NULL', [world.factor!.userId]);
      return otherCode(right);
    default:
      // The right code: passed, or refused by the database on the way (and any code when the check expired).
      return right;
  }
}

/** Rows of a query on the test database. */
export async function rows<T>(pg: MigratedPGlite, sql: string, params: unknown[]): Promise<T[]> {
  return (await pg.db.query<T>(sql, params)).rows;
}

/** The id of the user a sign-in ended as, from the session row its cookie names (database sessions). */
export async function sessionUserId(pg: MigratedPGlite, t: TestAuth): Promise<string | undefined> {
  const token = t.client.cookies.get(SESSION_COOKIE);
  if (!token) return undefined;
  return (await rows<{ user_id: string }>(pg, 'SELECT user_id FROM sessions WHERE session_token = $1', [storedSessionToken(token)]))[0]?.user_id;
}

/** The user a new sign-in made: through its account row, else (an e-mail sign-in) its address. */
export async function newUserId(pg: MigratedPGlite, run: Run): Promise<string | undefined> {
  const { provider, providerAccountId, email, userId } = run.world.identity;
  if (provider === 'credentials') return userId;
  const account = await rows<{ user_id: string }>(pg, 'SELECT user_id FROM accounts WHERE provider = $1 AND provider_account_id = $2', [provider, providerAccountId]);
  if (account[0]) return account[0].user_id;
  return (await rows<{ id: string }>(pg, 'SELECT id FROM users WHERE email = $1', [email]))[0]?.id;
}
