// Model-based tests of the invitation: paths generated from `invitationMachine`, each played over HTTP, request by
// request, against the real flow on PostgreSQL (PGlite) with organizations and the activity log on. An owner invites
// over the routes; the world is set up before each request so the flow takes the branches the path names (the
// invitation expired, revoked, the invitee's address changed, the database failing, another account with or without
// `anyUser`). Each request's logged trace must be the path's segment for that request, and together they take every
// state and every transition. After each path, the activity log must hold exactly what the answer wrote: an accepted
// invitation its `organization.invitationAccepted` (and `organization.memberAdded` for a new member) from this
// machine; any other end nothing.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Adapter } from '../../../src/core/adapter.js';
import type { InvitationMail } from '../../../src/core/invitations.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { invitationMachine } from '../../../src/flows/organizations/invitation-machine.js';
import { invitationTokenHash } from '../../../src/flows/organizations/invitations.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { ORIGIN, testAuth, type TestAuth } from '../../support/auth-app.js';
import type { ClientResponse, TestClient } from '../../support/client.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { done, failed, requestsOf, type Labelled } from '../../support/model-events.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { useMigratedPGlite } from '../../support/pglite.js';
import { faultyAdapter as faultsInto } from '../../support/faults.js';

const TOKEN = 'a'.repeat(43);
const OTHER = 'b'.repeat(43);
const FUTURE = 4_000_000_000_000;
const facts = (expires: number) => ({ id: 'i1', tokenHash: invitationTokenHash(TOKEN), organizationId: 'o1', organizationName: 'Acme', inviter: 'Ada', email: 'bob@example.com', role: 'member', expires });

