// Invitations (issue 47) against a real PostgreSQL, two app instances on one schema, JWT and database sessions: an
// invitation is taken once (replay, two accepts at once, accept against revoke), expires, is bound to the invited
// address (another account, an address changed on the way, an unverified address), replaces rather than stacks, and
// no route reaches another tenant's invitation or hands out a role above the inviter's.
import { describe, expect, it } from 'vitest';
import { Credentials } from '../../src/providers/credentials.js';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import type { InvitationMail } from '../../src/core/invitations.js';
import { createClient, type TestClient } from '../support/client.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import { useSharedStores } from '../support/shared-stores.js';

const stores = useSharedStores();
let serial = 0;
const unique = (who: string) => `${who}-${++serial}-${process.pid}@example.test`;
// The user's id is their address; the row (with a verified address) is made by `person` below.
const provider = Credentials({ credentials: { email: {} }, authorize: (c) => ({ id: String(c.email), email: String(c.email) }) });

type Strategy = 'jwt' | 'database';

async function world(strategy: Strategy, invitations: { anyUser?: boolean; maxAge?: number } = {}) {
  const schema = await stores.schema();
  const mails: (InvitationMail & { locale: string })[] = [];
  const events: { name: string; message: Record<string, unknown> }[] = [];
  const on = (name: string) => (message: Record<string, unknown>) => void events.push({ name, message });
  const make = () =>
    testAuth({
      adapter: PostgresAdapter(stores.pool(schema)),
      session: { strategy },
      providers: [provider],
      activity: {},
      organizations: { invitations: { ...invitations, send: (mail, context) => void mails.push({ ...mail, locale: context.locale }) } },
      events: { invitationSent: on('invitationSent'), invitationAccepted: on('invitationAccepted'), invitationRevoked: on('invitationRevoked'), memberAdded: on('memberAdded') } as never,
    });
  const [a, b] = [make(), make()];
  let turn = 0;
  const browser = (): TestClient => createClient({ fetch: (r) => (turn++ % 2 === 0 ? a : b).handle(r), baseUrl: ORIGIN });
  const pool = stores.pool(schema);
  const adapter = PostgresAdapter(pool);
  const person = async (who: string, verified = true) => {
    const email = unique(who);
    await adapter.createUser({ id: email, email, emailVerified: verified ? new Date() : null, name: who });
    return email;
  };
  /** The token of the last mail sent to `email`. */
  const tokenFor = (email: string) => new URL(mails.filter((m) => m.to === email).at(-1)!.url).pathname.split('/').at(-1)!;
  return { a, b, browser, adapter, pool, person, mails, events, tokenFor };
}

const csrf = (t: TestAuth, c: TestClient) => t.csrfToken(c);
async function signIn(t: TestAuth, c: TestClient, email: string): Promise<void> {
  expect((await c.post('/auth/callback/credentials', { csrfToken: await csrf(t, c), email })).status).toBe(302);
}
const body = async (res: Response) => (await res.json()) as Record<string, unknown>;

/** An owner signed in with an active organization. */
async function ownerOf(w: Awaited<ReturnType<typeof world>>, name = 'Acme') {
  const c = w.browser();
  const email = await w.person('owner');
  await signIn(w.a, c, email);
  const res = await c.post('/auth/organizations', { csrfToken: await csrf(w.a, c), name });
  expect(res.status).toBe(201);
  return { c, email, org: (await body(res)).id as string };
}

const invite = async (w: Awaited<ReturnType<typeof world>>, c: TestClient, email: string, role = 'member') =>
  c.post('/auth/organizations/invitations', { csrfToken: await csrf(w.a, c), email, role });
const open = (c: TestClient, token: string) => c.get(`/auth/invitations/${token}`);
const answer = async (w: Awaited<ReturnType<typeof world>>, c: TestClient, token: string, decline = false) =>
  c.post(`/auth/invitations/${token}`, { csrfToken: await csrf(w.a, c), ...(decline ? { answer: 'decline' } : {}) });
const roleOf = async (w: Awaited<ReturnType<typeof world>>, org: string, userId: string) => (await w.adapter.getMembership(org, userId))?.role ?? null;

