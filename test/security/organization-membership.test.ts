// Organizations (issue 47) against a real PostgreSQL, two app instances on one schema: a member removed or a role
// lowered while signed in is refused on the very next request (JWT and database sessions, either instance); an admin
// cannot raise anyone above their own role; the last owner cannot leave or be demoted, even by two requests at once;
// an organization id of another tenant reaches nothing through any route.
import { describe, expect, it } from 'vitest';
import { Credentials } from '../../src/providers/credentials.js';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { createClient, type TestClient } from '../support/client.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import { useSharedStores } from '../support/shared-stores.js';

const stores = useSharedStores();
let serial = 0;
const unique = (who: string) => `${who}-${++serial}-${process.pid}@example.test`;
const provider = Credentials({ credentials: { email: {} }, authorize: (c) => ({ id: String(c.email), email: String(c.email) }) });

type Strategy = 'jwt' | 'database';

/** Two instances on one schema (each its own pool), and a browser whose requests go to either, alternately. */
async function twoInstances(strategy: Strategy, roles?: Record<string, string[]>) {
  const schema = await stores.schema();
  const make = () => testAuth({ adapter: PostgresAdapter(stores.pool(schema)), session: { strategy }, providers: [provider], organizations: { roles } });
  const [a, b] = [make(), make()];
  let turn = 0;
  const browser = (): TestClient => createClient({ fetch: (r) => (turn++ % 2 === 0 ? a : b).handle(r), baseUrl: ORIGIN });
  const pool = stores.pool(schema);
  const adapter = PostgresAdapter(pool);
  // Another connection pool, as another instance's adapter would have.
  const other = PostgresAdapter(stores.pool(schema));
  return { a, b, browser, adapter, other, pool };
}

async function csrf(t: TestAuth, c: TestClient): Promise<string> {
  return t.csrfToken(c);
}

async function signIn(t: TestAuth, c: TestClient, email: string): Promise<void> {
  expect((await c.post('/auth/callback/credentials', { csrfToken: await csrf(t, c), email })).status).toBe(302);
}

const post = async (t: TestAuth, c: TestClient, path: string, body: Record<string, string>) => c.post(`/auth/organizations${path}`, { csrfToken: await csrf(t, c), ...body });
const body = async (res: Response) => (await res.json()) as Record<string, unknown>;

async function createOrg(t: TestAuth, c: TestClient, name: string): Promise<string> {
  const res = await post(t, c, '', { name });
  expect(res.status).toBe(201);
  return (await body(res)).id as string;
}

