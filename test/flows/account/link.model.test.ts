// Model-based tests of the link machine: paths generated from `linkMachine`, each one played over HTTP through
// `POST /auth/link/:provider` with a real custom flow that proves an account at once, on PGlite, in a world that
// makes the real link stage take exactly that path (who is signed in, who owns the account, what the signIn
// callback says, which adapter call fails). The logged traces must follow the model paths and together cover every
// state and transition; each path must leave the database and the events as its final state says.
import { PGlite } from '@electric-sql/pglite';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../../src/adapters/postgres/index.js';
import type { Adapter } from '../../../src/core/adapter.js';
import { defineFlow } from '../../../src/flow.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { linkMachine } from '../../../src/flows/account/link-machine.js';
import { testAuth } from '../../support/auth-app.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { identityMachine, identityProvider, type ProvenIdentity } from '../signin/identity-flow.js';
import { done, failed, type Labelled } from '../../support/model-events.js';

const typed = (type: string) => Object.assign(new Error(type), { type });

const events: Labelled[] = [
  { type: 'START', branch: 'start' },
  done('linkingUser', 'user found', { id: 'u' }),
  failed('linkingUser', 'user gone', typed('AccountNotLinked')),
  failed('linkingUser', 'user read fails', new Error('down')),
  done('ownership', 'nobody owns it', 'none'),
  done('ownership', 'already theirs', 'self'),
  failed('ownership', 'another user owns it', typed('OAuthAccountNotLinked')),
  failed('ownership', 'owner read fails', new Error('down')),
  done('checkSignIn', 'signIn allows', { allowed: true }),
  done('checkSignIn', 'signIn refuses', { allowed: false }),
  failed('checkSignIn', 'signIn throws', new Error('no')),
  done('writeLink', 'written', {}),
  failed('writeLink', 'write fails', new Error('down')),
];

const pathsFor = (type: string) =>
  modelPaths(linkMachine, { events: () => events, input: { deps: {}, callbackUrl: '/account', userId: 'u', identity: { user: {}, account: { type, provider: 'proof', providerAccountId: 'x' } } } }).map((p) => ({ ...p, type }));
const paths = [...pathsFor('oauth'), ...pathsFor('credentials')];
const labels = (p: ModelPath) => p.events.map((e) => (e as Labelled).branch);

// The custom flow enters on `POST /link/proof` (its sign-in route) and proves the provider's identity at once.
const linkableFlow = defineFlow({ machine: identityMachine, version: 1, entry: (route, deps) => (route === 'signin' && deps.req.method === 'POST' ? { resume: false, event: { type: 'SUBMIT' } } : null) });

let db: PGlite;
const coverage = createCoverage(linkMachine);
beforeAll(async () => {
  db = await PGlite.create();
  await PostgresAdapter(db).migrate();
}, 60_000);
afterAll(async () => {
  console.log(`flow coverage: ${coverage.format()}`);
  coverage.assertComplete();
  if (db && !db.closed) await db.close();
});

/** An adapter whose named methods fail once `armed` says so (after the door's sign-in), for the paths where the database does. */
function failing(methods: string[], armed: () => boolean): Adapter {
  const base = PostgresAdapter(db) as unknown as Record<string, (...args: unknown[]) => unknown>;
  const out: Record<string, unknown> = { ...base };
  for (const m of methods) out[m] = async (...args: unknown[]) => (armed() ? Promise.reject(new Error(`${m} is down`)) : base[m](...args));
  return out as unknown as Adapter;
}

