// Model-based tests of the invitation machine: paths generated from `invitationMachine`, each driven with actors that
// settle only by the path's own done/error events, recorded the way the runtime records a run; together they take
// every state and every transition. What each step does for real (the binding, the single use, the races) is proven
// over HTTP against PostgreSQL in test/security/organization-invitations.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import { createActor, fromPromise, type AnyEventObject } from 'xstate';
import { invitationMachine } from '../../../src/flows/organizations/invitation-machine.js';
import { invitationTokenHash } from '../../../src/flows/organizations/invitations.js';
import { traceEntriesFromMicrostep, type TraceEntry } from '../../../src/devtools/graph.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { done, failed, type Labelled } from '../../support/model-events.js';

const TOKEN = 'a'.repeat(43);
const OTHER = 'b'.repeat(43);
const FUTURE = 4_000_000_000_000;
const facts = (expires: number) => ({ id: 'i1', tokenHash: invitationTokenHash(TOKEN), organizationId: 'o1', organizationName: 'Acme', inviter: 'Ada', email: 'bob@example.com', role: 'member', expires });


const outcomes: Labelled[] = [
  done('0.invitation.opening', 'the invited address', { state: 'pending', facts: facts(FUTURE), matches: true, allowed: true }),
  done('0.invitation.opening', 'another account, anyUser', { state: 'pending', facts: facts(FUTURE), matches: false, allowed: true }),
  done('0.invitation.opening', 'opened just before it expires', { state: 'pending', facts: facts(1), matches: true, allowed: true }),
  done('0.invitation.opening', 'another account', { state: 'pending', facts: facts(FUTURE), matches: false, allowed: false }),
  done('0.invitation.opening', 'expired', { state: 'expired' }),
  done('0.invitation.opening', 'gone', { state: 'gone' }),
  failed('0.invitation.opening', 'the database is down'),
  done('0.invitation.accepting', 'taken', { result: 'accepted', organizationId: 'o1' }),
  done('0.invitation.accepting', 'expired meanwhile', { result: 'expired' }),
  done('0.invitation.accepting', 'the address changed meanwhile', { result: 'otherAccount' }),
  done('0.invitation.accepting', 'revoked or taken meanwhile', { result: 'gone' }),
  failed('0.invitation.accepting', 'the database is down at the answer'),
  done('0.invitation.declining', 'declined', { result: 'declined', organizationId: 'o1' }),
  done('0.invitation.declining', 'expired before the decline', { result: 'expired' }),
  done('0.invitation.declining', 'the address changed before the decline', { result: 'otherAccount' }),
  done('0.invitation.declining', 'revoked before the decline', { result: 'gone' }),
  failed('0.invitation.declining', 'the database is down at the decline'),
];

const events: AnyEventObject[] = [
  { type: 'OPEN', token: TOKEN },
  { type: 'ACCEPT', token: TOKEN },
  { type: 'ACCEPT', token: OTHER },
  { type: 'DECLINE', token: TOKEN },
  { type: 'DECLINE', token: OTHER },
  ...outcomes,
];

const input = { deps: {}, callbackUrl: 'http://localhost:3000/', flowId: 'invitation', userId: 'u1', startedAt: 0 };
const never = fromPromise(() => new Promise<never>(() => {}));
const drivable = invitationMachine.provide({ actors: { openInvitation: never, answer: never } as never });
const stateKey = (s: { value: unknown; context: { facts?: { expires: number } } }) => JSON.stringify([s.value, s.context.facts?.expires ?? null]);

function drive(path: ModelPath): { trace: TraceEntry[]; value: unknown; output: unknown } {
  const trace: TraceEntry[] = [];
  const actor = createActor(drivable, { input: input as never, inspect: (ev) => trace.push(...traceEntriesFromMicrostep(ev)) });
  actor.start();
  for (const event of path.events) actor.send(event as never);
  const snapshot = actor.getSnapshot();
  actor.stop();
  return { trace, value: snapshot.value, output: snapshot.output };
}

const leaf = (value: unknown): string => (typeof value === 'string' ? value : Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}.${leaf(v)}`)[0]!);
const branchesOf = (path: ModelPath) => (path.events as Labelled[]).filter((e) => e.branch).map((e) => e.branch);

const coverage = createCoverage(invitationMachine);
afterAll(() => console.log(`flow coverage: ${coverage.format()}`));

describe('invitation, model paths', () => {
  const paths = modelPaths(invitationMachine, { events: () => events, input, stateKey: stateKey as never });

  it.each(paths.map((p) => [`${p.description} [${branchesOf(p).join(' / ')}]`, p] as const))('%s', (_name, path) => {
    const run = drive(path);
    coverage.record(run.trace);
    expect(leaf(run.value)).toBe(path.finalState);
    // Only an accepted invitation names an organization for the session.
    if (path.finalState === 'accepted') expect(run.output).toEqual({ outcome: 'completed', organization: 'o1', redirect: input.callbackUrl });
    if (path.finalState === 'declined') expect(run.output).toEqual({ outcome: 'completed', redirect: input.callbackUrl });
  });
});

describe('invitation coverage', () => {
  it('took every state and every transition of the machine', () => {
    coverage.assertComplete();
    const report = coverage.report();
    expect(report.states.covered).toBe(report.states.total);
    expect(report.transitions.covered).toBe(report.transitions.total);
  });
});
