// Model-based tests of the Password provider's sign-in: paths generated from `passwordSignInMachine`, each played
// through the HTTP layer against a real (embedded) PostgreSQL whose rows make the real flow take exactly that path:
// an argon2id or an imported bcrypt hash, no account, an account without a password, a database that is down, a
// hash nobody knows, a hasher that fails. A path that ends `authenticated` goes on through the standard tail.
import { randomUUID } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Adapter } from '../../../src/core/adapter.js';
import type { AuthConfig, SignInCallbackParams } from '../../../src/core/options.js';
import { passwordSignInMachine } from '../../../src/flows/password/signin-machine.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { argon2id, hashNewPassword, Password, type PasswordHasher } from '../../../src/providers/password/index.js';
import { ORIGIN, testAuth } from '../../support/auth-app.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { useMigratedPGlite } from '../../support/pglite.js';
import { done, failed, type Labelled } from '../../support/model-events.js';

const SESSION_COOKIE = 'authchart.session-token';
const PASSWORD = 'correct horse battery staple';


// The outputs only steer the model's guards; the branch label says what the database and hasher hold for real.
const outcomes: Labelled[] = [
  done('findAccount', 'an account with a password', { user: { id: 'u' }, hash: '$h' }),
  done('findAccount', 'no account at the address', { user: null, hash: null }),
  done('findAccount', 'an account without a password', { user: { id: 'u' }, hash: null }),
  failed('findAccount', 'the database is down'),
  done('checkPassword', 'the right password, an argon2id hash of today', { match: true, upgrade: false }),
  done('checkPassword', 'the right password, an imported bcrypt hash', { match: true, upgrade: true }),
  done('checkPassword', 'a wrong password', { match: false, upgrade: false }),
  failed('checkPassword', 'a hash nobody knows'),
  done('checkDummy', 'the dummy hash checked', false),
  failed('checkDummy', 'the hasher fails'),
  done('upgradeHash', 'the hash replaced', true),
];

const paths: ModelPath[] = modelPaths(passwordSignInMachine, {
  events: () => [{ type: 'SUBMIT', identifier: 'ada@example.com', password: PASSWORD }, ...outcomes],
  input: { deps: {}, callbackUrl: `${ORIGIN}/dashboard`, providerId: 'password', startedAt: 0 },
});

const branchesOf = (path: ModelPath) => (path.events as Labelled[]).filter((e) => e.branch).map((e) => e.branch);
// A path may end at the dummy check (its transition taken by an outcome of its own, 'an account without a password');
// the real run then goes on through the dummy check to the failure an unknown address gets.
const endOf = (path: ModelPath) => (path.finalState === 'verifyingDummy' ? 'failed.credentialsSignin' : path.finalState);
const eventsOf = (path: ModelPath) => [...path.events.map((e) => e.type), ...(path.finalState === 'verifyingDummy' ? ['xstate.done.actor.checkDummy'] : [])];
const pg = useMigratedPGlite();

/** The argon2id hasher, cheap enough for a test, failing on demand. */
function testHasher(fails: boolean): PasswordHasher {
  const real = argon2id({ memoryCost: 1024, timeCost: 1 });
  return fails ? { ...real, verify: async () => Promise.reject(new Error('the hasher fails')) } : real;
}

const outage = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));

/** Sets up the rows and configuration the path's branches name, and submits the form once. */
async function play(strategy: 'jwt' | 'database', path: ModelPath) {
  const branches = branchesOf(path);
  const has = (b: string) => branches.includes(b);
  const email = `${randomUUID()}@example.com`;
  const hasher = testHasher(has('the hasher fails'));
  let userId: string | undefined;
  if (!has('no account at the address') && !has('the database is down')) {
    userId = (await pg.adapter.createUser({ id: randomUUID(), email, emailVerified: null, name: 'Ada' })).id;
    if (has('an account with a password')) {
      const hash = has('the right password, an imported bcrypt hash')
        ? await bcrypt.hash(PASSWORD, 4)
        : has('a hash nobody knows')
          ? 'md5$5f4dcc3b5aa765d61d8327deb882cf99'
          : await hashNewPassword(PASSWORD, { hasher });
      await pg.adapter.setPasswordHash(userId, hash);
    }
  }
  const before = userId ? await pg.adapter.getPasswordHash(userId) : null;
  const adapter: Adapter = has('the database is down') ? { ...pg.adapter, getUserByEmail: outage } : pg.adapter;
  const signIns: SignInCallbackParams[] = [];
  const config: Partial<AuthConfig> = { adapter, session: { strategy }, activity: {}, callbacks: { signIn: async (p) => (signIns.push(p), true) } };
  const t = testAuth({ providers: [Password({ hasher })], ...config });
  const csrfToken = await t.csrfToken();
  const password = has('a wrong password') ? 'not the password at all' : PASSWORD;
  const res = await t.client.post('/auth/callback/password', { csrfToken, email: email.toUpperCase(), password, callbackUrl: '/dashboard' });
  const logged = t.logger.debugs.filter((d) => d.message.startsWith('flow password-signin '));
  expect(logged, 'one flow trace logged').toHaveLength(1);
  const { trace } = logged[0]!.metadata as { trace: TraceEntry[] };
  const after = userId ? await pg.adapter.getPasswordHash(userId) : null;
  const flowId = (logged[0]!.metadata as { id: string }).id;
  const activity = (await pg.db.query<{ kind: string; user_id: string | null; reason: string | null; machine: string; transition: string; method: string }>('SELECT kind, user_id, reason, machine, transition, method FROM activity WHERE correlation_id = $1', [flowId])).rows;
  return { t, res, signIns, userId, email, before, after, activity, trace: trace.filter((e) => e.machine === undefined), tail: trace.filter((e) => e.machine === 'signin') };
}