const events: Labelled[] = [
  { type: 'OPEN', branch: 'the link', token: TOKEN },
  { type: 'ACCEPT', branch: 'on the page of the link', token: TOKEN },
  { type: 'ACCEPT', branch: 'to another link', token: OTHER },
  { type: 'DECLINE', branch: 'on the page of the link', token: TOKEN },
  { type: 'DECLINE', branch: 'to another link', token: OTHER },
  done('0.invitation.opening', 'the invited address', { state: 'pending', facts: facts(FUTURE), matches: true, allowed: true }),
  done('0.invitation.opening', 'another account, anyUser', { state: 'pending', facts: facts(FUTURE), matches: false, allowed: true }),
  done('0.invitation.opening', 'opened just before it expires', { state: 'pending', facts: facts(1), matches: true, allowed: true }),
  done('0.invitation.opening', 'another account', { state: 'pending', facts: facts(FUTURE), matches: false, allowed: false }),
  done('0.invitation.opening', 'expired', { state: 'expired' }),
  done('0.invitation.opening', 'gone', { state: 'gone' }),
  failed('0.invitation.opening', 'the database is down'),
  done('0.invitation.accepting', 'taken', { result: 'accepted', organizationId: 'o1' }),
  done('0.invitation.accepting', 'taken by a member already', { result: 'accepted', organizationId: 'o1' }),
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

// A state is told apart by its value and the invitation's expiry (the only context the `lapsed` guard reads).
const modelInput = { deps: {}, callbackUrl: ORIGIN, flowId: 'invitation', userId: 'u1', startedAt: 0 };
const paths = modelPaths(invitationMachine, {
  events: () => events,
  input: modelInput,
  stateKey: (s) => JSON.stringify([s.value, (s.context as { facts?: { expires: number } }).facts?.expires ?? null]),
});
const branchesOf = (path: ModelPath) => (path.events as Labelled[]).map((e) => e.branch);

const pg = useMigratedPGlite();
const faults = new Set<string>();
const faultyAdapter = (): Adapter => faultsInto(pg.adapter, faults);

// A user's id is their address; the row (a verified address) is made by `person`.
const provider = Credentials({ credentials: { email: {} }, authorize: (c) => ({ id: String(c.email), email: String(c.email) }) });
let serial = 0;
async function person(who: string): Promise<string> {
  const email = `${who}-${++serial}@example.test`;
  await pg.adapter.createUser({ id: email, email, emailVerified: new Date(), name: who });
  return email;
}
async function signIn(t: TestAuth, c: TestClient, email: string): Promise<void> {
  expect((await c.post('/auth/callback/credentials', { csrfToken: await t.csrfToken(c), email })).status).toBe(302);
}
const coverage = createCoverage(invitationMachine);
afterAll(() => console.log(`flow coverage: ${coverage.format()}`));

/** Plays one path: an owner invites over HTTP, then each request is set up so the real flow takes its segment's branches. */
async function play(path: ModelPath) {
  const all = branchesOf(path);
  const mails: InvitationMail[] = [];
  const t = testAuth({
    providers: [provider],
    adapter: faultyAdapter(),
    organizations: { invitations: { anyUser: all.includes('another account, anyUser'), send: (m) => void mails.push(m) } },
    throttle: { enabled: false },
    activity: {},
  });
  const owner = t.newClient();
  const invited = await person('bob');
  const ownerId = await person('owner');
  await signIn(t, owner, ownerId);
  const created = await owner.post('/auth/organizations', { csrfToken: await t.csrfToken(owner), name: 'Acme' });
  expect(created.status).toBe(201);
  const org = ((await created.json()) as { id: string }).id;
  const sent = await owner.post('/auth/organizations/invitations', { csrfToken: await t.csrfToken(owner), email: invited, role: 'admin' });
  expect(sent.status).toBe(201);
  const invitation = ((await sent.json()) as { id: string }).id;
  const token = new URL(mails.at(-1)!.url).pathname.split('/').at(-1)!;
  // A revocation is the owner's set-up of a branch: its record (the owner's) is not the path's.
  const revoke = async () => expect((await owner.post('/auth/organizations/invitations/revoke', { csrfToken: await t.csrfToken(owner), id: invitation })).status).toBe(200);
  const expires = (sql: string) => pg.db.query(`UPDATE organization_invitations SET expires = ${sql} WHERE id = $1`, [invitation]);
  // The one who answers: the invitee, or another account.
  const user = all.some((b) => b.startsWith('another account')) ? await person('carol') : invited;
  await signIn(t, t.client, user);
  if (all.includes('taken by a member already')) await pg.adapter.addMember({ organizationId: org, userId: user, role: 'member' });
  // What the set-up wrote (sign-ins, the invitation sent) is not the path's.
  const setUp = (await pg.db.query<{ id: string }>('SELECT id FROM activity')).rows.map((r) => r.id);

  const traces: TraceEntry[][] = [];
  let last: ClientResponse | undefined;
  let lapsing = false;
  for (const [event, ...outcomes] of requestsOf(path)) {
    const has = (b: string) => outcomes.some((o) => o.branch === b);
    const link = event!.token === TOKEN ? token : randomBytes(32).toString('base64url');
    if (has('expired') || has('expired meanwhile') || has('expired before the decline')) await expires(`now() - interval '1 second'`);
    if (has('opened just before it expires')) await expires(`now() + interval '30 seconds'`);
    if (has('gone') || has('revoked or taken meanwhile') || has('revoked before the decline')) await revoke();
    if (has('the address changed meanwhile') || has('the address changed before the decline')) await pg.adapter.updateUser({ id: user, email: `new-${user}`, emailVerified: new Date() });
    if (has('the database is down')) faults.add('getInvitationByTokenHash');
    if (has('the database is down at the answer') || has('the database is down at the decline')) faults.add('answerInvitation');
    // The page was shown just before the invitation lapsed; the answer comes a minute later.
    if (lapsing && event!.token === TOKEN) {
      const now = Date.now();
      vi.spyOn(Date, 'now').mockReturnValue(now + 60_000);
    }
    const csrfToken = await t.csrfToken();
    const before = t.logger.debugs.length;
    try {
      last = event!.type === 'OPEN' ? await t.client.get(`/auth/invitations/${link}`) : await t.client.post(`/auth/invitations/${link}`, { csrfToken, ...(event!.type === 'DECLINE' ? { answer: 'decline' } : {}) });
    } finally {
      faults.clear();
      vi.restoreAllMocks();
    }
    lapsing = has('opened just before it expires');
    const logged = t.logger.debugs.slice(before).filter((d) => d.message.startsWith('flow invitation '));
    expect(logged, `one trace for ${event!.type}`).toHaveLength(1);
    traces.push((logged[0]!.metadata as { trace: TraceEntry[] }).trace.filter((e) => e.machine === undefined));
  }
  const records = (await pg.db.query<Record<string, string | null>>(
    `SELECT kind, user_id, organization_id, machine FROM activity
      WHERE (user_id = ANY($1) OR organization_id = $2) AND NOT id = ANY($3) AND actor_id IS DISTINCT FROM $4 ORDER BY kind`,
    [[user, invited], org, setUp, ownerId],
  )).rows;
  return { traces, last: last!, records, user, org, member: await pg.adapter.getMembership(org, user) };
}

describe('invitation, model paths played over HTTP', () => {
  it('has a path to every end and through every outcome', () => {
    expect([...new Set(paths.map((p) => p.finalState))].sort()).toEqual(['accepted', 'awaitingAnswer', 'declined', 'failed.callbackRoute', 'failed.expired', 'failed.gone', 'failed.otherAccount']);
    expect([...new Set(paths.flatMap(branchesOf))].sort()).toEqual([...new Set(events.map((e) => e.branch))].sort());
  });

  it.each(paths.map((p) => [`${p.description} [${branchesOf(p).join(' / ')}]`, p] as const))('%s', async (_name, path) => {
    const run = await play(path);
    const segments = requestsOf(path);
    for (const [i, trace] of run.traces.entries()) {
      coverage.record(trace);
      // The real flow took the model's path, request by request.
      expect(trace.map((e) => e.event), `request ${i + 1}`).toEqual(segments[i]!.map((e) => e.type));
    }
    const accepted = path.finalState === 'accepted';
    const already = branchesOf(path).includes('taken by a member already');
    // The activity log: an acceptance leaves its record (and the membership's, for a new member) from this machine,
    // naming the invitee and the organization; a decline, a refusal, a lapse or a failure leaves none.
    const record = (kind: string) => ({ kind, user_id: run.user, organization_id: run.org, machine: 'invitation' });
    expect(run.records).toEqual(accepted ? [record('organization.invitationAccepted'), ...(already ? [] : [record('organization.memberAdded')])] : []);
    // A new member joins with the invited role; one already a member keeps theirs.
    expect(run.member?.role ?? null).toBe(accepted ? (already ? 'member' : 'admin') : already ? 'member' : null);
    const status = { accepted: 302, declined: 302, awaitingAnswer: 200, 'failed.gone': 410, 'failed.expired': 410, 'failed.otherAccount': 403, 'failed.callbackRoute': 302 }[path.finalState];
    expect(run.last.status, await run.last.clone().text()).toBe(status);
    if (path.finalState === 'failed.callbackRoute') expect(run.last.location?.href).toContain('/auth/error?error=');
    else if (status === 302) expect(run.last.location?.href).toBe(`${ORIGIN}/`);
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