describe.each<Strategy>(['jwt', 'database'])('organizations with %s sessions, two instances', (strategy) => {
  it('a removed member is refused on the next request; a lowered role loses its permission at once', async () => {
    const { a, browser, adapter } = await twoInstances(strategy);
    const [owner, member] = [browser(), browser()];
    const [ada, bob] = [unique('ada'), unique('bob')];
    await signIn(a, owner, ada);
    await signIn(a, member, bob);
    const org = await createOrg(a, owner, 'Acme');
    await adapter.addMember({ organizationId: org, userId: bob, role: 'admin' });
    expect((await post(a, member, '/active', { organizationId: org })).status).toBe(200);
    // An admin reads the members (alternating instances on every request).
    expect((await member.get('/auth/organizations/members')).status).toBe(200);
    expect((await member.get('/auth/organizations/members')).status).toBe(200);

    // Lowered to member: the next request (either instance) has only member's permissions.
    expect((await post(a, owner, '/members/role', { userId: bob, role: 'member' })).status).toBe(200);
    const listed = await body(await member.get('/auth/organizations'));
    expect(listed.active).toEqual({ id: org, role: 'member', permissions: ['member:read'] });
    expect((await post(a, member, '/members/remove', { userId: ada })).status).toBe(403);
    expect((await post(a, member, '/members/role', { userId: ada, role: 'member' })).status).toBe(403);

    // Removed: refused at once, on both instances.
    expect((await post(a, owner, '/members/remove', { userId: bob })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await member.get('/auth/organizations/members');
      expect(res.status).toBe(403);
      expect((await body(res)).message).toBe('No active organization.');
      expect((await body(await member.get('/auth/organizations'))).active).toBeNull();
    }
    // Still signed in, just not in the organization.
    expect(((await body(await member.get('/auth/session'))).user as { email: string }).email).toBe(bob);
  });

  it('an admin cannot raise anyone, themselves included, above their own role, nor demote an owner', async () => {
    const { a, browser, adapter } = await twoInstances(strategy, { billing: ['invoice:approve'] });
    const [owner, admin] = [browser(), browser()];
    const [ada, bob, cy] = [unique('ada'), unique('bob'), unique('cy')];
    await signIn(a, owner, ada);
    await signIn(a, admin, bob);
    const org = await createOrg(a, owner, 'Acme');
    await adapter.addMember({ organizationId: org, userId: bob, role: 'admin' });
    await adapter.addMember({ organizationId: org, userId: cy, role: 'member' });
    await post(a, admin, '/active', { organizationId: org });
    for (const [userId, role] of [[bob, 'owner'], [cy, 'owner'], [bob, 'billing'], [cy, 'billing'], [ada, 'member'], [ada, 'admin'], [cy, 'no-such-role']]) {
      const res = await post(a, admin, '/members/role', { userId, role });
      expect(res.status, `${userId} -> ${role}`).toBe(403);
      expect((await body(res)).error).toBe('OrganizationForbidden');
    }
    // Nor remove an owner.
    expect((await post(a, admin, '/members/remove', { userId: ada })).status).toBe(403);
    const roles = Object.fromEntries((await adapter.listMembers(org)).map((m) => [m.userId, m.role]));
    expect(roles).toEqual({ [ada]: 'owner', [bob]: 'admin', [cy]: 'member' });
    // Within their own role it works.
    expect((await post(a, admin, '/members/role', { userId: cy, role: 'admin' })).status).toBe(200);
    expect((await post(a, admin, '/members/remove', { userId: cy })).status).toBe(200);
  });

  it('the last owner can neither leave nor be demoted; two owners demoting each other at once leave one owner', async () => {
    const { a, b, browser, adapter, other } = await twoInstances(strategy);
    const [first, second] = [browser(), browser()];
    const [ada, bob] = [unique('ada'), unique('bob')];
    await signIn(a, first, ada);
    await signIn(a, second, bob);
    const org = await createOrg(a, first, 'Acme');
    const leave = await post(a, first, '/members/remove', { userId: ada });
    expect(leave.status).toBe(409);
    expect((await body(leave)).error).toBe('LastOwner');
    expect((await post(a, first, '/members/role', { userId: ada, role: 'admin' })).status).toBe(409);

    await adapter.addMember({ organizationId: org, userId: bob, role: 'owner' });
    await post(b, second, '/active', { organizationId: org });
    for (let round = 0; round < 5; round++) {
      await adapter.setMemberRole({ organizationId: org, userId: ada, role: 'owner' });
      await adapter.setMemberRole({ organizationId: org, userId: bob, role: 'owner' });
      const [x, y] = [await csrf(a, first), await csrf(b, second)];
      const answers = await Promise.all([
        first.post('/auth/organizations/members/role', { csrfToken: x, userId: ada, role: 'member' }),
        second.post('/auth/organizations/members/role', { csrfToken: y, userId: bob, role: 'member' }),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      expect((await adapter.listMembers(org)).filter((m) => m.role === 'owner')).toHaveLength(1);
    }
    // The adapter itself: two removals of the last two owners at once leave one.
    for (let round = 0; round < 5; round++) {
      await adapter.addMember({ organizationId: org, userId: ada, role: 'owner' });
      await adapter.addMember({ organizationId: org, userId: bob, role: 'owner' });
      await adapter.setMemberRole({ organizationId: org, userId: ada, role: 'owner' });
      await adapter.setMemberRole({ organizationId: org, userId: bob, role: 'owner' });
      const results = await Promise.all([adapter.removeMember(org, ada), other.removeMember(org, bob)]);
      expect(results.filter((r) => r === 'lastOwner')).toHaveLength(1);
      expect((await adapter.listMembers(org)).filter((m) => m.role === 'owner')).toHaveLength(1);
    }
  });

  it("an organization id of another tenant reaches nothing through any route", async () => {
    const { a, browser, adapter, pool } = await twoInstances(strategy);
    const [mallory, victim] = [browser(), browser()];
    const [eve, ada] = [unique('eve'), unique('ada')];
    await signIn(a, mallory, eve);
    await signIn(a, victim, ada);
    const theirs = await createOrg(a, victim, 'Victim Inc');
    await createOrg(a, mallory, 'Mallory LLC');
    // Switching to it: refused as an unknown id is.
    const sw = await post(a, mallory, '/active', { organizationId: theirs });
    expect(sw.status).toBe(403);
    expect(await body(sw)).toEqual(await body(await post(a, mallory, '/active', { organizationId: 'no-such-org' })));
    // Every other route acts in the session's active organization only: a named id is ignored, never obeyed.
    for (const [path, extra] of [['/members/remove', { userId: ada, organizationId: theirs }], ['/members/role', { userId: ada, role: 'member', organizationId: theirs }]] as const) {
      const res = await post(a, mallory, path, extra);
      expect(res.status, path).toBe(403);
    }
    const members = await body(await mallory.get(`/auth/organizations/members?organizationId=${theirs}`));
    expect(JSON.stringify(members)).not.toContain(ada);
    expect(await adapter.listMembers(theirs)).toEqual([expect.objectContaining({ userId: ada, role: 'owner' })]);
    expect((await body(await mallory.get('/auth/organizations'))).organizations).toEqual([expect.objectContaining({ name: 'Mallory LLC' })]);
    if (strategy === 'database') {
      // A session row that names their organization (written behind authchart's back) still meets the membership check.
      await pool.query(`UPDATE sessions SET organization_id = $1 WHERE user_id = $2`, [theirs, eve]);
      expect((await mallory.get('/auth/organizations/members')).status).toBe(403);
      expect((await body(await mallory.get('/auth/organizations'))).active).toBeNull();
    }
  });
});
