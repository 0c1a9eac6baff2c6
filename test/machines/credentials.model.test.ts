// Model-based tests of the credentials flow: paths generated from `credentialsMachine`, each one played
// through the HTTP layer with a configuration that makes the real flow take exactly that path.
import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyEventObject, AnyMachineSnapshot } from 'xstate';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import type { AuthConfig } from '../../src/core/options.js';
import { AccessDenied, AccountNotLinked, CredentialsSignin } from '../../src/core/errors.js';
import { credentialsMachine } from '../../src/flows/credentials/machine.js';
import type { TraceEntry } from '../../src/devtools/graph.js';
import { Credentials } from '../../src/providers/credentials.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import type { ClientResponse } from '../support/client.js';
import { createCoverage } from '../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../support/model-paths.js';

/** A provider's own CredentialsSignin, whose code must reach the URL. */
class InvalidLogin extends CredentialsSignin {
  override code = 'invalid_login';
}

const SESSION_COOKIE = 'authchart.session-token';
const PASSWORD = 'correct horse battery staple';

type Strategy = 'jwt' | 'database';

/** An invoke result the model sends, labelled with the branch of configuration that produces it for real. */
type Outcome = AnyEventObject & { branch: string };

const done = (actor: string, branch: string, output: unknown): Outcome => ({ type: `xstate.done.actor.${actor}`, branch, output });
const failed = (actor: string, branch: string, error: unknown): Outcome => ({ type: `xstate.error.actor.${actor}`, branch, error });

const modelUser = { id: 'model-user', name: 'Ada', email: 'ada@example.com' };

// What each actor can answer, for either strategy. The outputs only steer the model's guards; the branch
// label says how the HTTP run is configured to make the real actor answer the same way.
const submit = { type: 'SUBMIT', credentials: { email: modelUser.email, password: PASSWORD } };
const authorizeOutcomes = [
  done('authorize', 'returns a user', modelUser),
  done('authorize', 'returns null', null),
  failed('authorize', 'throws CredentialsSignin', new InvalidLogin()),
  failed('authorize', 'throws Error', new Error('user store unreachable')),
];
const signInOutcomes = [
  done('checkSignIn', 'signIn returns true', { allowed: true }),
  done('checkSignIn', 'signIn returns a URL', { allowed: false, redirect: `${ORIGIN}/blocked` }),
  done('checkSignIn', 'signIn returns false', { allowed: false }),
  failed('checkSignIn', 'signIn throws', new Error('signIn callback crashed')),
];
// With JWT sessions the user is taken as authorize returned it, and the jwt callback decides at issue time.
const jwtOutcomes = [
  done('resolveUser', 'taken as returned', { user: modelUser, isNewUser: false }),
  done('issueSession', 'session issued', undefined),
  failed('issueSession', 'jwt returns null', new AccessDenied('The jwt callback returned no token at sign-in.')),
  failed('issueSession', 'jwt throws', new Error('jwt callback crashed')),
];
// With database sessions the user is found through its credentials account row, or created with one, in
// PostgreSQL, and the session is a row. A user it did not create is never joined by e-mail.
const modelAccount = { provider: 'credentials', type: 'credentials', providerAccountId: modelUser.id, userId: modelUser.id };
const databaseOutcomes = [
  done('resolveUser', 'created in the database', { user: modelUser, isNewUser: true, linked: true, account: modelAccount }),
  done('resolveUser', 'found in the database', { user: modelUser, isNewUser: false, linked: false, account: modelAccount }),
  // Its own user value, so the model keeps it apart from 'found in the database' all the way to `done`.
  done('resolveUser', 'found by id, account linked now', { user: { ...modelUser, name: 'Ada (by id)' }, isNewUser: false, linked: true, account: modelAccount }),
  failed('resolveUser', 'the address belongs to another user', new AccountNotLinked('taken')),
  failed('resolveUser', 'the database refuses the id', new Error('invalid byte sequence for encoding "UTF8": 0x00')),
  done('issueSession', 'session issued', undefined),
];

function pathsFor(strategy: Strategy): ModelPath[] {
  const events = [submit, ...authorizeOutcomes, ...signInOutcomes, ...(strategy === 'jwt' ? jwtOutcomes : databaseOutcomes)];
  return modelPaths(credentialsMachine, {
    events: (_snapshot: AnyMachineSnapshot) => events,
    input: { callbackUrl: `${ORIGIN}/dashboard`, providerId: 'credentials', startedAt: 0 },
  });
}

/** The branch each actor took on a path, by actor name. */
function branchesOf(path: ModelPath): Record<string, string> {
  const out: Record<string, string> = {};
  for (const event of path.events as Outcome[]) {
    const actor = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(event.type)?.[1];
    if (actor) out[actor] = event.branch;
  }
  return out;
}