function expectedLocation(path: ModelPath): string {
  const branches = branchesOf(path);
  switch (endOf(path)) {
    case 'authenticated':
      return `${ORIGIN}/dashboard`;
    case 'failed.credentialsSignin':
      return `${ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials`;
    default:
      return branches.includes('the database is down') ? `${ORIGIN}/auth/error?error=ServiceUnavailable` : `${ORIGIN}/auth/error?error=Configuration`;
  }
}

const coverage = createCoverage(passwordSignInMachine);
afterAll(() => {
  console.log(`flow coverage: ${coverage.format()}`);
});

describe('password sign-in, the model', () => {
  it('has a path to every final state and through every outcome', () => {
    expect([...new Set(paths.map(endOf))].sort()).toEqual(['authenticated', 'failed.callbackRoute', 'failed.credentialsSignin']);
    expect([...new Set(paths.flatMap(branchesOf))].sort()).toEqual(outcomes.map((o) => o.branch).sort());
  });
});

describe.each(['jwt', 'database'] as const)('password sign-in, model paths with %s sessions', (strategy) => {
  it.each(paths.map((p) => [`${p.description} [${branchesOf(p).join(' / ')}]`, p] as const))('%s', async (_name, path) => {
    const run = await play(strategy, path);
    coverage.record(run.trace);
    // The real flow took the model's path, transition by transition.
    expect(run.trace.map((e) => e.event)).toEqual(eventsOf(path));
    expect(run.trace.at(-1)?.to).toBe(endOf(path));
    expect(run.res.status).toBe(302);
    expect(run.res.headers.get('location')).toBe(expectedLocation(path));
    const sessionSet = run.res.setCookie.some((line) => line.startsWith(`${SESSION_COOKIE}=`) && !/max-age=0/i.test(line));
    expect(sessionSet).toBe(endOf(path) === 'authenticated');
    // The activity log: one record per outcome, of its kind; a failure names nobody (not even a known address's user).
    expect(run.activity.map((r) => r.kind)).toEqual([endOf(path) === 'authenticated' ? 'signIn.succeeded' : 'signIn.failed']);
    expect(run.activity[0]).toMatchObject({ machine: 'password-signin', method: 'credentials', user_id: endOf(path) === 'authenticated' ? run.userId : null });
    expect(run.activity[0]!.transition).toContain(endOf(path) === 'authenticated' ? 'authenticated' : 'failed');
    if (endOf(path) !== 'authenticated') expect(run.activity[0]!.reason).toBe(run.t.logger.errorTypes()[0] ?? 'CredentialsSignin');

    if (endOf(path) !== 'authenticated') {
      expect(run.tail).toEqual([]);
      expect(run.signIns).toEqual([]);
      // A failed sign-in writes nothing: the stored hash is as it was.
      expect(run.after).toBe(run.before);
      if (branchesOf(path).includes('the database is down')) {
        const page = await run.t.client.get('/auth/error?error=ServiceUnavailable');
        expect(page.status).toBe(503);
      }
      return;
    }
    expect(run.tail.at(-1)?.to).toBe('resolved');
    // The tail got the stored user, keyed by its id, and the address but never the password.
    expect(run.signIns).toHaveLength(1);
    expect(run.signIns[0]!.user).toMatchObject({ id: run.userId, email: run.email });
    expect(run.signIns[0]!.account).toEqual({ provider: 'password', type: 'credentials', providerAccountId: run.userId });
    expect(run.signIns[0]!.credentials).toEqual({ email: run.email.toUpperCase() });
    const session = (await (await run.t.client.get('/auth/session')).json()) as { user?: { email?: string } } | null;
    expect(session?.user?.email).toBe(run.email);
    if (branchesOf(path).includes('the right password, an imported bcrypt hash')) {
      // Replaced by an argon2id hash of the same password.
      expect(run.before).toMatch(/^\$2[aby]\$/);
      expect(run.after).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
      expect(await testHasher(false).verify(run.after!, PASSWORD)).toBe(true);
    } else {
      expect(run.after).toBe(run.before);
    }
  });
});

describe('password sign-in coverage', () => {
  it('took every state and every transition of the machine', () => {
    coverage.assertComplete();
    const report = coverage.report();
    expect(report.states.covered).toBe(report.states.total);
    expect(report.transitions.covered).toBe(report.transitions.total);
  });
});
