// Model-based tests of the credentials flow: paths generated from `credentialsMachine`, each one played through
// the HTTP layer with an `authorize` that makes the real flow take exactly that path. A path that ends
// `authenticated` goes on through the standard sign-in tail with its default behaviour; the tail's own branches
// (signIn callback, linking rules, session issue) are the subject of test/flows/signin/signin.model.test.ts.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { AnyMachineSnapshot } from 'xstate';
import type { AuthConfig, SignInCallbackParams } from '../../../src/core/options.js';
import { CredentialsSignin } from '../../../src/core/errors.js';
import { credentialsMachine } from '../../../src/flows/credentials/machine.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { ORIGIN, testAuth, type TestAuth } from '../../support/auth-app.js';
import type { ClientResponse } from '../../support/client.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { useMigratedPGlite } from '../../support/pglite.js';
import type { ActivityRecord } from '../../../src/activity/types.js';
import { done, failed, type Labelled } from '../../support/model-events.js';

/** A provider's own CredentialsSignin, whose code must reach the URL. */
class InvalidLogin extends CredentialsSignin {
  override code = 'invalid_login';
}

const SESSION_COOKIE = 'authchart.session-token';
const PASSWORD = 'correct horse battery staple';

type Strategy = 'jwt' | 'database';

/** An invoke result the model sends, labelled with the answer of `authorize` that produces it for real. */


const modelUser = { id: 'model-user', name: 'Ada', email: 'ada@example.com' };

// The outputs only steer the model's guards; the branch label says how `authorize` answers in the HTTP run.
const submit = { type: 'SUBMIT', credentials: { email: modelUser.email, password: PASSWORD } };
const authorizeOutcomes = [
  done('authorize', 'returns a user', modelUser),
  // Its own output, so the model keeps it apart from 'returns a user' all the way to `authenticated`.
  done('authorize', 'returns a user without an id', { email: modelUser.email }),
  done('authorize', 'returns null', null),
  failed('authorize', 'throws CredentialsSignin', new InvalidLogin()),
  failed('authorize', 'throws Error', new Error('user store unreachable')),
];

const paths: ModelPath[] = modelPaths(credentialsMachine, {
  events: (_snapshot: AnyMachineSnapshot) => [submit, ...authorizeOutcomes],
  input: { deps: {}, callbackUrl: `${ORIGIN}/dashboard`, providerId: 'credentials', startedAt: 0 },
});

/** How `authorize` answers on a path. */
function authorizeBranch(path: ModelPath): string {
  const event = (path.events as Labelled[]).find((e) => /^xstate\.(done|error)\.actor\.authorize$/.test(e.type));
  if (!event) throw new Error(`no authorize outcome on ${path.description}`);
  return event.branch;
}

const pg = useMigratedPGlite();

interface Run {
  t: TestAuth;
  res: ClientResponse;
  events: string[];
  userId: string;
  email: string;
  /** What the signIn callback was called with (the tail's view of the flow's output). */
  signIns: SignInCallbackParams[];
  /** The credentials machine's own transitions, and the tail's after them. */
  trace: TraceEntry[];
  tail: TraceEntry[];
  status: string;
  /** The activity records the run wrote (a sink of the test's), and the flow record's id. */
  activity: ActivityRecord[];
  flowId: string;
}

