// Model-based tests of password recovery: paths generated from `recoveryMachine`, each played over HTTP, request by
// request, against PostgreSQL on PGlite, with the flow store or the database failing where the path says so. Each
// request's logged trace must be the path's segment for that request, and together they feed coverage.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { Adapter } from '../../../src/core/adapter.js';
import { memoryFlowStore } from '../../../src/core/flow-store/store.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { recoveryMachine } from '../../../src/flows/password/recovery-machine.js';
import { argon2id, hashNewPassword, Password, type PasswordMail } from '../../../src/providers/password/index.js';
import { readForms } from '../../e2e/peers/html-form.js';
import { ORIGIN, testAuth, type TestAuth } from '../../support/auth-app.js';
import type { ClientResponse, TestClient } from '../../support/client.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { useMigratedPGlite } from '../../support/pglite.js';
import { done, failed, playedToPause, requestsOf, type Labelled } from '../../support/model-events.js';
import { faultyAdapter as faultsInto, guardedFlowStore } from '../../support/faults.js';

const events: Labelled[] = [
  { type: 'START', branch: 'the request form' },
  { type: 'REQUEST', branch: 'an address', email: 'kim@example.test' },
  { type: 'OPEN_LINK', branch: 'a link', token: 't' },
  { type: 'SUBMIT_CODE', branch: 'a code', code: '123456' },
  { type: 'SET_PASSWORD', branch: 'a new password', password: 'p' },
  { type: 'RESEND', branch: 'send a new code' },
  done('issueReset', 'a known account', { result: 'issued', email: 'kim@example.test', tokenHash: 'h', expires: Date.now() + 900_000 }),
  done('issueReset', 'not an address', { result: 'invalid' }),
  done('issueReset', 'a mail went moments ago', { result: 'cooling', email: 'kim@example.test' }),
  failed('issueReset', 'the flow store is down'),
  done('checkCode', 'the right code', { result: 'passed' }),
  done('checkCode', 'a wrong code', { result: 'wrong', left: 4 }),
  done('checkCode', 'the entry is gone', { result: 'dead' }),
  failed('checkCode', 'the flow store is down'),
  done('openLink', 'the mailed link', { result: 'valid', tokenHash: 'h', expires: Date.now() + 900_000 }),
  done('openLink', 'an unknown token', { result: 'dead' }),
  failed('openLink', 'the flow store is down'),
  done('resetPassword', 'a password too short', { result: 'refused', problem: 'too_short' }),
  done('resetPassword', 'a good password', { result: 'reset', userId: 'u', email: 'kim@example.test' }),
  done('resetPassword', 'the entry is gone', { result: 'dead' }),
  failed('resetPassword', 'the database is down'),
  done('afterReset', 'notified', undefined),
  failed('afterReset', 'the database is down after the reset'),
];

const modelInput = { deps: { req: { authUrl: `${ORIGIN}/auth`, config: { logger: { error: () => {} } } } } as never, callbackUrl: `${ORIGIN}/dashboard`, providerId: 'password', startedAt: 0 };
// A state is told apart by its value and whether this browser holds a request (the only context a guard reads).
// A path cut while an actor runs (its continuations are on other paths) is played on with an outcome that pauses.
const paths: ModelPath[] = playedToPause(modelPaths(recoveryMachine, {
  events: () => events,
  input: modelInput,
  stateKey: (snapshot) => `${JSON.stringify(snapshot.value)}${(snapshot.context as { tokenHash?: string }).tokenHash ? '+request' : ''}`,
}), { issuing: events[6], checkingCode: events[10], openingLink: events[14], resetting: events[18], notifying: events[21] });

const pg = useMigratedPGlite();
const memory = memoryFlowStore();
let storeDown = false;
let forget = false;
const cooldowns = new Set<string>();
const guard = async <T>(key: string, run: () => Promise<T>): Promise<T> => {
  if (key.includes(':cooldown:')) cooldowns.add(key);
  if (storeDown) throw Object.assign(new Error('connect ECONNREFUSED (injected)'), { code: 'ECONNREFUSED' });
  if (forget && /:reset:[0-9a-f]+$/.test(key)) await memory.take(key);
  return run();
};
const flowStore = guardedFlowStore(memory, guard);
const faults = new Set<string>();
const faultyAdapter = (): Adapter => faultsInto(pg.adapter, faults);

const hasher = argon2id({ memoryCost: 1024, timeCost: 1 });
const outbox: PasswordMail[] = [];
const coverage = createCoverage(recoveryMachine);