let db: PGlite;

beforeAll(async () => {
  db = await PGlite.create();
  await PostgresAdapter(db).migrate();
});
afterAll(async () => {
  if (db && !db.closed) await db.close();
});

interface Run {
  t: TestAuth;
  res: ClientResponse;
  events: string[];
  userId: string;
  trace: TraceEntry[];
  status: string;
}

/** Configures an instance so that the real flow takes the path's branches, and submits the form once. */
async function play(strategy: Strategy, path: ModelPath): Promise<Run> {
  const b = branchesOf(path);
  // Unique per path: the database is shared by the whole file.
  const userId = b.resolveUser === 'the database refuses the id' ? `bad\u0000${randomUUID()}` : `user-${randomUUID()}`;
  const email = `${userId.replace(/\W/g, '')}@example.com`;
  const events: string[] = [];
  const record = (name: string) => async () => void events.push(name);

  const provider = Credentials({
    credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
    authorize: async (c) => {
      if (c.password !== PASSWORD) throw new Error('the form did not reach authorize');
      switch (b.authorize) {
        case 'returns a user':
          return { id: userId, name: 'Ada', email };
        case 'returns null':
          return null;
        case 'throws CredentialsSignin':
          throw new InvalidLogin();
        default:
          throw new Error('user store unreachable');
      }
    },
  });
  const callbacks: AuthConfig['callbacks'] = {
    signIn: async () => {
      if (b.checkSignIn === 'signIn throws') throw new Error('signIn callback crashed');
      if (b.checkSignIn === 'signIn returns a URL') return '/blocked';
      return b.checkSignIn === 'signIn returns true';
    },
  };
  if (b.issueSession === 'jwt returns null') callbacks.jwt = async () => null;
  if (b.issueSession === 'jwt throws') {
    callbacks.jwt = async () => {
      throw new Error('jwt callback crashed');
    };
  }
  const config: Partial<AuthConfig> = { callbacks, events: { signIn: record('signIn'), createUser: record('createUser'), linkAccount: record('linkAccount') } };
  if (strategy === 'database') {
    const adapter = PostgresAdapter(db);
    if (b.resolveUser === 'found in the database' || b.resolveUser === 'found by id, account linked now') {
      await adapter.createUser({ id: userId, name: 'Ada (stored)', email, emailVerified: null, image: null });
    }
    if (b.resolveUser === 'found in the database') await adapter.linkAccount({ provider: 'credentials', type: 'credentials', providerAccountId: userId, userId });
    // Someone else (an OAuth or e-mail user, say) already has the address authorize returns.
    if (b.resolveUser === 'the address belongs to another user') await adapter.createUser({ id: randomUUID(), name: 'Someone', email, emailVerified: null, image: null });
    Object.assign(config, { adapter, session: { strategy: 'database' } });
  }

  const t = testAuth({ providers: [provider], ...config });
  const csrfToken = await t.csrfToken();
  const res = await t.client.post('/auth/callback/credentials', { csrfToken, email: modelUser.email, password: PASSWORD, callbackUrl: '/dashboard' });
  const logged = t.logger.debugs.filter((d) => d.message.startsWith('flow credentials '));
  expect(logged, 'one flow trace logged').toHaveLength(1);
  const { trace } = logged[0].metadata as { trace: TraceEntry[] };
  return { t, res, events, userId, trace, status: logged[0].message.slice('flow credentials '.length) };
}

/** What the browser must see at the end of each final state. */
function expectedFor(path: ModelPath, b: Record<string, string>) {
  const signInError = (code: string) => `${ORIGIN}/auth/signin?error=CredentialsSignin&code=${code}`;
  switch (path.finalState) {
    case 'done': {
      const stored = { 'created in the database': ['createUser', 'linkAccount'], 'found by id, account linked now': ['linkAccount'] }[b.resolveUser ?? ''] ?? [];
      return { status: 'signedIn', location: `${ORIGIN}/dashboard`, session: true, events: [...stored, 'signIn'], logged: [] };
    }
    case 'redirected':
      return { status: 'redirected', location: `${ORIGIN}/blocked`, session: false, events: [], logged: [] };
    case 'failed.credentialsSignin':
      return { status: 'failed', location: signInError(b.authorize === 'throws CredentialsSignin' ? 'invalid_login' : 'credentials'), session: false, events: [], logged: ['CredentialsSignin'] };
    case 'failed.accessDenied':
      return { status: 'failed', location: `${ORIGIN}/auth/error?error=AccessDenied`, session: false, events: [], logged: ['AccessDenied'] };
    case 'failed.accountNotLinked':
      return { status: 'failed', location: `${ORIGIN}/auth/signin?error=AccountNotLinked`, session: false, events: [], logged: ['AccountNotLinked'] };
    case 'failed.callbackRoute':
      // A database failure keeps its own type in the log; the browser sees only `Configuration`.
      return { status: 'failed', location: `${ORIGIN}/auth/error?error=Configuration`, session: false, events: [], logged: [b.resolveUser === 'the database refuses the id' ? 'AdapterError' : 'CallbackRouteError'] };
    default:
      throw new Error(`no expectation for ${path.finalState}`);
  }
}