/** Configures an instance whose `authorize` takes the path's branch, and submits the form once. */
async function play(strategy: Strategy, path: ModelPath): Promise<Run> {
  const branch = authorizeBranch(path);
  // Unique per path: the database is shared by the whole file.
  const userId = `user-${randomUUID()}`;
  const email = `${userId.replace(/\W/g, '')}@example.com`;
  const events: string[] = [];
  const signIns: SignInCallbackParams[] = [];
  const record = (name: string) => async () => void events.push(name);

  const provider = Credentials({
    credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
    authorize: async (c) => {
      if (c.password !== PASSWORD) throw new Error('the form did not reach authorize');
      switch (branch) {
        case 'returns a user':
          return { id: userId, name: 'Ada', email };
        case 'returns a user without an id':
          return { name: 'Ada', email };
        case 'returns null':
          return null;
        case 'throws CredentialsSignin':
          throw new InvalidLogin();
        default:
          throw new Error('user store unreachable');
      }
    },
  });
  const activity: ActivityRecord[] = [];
  const config: Partial<AuthConfig> = {
    activity: { sinks: [{ name: 'test', write: (records) => void activity.push(...records) }] },
    callbacks: {
      signIn: async (params) => {
        signIns.push(params);
        return true;
      },
    },
    events: { signIn: record('signIn'), createUser: record('createUser'), linkAccount: record('linkAccount'), updateUser: record('updateUser') },
  };
  if (strategy === 'database') Object.assign(config, { adapter: pg.adapter, session: { strategy: 'database' } });

  const t = testAuth({ providers: [provider], ...config });
  const csrfToken = await t.csrfToken();
  const res = await t.client.post('/auth/callback/credentials', { csrfToken, email: modelUser.email, password: PASSWORD, callbackUrl: '/dashboard' });
  const logged = t.logger.debugs.filter((d) => d.message.startsWith('flow credentials '));
  expect(logged, 'one flow trace logged').toHaveLength(1);
  const { trace } = logged[0].metadata as { trace: TraceEntry[] };
  return {
    t,
    res,
    events,
    userId,
    email,
    signIns,
    trace: trace.filter((e) => e.machine === undefined),
    tail: trace.filter((e) => e.machine === 'signin'),
    status: logged[0].message.slice('flow credentials '.length),
    activity,
    flowId: (logged[0].metadata as { id: string }).id,
  };
}

/** What the browser must see at the end of each final state. */
function expectedFor(strategy: Strategy, path: ModelPath, branch: string) {
  const signInError = (code: string) => `${ORIGIN}/auth/signin?error=CredentialsSignin&code=${code}`;
  switch (path.finalState) {
    case 'authenticated':
      // The tail's default: signIn allows, a JWT as returned or a new stored user with its credentials account.
      return { status: 'signedIn', location: `${ORIGIN}/dashboard`, session: true, events: strategy === 'database' ? ['createUser', 'linkAccount', 'signIn'] : ['signIn'], logged: [] };
    case 'failed.credentialsSignin':
      return { status: 'failed', location: signInError(branch === 'throws CredentialsSignin' ? 'invalid_login' : 'credentials'), session: false, events: [], logged: ['CredentialsSignin'] };
    case 'failed.callbackRoute':
      return { status: 'failed', location: `${ORIGIN}/auth/error?error=Configuration`, session: false, events: [], logged: ['CallbackRouteError'] };
    default:
      throw new Error(`no expectation for ${path.finalState}`);
  }
}

const coverage = createCoverage(credentialsMachine);
const strategies: Strategy[] = ['jwt', 'database'];

afterAll(() => {
  console.log(`flow coverage: ${coverage.format()}`);
});

describe('credentials flow, the model', () => {
  it('has a path to every final state, and a path per answer of authorize', () => {
    expect([...new Set(paths.map((p) => p.finalState))].sort()).toEqual(['authenticated', 'failed.callbackRoute', 'failed.credentialsSignin']);
    expect(paths.map(authorizeBranch).sort()).toEqual(authorizeOutcomes.map((o) => o.branch).sort());
  });
});