/** The reset mail sent after `count` mails were out (mails go in the background, after the answer). */
async function resetMailAfter(count: number): Promise<PasswordMail> {
  for (let i = 0; i < 100; i++) {
    const found = outbox.slice(count).findLast((m) => m.kind === 'reset');
    if (found) return found;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no reset mail');
}
afterAll(() => console.log(`flow coverage: ${coverage.format()}`));

async function form(client: TestClient, page: ClientResponse | undefined, fields: Record<string, string>, t: TestAuth): Promise<ClientResponse> {
  const action = `${ORIGIN}/auth/recover/password`;
  const resend = 'resend' in fields;
  const found = page ? readForms(await page.clone().text()).find((f) => f.action === action && 'resend' in f.fields === resend) : undefined;
  const base: Record<string, string> = { ...(found?.fields ?? { csrfToken: await t.csrfToken(client), callbackUrl: `${ORIGIN}/dashboard` }) };
  // A code or a password typed into whatever form the page shows: the address field it may have is not sent.
  if (!('email' in fields)) delete base.email;
  return client.post(action, { ...base, ...fields });
}

/** Plays one path: each request set up so the real flow takes the branches its segment names. */
async function play(path: ModelPath) {
  const t = testAuth({ providers: [Password({ hasher, mail: { send: (m) => void outbox.push(m) } })], adapter: faultyAdapter(), flowStore, session: { strategy: 'database' }, throttle: { enabled: false }, activity: {} });
  const email = `kim-${randomUUID()}@example.test`;
  const { id } = await pg.adapter.createUser({ id: randomUUID(), email, emailVerified: null });
  await pg.adapter.setPasswordHash(id, await hashNewPassword('old horse battery staple', { hasher }));
  const traces: TraceEntry[][] = [];
  let page: ClientResponse | undefined;
  let last: ClientResponse | undefined;
  let mail: PasswordMail | undefined;
  for (const segment of requestsOf(path)) {
    const [event, ...outcomes] = segment;
    const branches = outcomes.map((o) => o.branch);
    const has = (b: string) => branches.includes(b);
    storeDown = has('the flow store is down');
    forget = has('the entry is gone');
    faults.clear();
    if (has('the database is down')) faults.add('getPasswordHash');
    if (has('the database is down after the reset')) faults.add('getUser');
    // The address's cooldown is over unless the path says a mail went moments ago.
    for (const key of cooldowns) await memory.take(key);
    if (has('a mail went moments ago')) await form(t.newClient(), undefined, { email }, t);
    if (has('the mailed link') && !mail) {
      // A link from a request made elsewhere (its run is not this path's).
      const count = outbox.length;
      await form(t.newClient(), undefined, { email }, t);
      mail = await resetMailAfter(count);
      for (const key of cooldowns) await memory.take(key);
    }
    if (has('the flow store is down') || has('the database is down')) await t.csrfToken(t.client);
    const before = t.logger.debugs.length;
    const outboxBefore = outbox.length;
    switch (event!.type) {
      case 'START':
        last = await t.client.get('/auth/recover/password');
        break;
      case 'REQUEST':
        last = await form(t.client, page, { email: has('not an address') ? 'not an address' : email }, t);
        break;
      case 'RESEND':
        last = await form(t.client, page, { resend: '1' }, t);
        break;
      case 'OPEN_LINK': {
        const token = has('the mailed link') ? new URL(mail!.url).searchParams.get('token')! : 'no-such-token';
        last = await t.client.get(`/auth/recover/password?token=${token}`);
        break;
      }
      case 'SUBMIT_CODE':
        last = await form(t.client, page, { code: has('the right code') ? mail!.code! : mail?.code === '000000' ? '111111' : '000000' }, t);
        break;
      case 'SET_PASSWORD':
        last = await form(t.client, page, { password: has('a password too short') ? 'short' : 'new horse battery staple' }, t);
        break;
    }
    storeDown = false;
    forget = false;
    faults.clear();
    if (has('a known account')) mail = await resetMailAfter(outboxBefore);
    if (last!.status === 200 || last!.status === 400) page = last;
    const logged = t.logger.debugs.slice(before).filter((d) => d.message.startsWith('flow password-recovery '));
    expect(logged, `one trace for ${event!.type}`).toHaveLength(1);
    traces.push(((logged[0]!.metadata as { trace: TraceEntry[] }).trace).filter((e) => e.machine === undefined));
  }
  return { t, traces, last: last!, id, email };
}

describe('password recovery, the model', () => {
  it('has a path to every end and through every outcome', () => {
    expect([...new Set(paths.map((p) => p.finalState))].filter((s) => s === 'done' || s.startsWith('failed.')).sort()).toEqual(['done', 'failed.callbackRoute']);
    expect([...new Set(paths.flatMap((p) => (p.events as Labelled[]).map((e) => e.branch)))].sort()).toEqual([...new Set(events.map((e) => e.branch))].sort());
  });

  it.each(paths.map((p) => [p.description, p] as const))('%s', async (_name, path) => {
    const run = await play(path);
    const segments = requestsOf(path);
    for (const [i, trace] of run.traces.entries()) {
      coverage.record(trace);
      // The real flow took the model's path, request by request.
      expect(trace.map((e) => e.event), `request ${i + 1}`).toEqual(segments[i]!.map((e) => e.type));
    }
    const hash = await pg.adapter.getPasswordHash(run.id);
    const reset = path.finalState === 'done';
    expect(await hasher.verify(hash!, reset ? 'new horse battery staple' : 'old horse battery staple')).toBe(true);
    // The activity log: a reset leaves one record of it for the user, from this machine, whatever came after it (the
    // notice); anything else leaves none of the user's (a request names nobody: it would tell who has an account).
    const records = (await pg.db.query<{ kind: string; machine: string | null; method: string | null }>('SELECT kind, machine, method FROM activity WHERE user_id = $1 ORDER BY at, id', [run.id])).rows;
    expect(records).toEqual(reset ? [{ kind: 'recovery.completed', machine: 'password-recovery', method: 'password' }] : []);
    if (reset) {
      expect(run.last.status).toBe(302);
      expect(run.last.headers.get('location')).toContain('/auth/signin?notice=passwordReset');
    } else if (path.finalState === 'failed.callbackRoute') {
      expect(run.last.status).toBe(302);
      expect(run.last.headers.get('location'), await run.last.clone().text()).toBe(`${ORIGIN}/auth/error?error=ServiceUnavailable`);
    } else {
      expect([200, 400]).toContain(run.last.status);
    }
  });
});

describe('password recovery coverage', () => {
  it('took every state and every transition of the machine', () => {
    coverage.assertComplete();
  });
});