async function play(path: ModelPath & { type: string }) {
  const l = labels(path);
  const proof = `proof-${randomUUID()}`;
  const identity: ProvenIdentity = { user: { name: 'Proof' }, account: { type: path.type as 'oauth', providerAccountId: proof } };
  const failures = [l.includes('user read fails') && 'getUser', l.includes('owner read fails') && 'getUserByAccount', l.includes('write fails') && 'withTransaction'].filter((m): m is string => typeof m === 'string');
  const linked: unknown[] = [];
  // Signed in through a door provider first (a real tail: a stored user with a JWT session).
  const door = identityProvider({ user: { name: 'Door', email: `${proof}@example.test` }, account: { type: 'oauth', providerAccountId: `door-${proof}` } }, { id: 'door', name: 'Door' });
  let signInCalls = 0;
  let armed = false;
  const t = testAuth({
    adapter: failing(failures, () => armed),
    session: { strategy: 'jwt' },
    providers: [door, { ...identityProvider(identity), flow: linkableFlow }],
    callbacks: {
      signIn: () => {
        signInCalls += 1;
        if (signInCalls === 1) return true; // the door's sign-in
        if (l.includes('signIn throws')) throw new Error('refused by the app');
        return !l.includes('signIn refuses');
      },
    },
    events: { linkAccount: (m) => void linked.push(m) },
    activity: {},
  });
  const adapter = PostgresAdapter(db);
  await t.client.post('/auth/callback/door', { csrfToken: await t.csrfToken() });
  const user = await adapter.getUserByAccount!({ provider: 'door', providerAccountId: `door-${proof}` });
  expect(user).not.toBeNull();
  if (l.includes('user gone')) await adapter.deleteUser!(user!.id);
  if (l.includes('already theirs')) await adapter.linkAccount!({ userId: user!.id, type: 'oauth', provider: 'proof', providerAccountId: proof });
  let other: string | undefined;
  if (l.includes('another user owns it')) {
    other = (await adapter.createUser!({ id: randomUUID(), email: `other-${proof}@example.test`, emailVerified: null })).id;
    await adapter.linkAccount!({ userId: other, type: 'oauth', provider: 'proof', providerAccountId: proof });
  }
  linked.length = 0;
  t.logger.debugs.length = 0;
  armed = true;
  const res = await t.client.post('/auth/link/proof', { csrfToken: await t.csrfToken(), callbackUrl: 'http://localhost:3000/auth/account' });
  const record = t.logger.debugs.find((d) => d.message.startsWith('flow '));
  const trace = ((record?.metadata as { trace?: TraceEntry[] } | undefined)?.trace ?? []).filter((e) => e.machine === 'link');
  const owner = await adapter.getUserByAccount!({ provider: 'proof', providerAccountId: proof });
  const records = (await db.query<{ kind: string; provider: string | null; method: string | null }>("SELECT kind, provider, method FROM activity WHERE user_id = $1 AND kind IN ('account.linked', 'passkey.added')", [user!.id])).rows;
  return { res, trace, owner, user: user!, other, linked, records, t };
}

const expectedError: Record<string, string> = {
  'failed.invalidRequest': 'InvalidRequest',
  'failed.accountNotLinked': 'AccountNotLinked',
  'failed.ownedByAnother': 'OAuthAccountNotLinked',
  'failed.accessDenied': 'AccessDenied',
  'failed.callbackRoute': 'Configuration',
};

describe('link machine, model paths played over HTTP (PGlite, JWT sessions)', () => {
  it.each(paths.map((p) => [`${p.type}: ${p.description}`, p] as const))('%s', async (_name, path) => {
    const run = await play(path);
    coverage.record(run.trace);
    // The real run took the model's path, transition by transition.
    expect(run.trace.map((e) => e.event)).toEqual(path.events.map((e) => e.type));
    expect(run.trace.at(-1)?.to).toBe(path.finalState);
    expect(run.res.status).toBe(302);
    if (path.finalState === 'linked') {
      expect(run.res.location!.href).toBe('http://localhost:3000/auth/account');
      expect(String(run.owner?.id)).toBe(String(run.user.id));
      expect(run.linked).toHaveLength(labels(path).includes('written') ? 1 : 0);
      // The activity log: an account written leaves one record of it, naming its provider; one already theirs, none.
      const kind = path.type === 'webauthn' ? 'passkey.added' : 'account.linked';
      expect(run.records).toEqual(labels(path).includes('written') ? [{ kind, provider: 'proof', method: path.type }] : []);
      return;
    }
    const type = expectedError[path.finalState];
    expect(run.res.location!.searchParams.get('error'), run.t.logger.errors.map((e) => e.message).join('; ')).toBe(type);
    expect(run.linked).toEqual([]);
    expect(run.records, 'no record of a link that did not happen').toEqual([]);
    // Nothing was linked to the user: the account is nobody's, or still its other owner's.
    expect(run.owner?.id ?? null).toBe(run.other ?? null);
  });
});