describe.each<Strategy>(['jwt', 'database'])('invitations with %s sessions, two instances', (strategy) => {
  it('the invited address joins with the role once; the organization becomes active; replays find it gone', async () => {
    const w = await world(strategy);
    const owner = await ownerOf(w);
    const bobEmail = await w.person('bob');
    const sent = await owner.c.post('/auth/organizations/invitations', { csrfToken: await csrf(w.a, owner.c), email: bobEmail.toUpperCase(), role: 'admin', locale: 'ja' });
    expect(sent.status).toBe(201);
    // In the invitee's language, as the inviter asked.
    expect(w.mails.at(-1)).toMatchObject({ to: bobEmail, organizationName: 'Acme', role: 'admin', locale: 'ja' });
    const token = w.tokenFor(bobEmail);
    // Only its hash is stored.
    const rows = (await w.pool.query(`SELECT token_hash FROM organization_invitations`)).rows as { token_hash: string }[];
    expect(JSON.stringify(rows)).not.toContain(token);

    const bob = w.browser();
    // Signed out: the page says who invites whom to what, and offers a sign-in that comes back.
    const anonymous = await open(bob, token);
    expect(anonymous.status).toBe(200);
    const text = await anonymous.text();
    expect(text).toContain('Acme');
    expect(text).toContain(bobEmail);
    expect(text).toContain(encodeURIComponent(`/auth/invitations/${token}`));
    expect(await roleOf(w, owner.org, bobEmail)).toBeNull();

    await signIn(w.a, bob, bobEmail);
    const page = await open(bob, token);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Accept invitation');
    const accepted = await answer(w, bob, token);
    expect(accepted.status).toBe(302);
    expect(await roleOf(w, owner.org, bobEmail)).toBe('admin');
    expect(((await body(await bob.get('/auth/organizations'))).active as { id: string }).id).toBe(owner.org);
    expect(w.events.map((e) => e.name)).toEqual(['invitationSent', 'invitationAccepted', 'memberAdded']);

    // Replay: the link again, and the answer again.
    expect((await open(bob, token)).status).toBe(410);
    expect((await answer(w, bob, token)).status).not.toBe(200);
    expect(w.events.filter((e) => e.name === 'invitationAccepted')).toHaveLength(1);
    // On record once, from the invitation machine, with the request's agent and the session that answered.
    const records = (await w.adapter.listActivity({ userId: bobEmail })).records.filter((r) => r.organizationId === owner.org);
    expect(records.map((r) => r.kind).sort()).toEqual(['organization.invitationAccepted', 'organization.memberAdded']);
    for (const r of records) expect(r).toMatchObject({ actorId: bobEmail, detail: { role: 'admin' }, flow: { machine: 'invitation' } });
    expect(records.every((r) => typeof r.sessionHash === 'string')).toBe(true);
  });

  it('another account is refused, before and at the answer; an address changed on the way or unproven is refused', async () => {
    const w = await world(strategy);
    const owner = await ownerOf(w);
    const [bobEmail, malloryEmail] = [await w.person('bob'), await w.person('mallory')];
    await invite(w, owner.c, bobEmail);
    const token = w.tokenFor(bobEmail);
    const mallory = w.browser();
    await signIn(w.a, mallory, malloryEmail);
    const refused = await open(mallory, token);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain(bobEmail);
    // No paused flow to answer: a forged POST takes nothing.
    expect((await answer(w, mallory, token)).status).toBeGreaterThanOrEqual(300);
    expect(await roleOf(w, owner.org, malloryEmail)).toBeNull();

    // Bob opens the page, then his account's address changes before he accepts: refused at the answer.
    const bob = w.browser();
    await signIn(w.a, bob, bobEmail);
    expect((await open(bob, token)).status).toBe(200);
    await w.adapter.updateUser({ id: bobEmail, email: unique('bob-new'), emailVerified: new Date() });
    expect((await answer(w, bob, token)).status).toBe(403);
    // Nor can that account decline it (which would spend it): opened again, and declined after the change.
    const bob2 = w.browser();
    await w.adapter.updateUser({ id: bobEmail, email: bobEmail, emailVerified: new Date() });
    await signIn(w.a, bob2, bobEmail);
    expect((await open(bob2, token)).status).toBe(200);
    await w.adapter.updateUser({ id: bobEmail, email: unique('bob-newer'), emailVerified: new Date() });
    expect((await answer(w, bob2, token, true)).status).toBe(403);
    expect((await w.adapter.listInvitations(owner.org)).map((i) => i.email)).toContain(bobEmail);
    expect(await roleOf(w, owner.org, bobEmail)).toBeNull();

    // An account that took the invited address without proving it (signed up with it, never confirmed): refused.
    const carolEmail = await w.person('carol', false);
    await invite(w, owner.c, carolEmail);
    const carol = w.browser();
    await signIn(w.a, carol, carolEmail);
    expect((await open(carol, w.tokenFor(carolEmail))).status).toBe(403);
    expect(await roleOf(w, owner.org, carolEmail)).toBeNull();
    // The invitation is still there for its owner to take later.
    expect(((await body(await owner.c.get('/auth/organizations/invitations'))).invitations as unknown[]).length).toBe(2);
  });

  it('with anyUser another account may accept, and the page says so', async () => {
    const w = await world(strategy, { anyUser: true });
    const owner = await ownerOf(w);
    const [bobEmail, carolEmail] = [await w.person('bob'), await w.person('carol')];
    await invite(w, owner.c, bobEmail);
    const carol = w.browser();
    await signIn(w.a, carol, carolEmail);
    const page = await open(carol, w.tokenFor(bobEmail));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('any signed-in account');
    expect((await answer(w, carol, w.tokenFor(bobEmail))).status).toBe(302);
    expect(await roleOf(w, owner.org, carolEmail)).toBe('member');
  });

  it('two accepts at once, or an accept against a revocation: exactly one wins', async () => {
    const w = await world(strategy, { anyUser: true });
    const owner = await ownerOf(w);
    for (let round = 0; round < 4; round++) {
      const [x, y] = [await w.person('x'), await w.person('y')];
      await invite(w, owner.c, x);
      const token = w.tokenFor(x);
      const [cx, cy] = [w.browser(), w.browser()];
      await signIn(w.a, cx, x);
      await signIn(w.a, cy, y);
      expect((await open(cx, token)).status).toBe(200);
      expect((await open(cy, token)).status).toBe(200);
      const [rx, ry] = await Promise.all([answer(w, cx, token), answer(w, cy, token)]);
      expect([rx.status, ry.status].sort()).toEqual([302, 410]);
      const members = [await roleOf(w, owner.org, x), await roleOf(w, owner.org, y)].filter(Boolean);
      expect(members).toHaveLength(1);
    }
    for (let round = 0; round < 4; round++) {
      const x = await w.person('z');
      await invite(w, owner.c, x);
      const token = w.tokenFor(x);
      const id = ((await body(await owner.c.get('/auth/organizations/invitations'))).invitations as { id: string; email: string }[]).find((i) => i.email === x)!.id;
      const cx = w.browser();
      await signIn(w.a, cx, x);
      expect((await open(cx, token)).status).toBe(200);
      const [accepted, revoked] = await Promise.all([answer(w, cx, token), owner.c.post('/auth/organizations/invitations/revoke', { csrfToken: await csrf(w.a, owner.c), id })]);
      const joined = (await roleOf(w, owner.org, x)) !== null;
      // Either the accept took it (the revocation finds nothing pending) or the revocation did (the accept finds it gone).
      expect(joined ? [accepted.status, revoked.status] : [accepted.status, revoked.status]).toEqual(joined ? [302, 404] : [410, 200]);
    }
  });

  it('an expired invitation is refused, on opening and at the answer', async () => {
    const w = await world(strategy);
    const owner = await ownerOf(w);
    const bobEmail = await w.person('bob');
    await invite(w, owner.c, bobEmail);
    const token = w.tokenFor(bobEmail);
    const bob = w.browser();
    await signIn(w.a, bob, bobEmail);
    expect((await open(bob, token)).status).toBe(200);
    await w.pool.query(`UPDATE organization_invitations SET expires = now() - interval '1 second'`);
    const late = await answer(w, bob, token);
    expect(late.status).toBe(410);
    expect(await late.text()).toContain('expired');
    expect((await open(bob, token)).status).toBe(410);
    expect(await roleOf(w, owner.org, bobEmail)).toBeNull();
  });

  it('re-inviting replaces: the old link is gone, one invitation is pending; a revoked link is gone; declining joins nobody', async () => {
    const w = await world(strategy);
    const owner = await ownerOf(w);
    const bobEmail = await w.person('bob');
    await invite(w, owner.c, bobEmail, 'member');
    const first = w.tokenFor(bobEmail);
    await invite(w, owner.c, bobEmail, 'admin');
    const second = w.tokenFor(bobEmail);
    expect(second).not.toBe(first);
    const pending = (await body(await owner.c.get('/auth/organizations/invitations'))).invitations as { id: string; role: string }[];
    expect(pending).toHaveLength(1);
    expect(pending[0]!.role).toBe('admin');
    const bob = w.browser();
    await signIn(w.a, bob, bobEmail);
    expect((await open(bob, first)).status).toBe(410);
    // Revoked: gone too.
    expect((await owner.c.post('/auth/organizations/invitations/revoke', { csrfToken: await csrf(w.a, owner.c), id: pending[0]!.id })).status).toBe(200);
    expect((await open(bob, second)).status).toBe(410);
    expect(w.events.filter((e) => e.name === 'invitationRevoked')).toHaveLength(1);
    // A third invitation, declined.
    await invite(w, owner.c, bobEmail);
    const third = w.tokenFor(bobEmail);
    expect((await open(bob, third)).status).toBe(200);
    expect((await answer(w, bob, third, true)).status).toBe(302);
    expect(await roleOf(w, owner.org, bobEmail)).toBeNull();
    expect((await open(bob, third)).status).toBe(410);
    // On record: the owner's membership, three invitations sent (by the owner), one revoked; nothing accepted, nobody
    // added (a decline has no record of its own: it changes no membership).
    const kinds = (await w.adapter.listActivity({ organizationId: owner.org })).records.map((r) => `${r.kind} ${r.actorId}`).sort();
    expect(kinds).toEqual([
      `organization.invitationRevoked ${owner.email}`,
      ...Array(3).fill(`organization.invitationSent ${owner.email}`),
      `organization.memberAdded ${owner.email}`,
    ]);
    // A token of the wrong shape, or made up, reads as gone.
    expect((await open(bob, 'x'.repeat(43))).status).toBe(410);
    expect((await open(bob, '..%2F..')).status).toBe(410);
  });

  it('no inviting above one\'s own role, nor without the permission; another tenant\'s invitations are out of reach', async () => {
    const w = await world(strategy);
    const acme = await ownerOf(w, 'Acme');
    const globex = await ownerOf(w, 'Globex');
    const [adminEmail, memberEmail, target] = [await w.person('admin'), await w.person('member'), await w.person('target')];
    await w.adapter.addMember({ organizationId: acme.org, userId: adminEmail, role: 'admin' });
    await w.adapter.addMember({ organizationId: acme.org, userId: memberEmail, role: 'member' });
    const admin = w.browser();
    await signIn(w.a, admin, adminEmail);
    await admin.post('/auth/organizations/active', { csrfToken: await csrf(w.a, admin), organizationId: acme.org });
    const owner = await invite(w, admin, target, 'owner');
    expect(owner.status).toBe(403);
    expect((await body(owner)).error).toBe('OrganizationForbidden');
    expect((await invite(w, admin, target, 'no-such-role')).status).toBe(403);
    expect((await invite(w, admin, 'not an address', 'member')).status).toBe(400);
    expect((await invite(w, admin, target, 'admin')).status).toBe(201);

    const member = w.browser();
    await signIn(w.a, member, memberEmail);
    await member.post('/auth/organizations/active', { csrfToken: await csrf(w.a, member), organizationId: acme.org });
    expect((await invite(w, member, target)).status).toBe(403);
    expect((await member.get('/auth/organizations/invitations')).status).toBe(403);

    // Globex's owner: Acme's organization id in the body is ignored, Acme's invitation id reaches nothing.
    const acmeInvitation = ((await body(await admin.get('/auth/organizations/invitations'))).invitations as { id: string }[])[0]!.id;
    const cross = await globex.c.post('/auth/organizations/invitations', { csrfToken: await csrf(w.a, globex.c), email: unique('x'), role: 'member', organizationId: acme.org });
    expect(cross.status).toBe(201);
    expect((await w.adapter.listInvitations(acme.org)).map((i) => i.id)).toEqual([acmeInvitation]);
    expect((await globex.c.post('/auth/organizations/invitations/revoke', { csrfToken: await csrf(w.a, globex.c), id: acmeInvitation, organizationId: acme.org })).status).toBe(404);
    expect((await body(await globex.c.get(`/auth/organizations/invitations?organizationId=${acme.org}`))).invitations).toHaveLength(1);
    expect((await w.adapter.listInvitations(acme.org)).map((i) => i.status)).toEqual(['pending']);
    // A signed-out request, and a write without CSRF.
    const stranger = w.browser();
    expect((await stranger.get('/auth/organizations/invitations')).status).toBe(401);
    expect((await admin.post('/auth/organizations/invitations', { email: unique('y'), role: 'member' })).status).toBeGreaterThanOrEqual(400);
  });
});