describe.each(strategies)('credentials flow, model paths with %s sessions', (strategy) => {
  it.each(paths.map((p) => [`${p.description} [${authorizeBranch(p)}]`, p] as const))('%s', async (_name, path) => {
    const branch = authorizeBranch(path);
    const want = expectedFor(strategy, path, branch);
    const run = await play(strategy, path);
    coverage.record(run.trace);

    // The real flow took the model's path, transition by transition.
    expect(run.trace.map((e) => e.event)).toEqual(path.events.map((e) => e.type));
    expect(run.trace.at(-1)?.to).toBe(path.finalState);
    expect(run.status).toBe(want.status);
    // Only an authenticated flow reaches the tail, and then the tail decides (by default: a session).
    if (path.finalState === 'authenticated') expect(run.tail.at(-1)?.to).toBe('resolved');
    else expect(run.tail).toEqual([]);

    expect(run.res.status).toBe(302);
    expect(run.res.headers.get('location')).toBe(want.location);
    const sessionCookies = run.res.setCookie.filter((line) => line.startsWith(`${SESSION_COOKIE}=`) && !/max-age=0/i.test(line));
    expect(sessionCookies.length > 0, 'a session cookie is set').toBe(want.session);
    expect(run.events).toEqual(want.events);
    expect(run.t.logger.errorTypes()).toEqual(want.logged);

    // The activity log: one record per outcome, of the outcome's kind, correlated with the flow record.
    const kinds = run.activity.map((r) => r.kind);
    if (path.finalState === 'authenticated') expect(kinds).toEqual(strategy === 'database' ? ['signUp.completed', 'signIn.succeeded'] : ['signIn.succeeded']);
    else expect(kinds).toEqual(['signIn.failed']);
    for (const record of run.activity) {
      expect(record.correlationId).toBe(run.flowId);
      expect(record.flow).toMatchObject({ machine: 'credentials', transition: expect.stringContaining(path.finalState) });
      expect(record).toMatchObject({ provider: 'credentials', method: 'credentials' });
    }
    if (path.finalState !== 'authenticated') expect(run.activity[0]).toMatchObject({ userId: null, reason: want.logged[0], sessionHash: null });
    if (strategy === 'database') {
      const stored = await pg.db.query<{ id: string; kind: string }>('SELECT id, kind FROM activity WHERE correlation_id = $1 ORDER BY kind DESC', [run.flowId]);
      expect(stored.rows.map((r) => r.id).sort()).toEqual(run.activity.map((r) => r.id).sort());
    }

    if (path.finalState !== 'authenticated') {
      expect(run.signIns, 'the signIn callback is never asked about a failed flow').toEqual([]);
      return;
    }
    // The flow's output, as the tail received it: authorize's user, a credentials account keyed by its id (else
    // its e-mail), and the submitted form for the signIn callback.
    expect(run.signIns).toHaveLength(1);
    const [asked] = run.signIns;
    const key = branch === 'returns a user' ? run.userId : run.email;
    expect(asked.account).toEqual({ provider: 'credentials', type: 'credentials', providerAccountId: key });
    expect(asked.credentials).toMatchObject({ email: modelUser.email, password: PASSWORD });
    expect(asked.user).toMatchObject({ name: 'Ada', email: run.email });

    const session = (await (await run.t.client.get('/auth/session')).json()) as { user?: { email?: string; name?: string } } | null;
    expect(session?.user).toMatchObject({ email: run.email, name: 'Ada' });
    if (strategy === 'database') {
      // A new user with its credentials account row, keyed as above, and one session row for it.
      const owner = await pg.db.query<{ user_id: string }>('SELECT user_id FROM accounts WHERE provider = $1 AND provider_account_id = $2', ['credentials', key]);
      expect(owner.rows).toHaveLength(1);
      const userId = owner.rows[0].user_id;
      if (branch === 'returns a user') expect(userId).toBe(run.userId);
      const users = await pg.db.query<{ name: string; email: string }>('SELECT name, email FROM users WHERE id = $1', [userId]);
      expect(users.rows).toEqual([{ name: 'Ada', email: run.email }]);
      const sessions = await pg.db.query('SELECT user_id FROM sessions WHERE user_id = $1', [userId]);
      expect(sessions.rows).toHaveLength(1);
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
