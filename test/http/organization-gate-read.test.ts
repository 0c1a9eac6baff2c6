// The organization gate on database sessions with PostgresAdapter: the membership comes with the session's own read
// (one statement), as fresh as a read of its own. A member removed or demoted is refused on the very next request,
// and the gate calls no getMembership; with JWT sessions (no session read), it reads the membership itself.
import { describe, expect, it } from 'vitest';
import type { AuthConfig } from '../../src/core/options.js';
import { requireOrganization } from '../../src/http/integrations/organization-helpers.js';
import { Credentials } from '../../src/providers/credentials.js';
import { testAuth, TEST_SECRET, type TestAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pg = useMigratedPGlite();

function world(strategy: 'database' | 'jwt', userId: string) {
  let reads = 0;
  const adapter = {
    ...pg.adapter,
    getMembership: (organizationId: string, member: string) => {
      reads++;
      return pg.adapter.getMembership(organizationId, member);
    },
  };
  const config: AuthConfig = {
    secret: TEST_SECRET,
    trustHost: true,
    adapter,
    session: { strategy },
    organizations: { roles: { billing: ['invoice:approve'] } },
    providers: [Credentials({ credentials: { email: {} }, authorize: () => ({ id: userId, email: `${userId}@example.test` }) })],
  };
  const t = testAuth(config);
  return { t, config, reads: () => reads };
}

async function signInTo(t: TestAuth, userId: string, organizationId: string): Promise<void> {
  await pg.adapter.createUser({ id: userId, email: `${userId}@example.test`, emailVerified: null });
  await pg.adapter.createOrganization({ id: organizationId, name: organizationId, ownerId: 'someone-else' });
  await pg.adapter.addMember({ organizationId, userId, role: 'billing' });
  expect((await t.client.post('/auth/callback/credentials', { csrfToken: await t.csrfToken(), email: `${userId}@example.test` })).status).toBe(302);
  expect((await t.client.post('/auth/organizations/active', { csrfToken: await t.csrfToken(), organizationId })).status).toBe(200);
}

const gate = async (w: ReturnType<typeof world>) => {
  const request = new Request('http://localhost:3000/api', { headers: { cookie: w.t.client.cookies.header('http://localhost:3000/api') } });
  try {
    return (await requireOrganization(request, w.config, { permission: 'invoice:approve' })).organization;
  } catch (err) {
    return (err as { type?: string }).type;
  }
};

describe('the organization gate with the membership read beside the session', () => {
  it('PostgresAdapter joins the active organization’s membership to the session row (null: not a member)', async () => {
    const w = world('database', 'joined-user');
    await signInTo(w.t, 'joined-user', 'org-joined');
    const token = decodeURIComponent(w.t.client.cookies.get('authchart.session-token')!);
    const { storedSessionToken } = await import('../../src/session/session-token.js');
    const found = await pg.adapter.getSessionAndUser(storedSessionToken(token));
    expect(found?.membership).toMatchObject({ organizationId: 'org-joined', userId: 'joined-user', role: 'billing' });
    await pg.adapter.removeMember('org-joined', 'joined-user');
    expect((await pg.adapter.getSessionAndUser(storedSessionToken(token)))?.membership).toBeNull();
  });

  it('database sessions: the gate reads no membership of its own, and a removal or a lowered role counts at once', async () => {
    const w = world('database', 'db-user');
    await signInTo(w.t, 'db-user', 'org-db');
    const before = w.reads();
    expect(await gate(w)).toEqual({ organizationId: 'org-db', userId: 'db-user', role: 'billing', permissions: ['invoice:approve'] });
    await pg.adapter.setMemberRole({ organizationId: 'org-db', userId: 'db-user', role: 'member' });
    expect(await gate(w)).toBe('OrganizationForbidden');
    await pg.adapter.removeMember('org-db', 'db-user');
    expect(await gate(w)).toBe('OrganizationForbidden');
    expect(w.reads() - before).toBe(0);
  });

  it('JWT sessions: the gate reads the membership itself, on every call', async () => {
    const w = world('jwt', 'jwt-user');
    await signInTo(w.t, 'jwt-user', 'org-jwt');
    const before = w.reads();
    expect(await gate(w)).toMatchObject({ organizationId: 'org-jwt', role: 'billing' });
    await pg.adapter.removeMember('org-jwt', 'jwt-user');
    expect(await gate(w)).toBe('OrganizationForbidden');
    expect(w.reads() - before).toBe(2);
  });
});
