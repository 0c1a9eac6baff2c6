// Model-based tests of the RP-initiated logout machine: paths generated from `rpLogoutMachine`, each played for real
// (oidc-provider's discovery, PostgreSQL accounts), the paused machine resumed from its snapshot as the return route
// does: no ID token stored, discovery failing, the state returned, another state, a return after the time limit, the
// state already used (a replayed return), and a flow store that fails when the state is kept or taken.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyEventObject } from 'xstate';
import { resolveConfig } from '../../../src/core/config.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { memoryFlowStore, type FlowStore } from '../../../src/core/flow-store/store.js';
import { RP_LOGOUT_TTL_MS, rpLogoutMachine } from '../../../src/flows/logout/rp-machine.js';
import { takeState } from '../../../src/flows/logout/rp-steps.js';
import { oauthProviderFor } from '../../../src/flows/oauth/steps.js';
import type { FlowDeps } from '../../../src/flows/runtime/contract.js';
import { settleMachine } from '../../../src/flows/runtime/run.js';
import { createAuthRequest } from '../../../src/http/request.js';
import { OIDC } from '../../../src/providers/oauth.js';
import { closedPort } from '../../session/database-harness.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { tokenTestbed, type TokenTestbed } from '../../e2e/tokens/harness.js';

type Labelled = AnyEventObject & { branch: string };
const end = { endpoint: 'http://op/session/end', idToken: 'x.y.z', clientId: 'c', postLogoutRedirectUri: 'http://app/cb' };
const all: Labelled[] = [
  { type: 'SIGN_OUT', branch: 'sign out' },
  { type: 'xstate.done.actor.findEndSession', output: null, branch: 'no ID token' },
  { type: 'xstate.done.actor.findEndSession', output: end, branch: 'end session found' },
  { type: 'xstate.error.actor.findEndSession', error: new Error('down'), branch: 'discovery fails' },
  { type: 'xstate.done.actor.keepState', output: undefined, branch: 'state kept' },
  { type: 'xstate.error.actor.keepState', error: new Error('down'), branch: 'store fails at sign-out' },
  { type: 'xstate.done.actor.takeState', output: true, branch: 'state taken' },
  { type: 'xstate.done.actor.takeState', output: false, branch: 'state used already' },
  { type: 'xstate.error.actor.takeState', error: new Error('down'), branch: 'store fails at return' },
  // The model's state is random: the guard reads it from context, so the generator sends what the machine chose.
  { type: 'RETURN', state: 'the state sent', now: 0, branch: 'state returned' },
  { type: 'RETURN', state: 'another state', now: 0, branch: 'another state' },
  { type: 'RETURN', state: 'the state sent', now: RP_LOGOUT_TTL_MS + 1, branch: 'too late' },
];
const paths = modelPaths(rpLogoutMachine, {
  events: (snapshot) => all.map((e) => (e.type === 'RETURN' && e.state === 'the state sent' ? { ...e, state: (snapshot.context as { state?: string }).state } : e)),
  input: { deps: {}, callbackUrl: 'http://localhost:3000/bye', startedAt: 0 },
  stateKey: (s) => JSON.stringify(s.value),
});
const labels = (p: ModelPath) => p.events.map((e) => (e as Labelled).branch);

let t: TokenTestbed;
let downIssuer: string;
const coverage = createCoverage(rpLogoutMachine);
beforeAll(async () => {
  t = await tokenTestbed({ provider: { rpInitiatedLogout: true } });
  downIssuer = `http://127.0.0.1:${await closedPort()}`;
});
afterAll(async () => {
  console.log(`flow coverage: ${coverage.format()}`);
  await t?.close();
});

async function play(path: ModelPath): Promise<TraceEntry[]> {
  const l = labels(path);
  const down = l.includes('discovery fails');
  const providerId = down ? 'oidc-down' : 'oidc';
  const userId = `user-${randomUUID()}`;
  await t.sql(`INSERT INTO users (id, email) VALUES ($1, $2)`, [userId, `${userId}@example.test`]);
  await t.sql(`INSERT INTO accounts (provider, provider_account_id, user_id, type, id_token) VALUES ($1, $2, $3, 'oidc', $4)`, [providerId, `sub-${randomUUID()}`, userId, l.includes('no ID token') ? null : 'header.payload.signature']);
  // The flow store the state is kept in, failing where the path says the store fails.
  const memory = memoryFlowStore();
  const flowStore: FlowStore = {
    kind: 'test',
    set: (key, value, ttl) => (l.includes('store fails at sign-out') ? Promise.reject(new Error('store down')) : memory.set(key, value, ttl)),
    get: (key) => memory.get(key),
    take: (key) => (l.includes('store fails at return') ? Promise.reject(new Error('store down')) : memory.take(key)),
    add: (key, value, ttl) => memory.add(key, value, ttl),
    increment: (key, ttl) => memory.increment(key, ttl),
  };
  const config = resolveConfig({
    ...t.configs[0],
    flowStore,
    providers: [...t.configs[0].providers, OIDC({ id: 'oidc-down', name: 'Down', issuer: downIssuer, clientId: 'c', clientSecret: 's'.repeat(32), rpInitiatedLogout: true })],
  });
  const req = await createAuthRequest(new Request('http://localhost:3000/auth/signout', { method: 'POST' }), config, { body: false });
  const provider = config.providers.find((p) => p.id === providerId)!;
  const deps = { req, provider: oauthProviderFor({ req, provider, callbackUrl: '' } as FlowDeps), userId };
  const startedAt = Date.now();
  const trace: TraceEntry[] = [];
  const first = await settleMachine(rpLogoutMachine, { deps, callbackUrl: 'http://localhost:3000/bye', startedAt }, { type: 'SIGN_OUT' }, undefined, trace, [], { keepTrace: true });
  const ret = path.events.find((e) => e.type === 'RETURN') as Labelled | undefined;
  if (!ret) return trace;
  expect(first.kind).toBe('paused');
  if (first.kind !== 'paused') return trace;
  expect(first.response).toMatchObject({ kind: 'redirect' });
  const sent = (first.paused.context as { state: string }).state;
  // A replay: the state already came back once.
  if (l.includes('state used already')) expect(await takeState(deps, sent)).toBe(true);
  const event = { type: 'RETURN', state: ret.branch === 'another state' ? 'another state' : sent, now: ret.branch === 'too late' ? startedAt + RP_LOGOUT_TTL_MS + 1 : Date.now() };
  await settleMachine(rpLogoutMachine, { deps }, event, first.paused, trace, [], { keepTrace: true });
  return trace;
}

describe('RP-initiated logout, model paths played against oidc-provider and PostgreSQL', () => {
  it('reaches every final state', () => {
    expect([...new Set(paths.map((p) => p.finalState))].sort()).toEqual(['failed.expired', 'failed.replayed', 'failed.stateMismatch', 'failed.unavailable', 'localOnly', 'returned']);
  });

  it.each(paths.map((p) => [`${p.description} [${labels(p).join(', ')}]`, p] as const))('%s', async (_name, path) => {
    const trace = await play(path);
    coverage.record(trace);
    expect(trace.map((e) => e.event)).toEqual(path.events.map((e) => e.type));
    expect(trace.at(-1)?.to).toBe(path.finalState);
  });

  it('covers every state and transition', () => {
    console.log(coverage.format());
    coverage.assertComplete();
  });
});
