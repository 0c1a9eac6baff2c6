// The world of the sign-in tail's model test: for a path's branches, a configuration and database rows (PGlite)
// that make the real tail take it, and one HTTP sign-in through a real flow that ends `authenticated` (the
// credentials flow for credentials accounts, a custom flow proving the identity for the others).
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Adapter } from '../../../src/core/adapter.js';
import type { AuthConfig, EventsOptions, SignInCallbackParams } from '../../../src/core/options.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { ORIGIN, testAuth, type TestAuth } from '../../support/auth-app.js';
import type { ClientResponse } from '../../support/client.js';
import type { ModelPath } from '../../support/model-paths.js';
import type { MigratedPGlite } from '../../support/pglite.js';
import { identityProvider, type ProvenIdentity } from './identity-flow.js';
import { accountType, branchesOf, F, I, R, storesUsers, type IssueFailure, type Variant } from './signin-model.js';
import { storedSessionToken } from '../../../src/session/session-token.js';

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
async function worldFor(pg: MigratedPGlite, variant: Variant, b: Record<string, string>, issue: IssueFailure | undefined, recorded: Recorded): Promise<{ world: World; signInOther: boolean }> {
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
  if (issue === I.jwtNull) config.callbacks.jwt = async () => null;
  if (issue === I.jwtThrows) {
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
  // No second factor here (its own model covers it): the resolved user is signed in straight away.
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
  page: string;
  recorded: Recorded;
  /** The carrier flow's transitions, and the tail's after them. */
  flowTrace: TraceEntry[];
  tail: TraceEntry[];
  /** Any other machine's transitions in the record (none: no second factor is configured). */
  others: TraceEntry[];
  status: string;
}

/**
 * Sets the world up, signs the browser in as someone else where the path needs it, and posts the flow's form once.
 * `issue` makes the session issue after the tail fail (the tail's path is the same).
 */
export async function play(pg: MigratedPGlite, variant: Variant, path: ModelPath, issue?: IssueFailure): Promise<Run> {
  const b = branchesOf(path);
  const recorded: Recorded = { events: [], signIns: [] };
  const { world, signInOther } = await worldFor(pg, variant, b, issue, recorded);
  const t = testAuth(world.config);
  if (signInOther) {
    const otherId = b.resolveUser === R.linkedToCurrent || b.resolveUser === R.registersSignedIn ? await storedUser(pg, 'Signed in', `in-${slug()}@example.com`) : await storedUser(pg, 'Someone else', `else-${slug()}@example.com`);
    world.other = { id: otherId, token: await signedInAs(pg, t, otherId) };
    if (b.resolveUser === R.linkedToCurrent || b.resolveUser === R.registersSignedIn) world.expectedUser = { kind: 'stored', id: otherId };
  }
  const passkey = (world.config.providers[0] as { identity?: ProvenIdentity }).identity?.passkey;
  if (passkey) passkey.forUserId = b.resolveUser === R.registersSignedIn ? world.other?.id : b.resolveUser === R.registersForAnother ? `someone-${slug()}` : undefined;
  // The session write fails in PostgreSQL (tokens are stored hashed: no token can make the insert fail by itself).
  if (issue === I.refusesSession) {
    const { userId, email, providerAccountId } = world.identity;
    await refuseSessions(pg, { credentials: userId, email }[accountType(variant) as string] ?? providerAccountId);
  }

  const csrfToken = await t.csrfToken();
  const res = await t.client.post(`/auth/callback/${world.providerId}`, { csrfToken, callbackUrl: '/dashboard', ...world.form });
  const page = await res.text();
  // One request, one record, logged under the carrier flow's machine; the tail's entries are in it.
  const machine = world.providerId === 'credentials' ? 'credentials' : 'identity';
  const records = t.logger.debugs.filter((d) => d.message.startsWith('flow '));
  expect(records.map((r) => r.message.split(' ')[1]), 'one flow record, the carrier flow\'s').toEqual([machine]);
  const trace = (records[0].metadata as { trace: TraceEntry[] }).trace;
  return {
    t,
    world,
    res,
    page,
    recorded,
    flowTrace: trace.filter((e) => e.machine === undefined),
    tail: trace.filter((e) => e.machine === 'signin'),
    others: trace.filter((e) => e.machine !== undefined && e.machine !== 'signin'),
    status: records[0].message.replace(/^flow \S+ /, ''),
  };
}

/**
 * Test-only trigger: PostgreSQL refuses a new session for one user, for real. The user is named by its id, an
 * account's provider id or its address, whichever the world knows before the sign-in makes the user.
 */
const refusalsReady = new WeakSet<MigratedPGlite>();
async function refuseSessions(pg: MigratedPGlite, who: string): Promise<void> {
  if (!refusalsReady.has(pg)) {
    await pg.db.exec(`
      CREATE TABLE model_refusals (who text NOT NULL);
      CREATE FUNCTION model_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (
          SELECT 1 FROM model_refusals r WHERE
            r.who = NEW.user_id
            OR EXISTS (SELECT 1 FROM accounts a WHERE a.user_id = NEW.user_id AND a.provider_account_id = r.who)
            OR EXISTS (SELECT 1 FROM users u WHERE u.id = NEW.user_id AND u.email = r.who)
        ) THEN
          RAISE EXCEPTION 'refused for the model: session';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER model_refuse_session BEFORE INSERT ON sessions FOR EACH ROW EXECUTE FUNCTION model_refuse();`);
    refusalsReady.add(pg);
  }
  await pg.db.query('INSERT INTO model_refusals (who) VALUES ($1)', [who]);
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
export async function newUserId(pg: MigratedPGlite, run: Pick<Run, 'world'>): Promise<string | undefined> {
  const { provider, providerAccountId, email, userId } = run.world.identity;
  if (provider === 'credentials') return userId;
  const account = await rows<{ user_id: string }>(pg, 'SELECT user_id FROM accounts WHERE provider = $1 AND provider_account_id = $2', [provider, providerAccountId]);
  if (account[0]) return account[0].user_id;
  return (await rows<{ id: string }>(pg, 'SELECT id FROM users WHERE email = $1', [email]))[0]?.id;
}