const coverage = createCoverage(credentialsMachine);
const strategies: Strategy[] = ['jwt', 'database'];
const pathsByStrategy = new Map(strategies.map((s) => [s, pathsFor(s)] as const));

afterAll(() => {
  console.log(`flow coverage: ${coverage.format()}`);
});

describe.each(strategies)('credentials flow, model paths with %s sessions', (strategy) => {
  const paths = pathsByStrategy.get(strategy)!;

  it('has a path to every final state the strategy can reach', () => {
    const finals = new Set(paths.map((p) => p.finalState));
    // Only a stored user can belong to someone else.
    const stored = strategy === 'database' ? ['failed.accountNotLinked'] : [];
    expect([...finals].sort()).toEqual(['done', 'failed.accessDenied', ...stored, 'failed.callbackRoute', 'failed.credentialsSignin', 'redirected']);
  });

  it.each(paths.map((p) => [`${p.description} [${Object.values(branchesOf(p)).join(', ')}]`, p] as const))('%s', async (_name, path) => {
    const b = branchesOf(path);
    const want = expectedFor(path, b);
    const run = await play(strategy, path);
    coverage.record(run.trace);

    // The real flow took the model's path, transition by transition.
    expect(run.trace.map((e) => e.event)).toEqual(path.events.map((e) => e.type));
    expect(run.trace.at(-1)?.to).toBe(path.finalState);
    expect(run.status).toBe(want.status);

    expect(run.res.status).toBe(302);
    expect(run.res.headers.get('location')).toBe(want.location);
    const sessionCookies = run.res.setCookie.filter((line) => line.startsWith(`${SESSION_COOKIE}=`) && !/max-age=0/i.test(line));
    expect(sessionCookies.length > 0, 'a session cookie is set').toBe(want.session);
    expect(run.events).toEqual(want.events);
    expect(run.t.logger.errorTypes()).toEqual(want.logged);

    if (want.session) {
      const session = (await (await run.t.client.get('/auth/session')).json()) as { user?: { email?: string } } | null;
      expect(session?.user?.email).toMatch(/@example\.com$/);
      if (strategy === 'database') {
        const rows = await db.query<{ user_id: string }>('SELECT user_id FROM sessions WHERE user_id = $1', [run.userId]);
        expect(rows.rows).toHaveLength(1);
      }
    }
    if (b.resolveUser === 'created in the database') {
      const rows = await db.query<{ name: string }>('SELECT name FROM users WHERE id = $1', [run.userId]);
      expect(rows.rows).toEqual([{ name: 'Ada' }]);
    }
    if (want.session && strategy === 'database') {
      // Whichever way the user was found, its credentials account row names it now.
      const rows = await db.query('SELECT user_id FROM accounts WHERE provider = $1 AND provider_account_id = $2', ['credentials', run.userId]);
      expect(rows.rows).toEqual([{ user_id: run.userId }]);
    }
    if (b.resolveUser === 'the address belongs to another user') {
      const rows = await db.query('SELECT id FROM users WHERE id = $1', [run.userId]);
      expect(rows.rows, 'no user made for the refused sign-in').toEqual([]);
    }
    if (b.resolveUser === 'found in the database' || b.resolveUser === 'found by id, account linked now') {
      // The stored user is the one signed in (its name), not a second row made from authorize's answer.
      const session = (await (await run.t.client.get('/auth/session')).json()) as { user: { name: string } };
      expect(session.user.name).toBe('Ada (stored)');
      const rows = await db.query('SELECT id FROM users WHERE id = $1', [run.userId]);
      expect(rows.rows).toHaveLength(1);
    }
  });
});

describe('credentials flow coverage', () => {
  it('took every state and every transition of the machine', () => {
    const report = coverage.report();
    expect(report.states.total).toBeGreaterThan(0);
    coverage.assertComplete();
    expect(report.states.covered).toBe(report.states.total);
    expect(report.transitions.covered).toBe(report.transitions.total);
  });
});
