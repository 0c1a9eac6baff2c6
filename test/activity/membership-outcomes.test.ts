// Organization membership changes leave one record each, naming the member as the user, the one who changed it as
// the actor, and the organization; and a sign-out everywhere leaves one `session.ended` record, by the session that
// asked (its hash), never the cookie.
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/core/config.js';
import type { AuthConfig } from '../../src/core/options.js';
import { addMember, changeRole, createOrganization, removeMember } from '../../src/organizations/members.js';
import { Credentials } from '../../src/providers/credentials.js';
import { testAuth, TEST_SECRET } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pg = useMigratedPGlite();

describe('activity of account changes', () => {
  it('membership changes: member as user, changer as actor, the organization, the roles', async () => {
    const config = resolveConfig({ secret: TEST_SECRET, providers: [], adapter: pg.adapter, organizations: {}, activity: {} } as AuthConfig);
    const org = await createOrganization(config, 'owner-1', 'Acme');
    await addMember(config, 'owner-1', org.id, 'bob', 'member');
    await changeRole(config, 'owner-1', org.id, 'bob', 'admin');
    await removeMember(config, 'owner-1', org.id, 'bob');
    const { records: all } = await pg.adapter.listActivity({ organizationId: org.id });
    // The owner's membership, which the organization is made with, is on record too (the owner as user and actor).
    const owner = all.filter((r) => r.userId === 'owner-1');
    expect(owner).toHaveLength(1);
    expect(owner[0]).toMatchObject({ kind: 'organization.memberAdded', actorId: 'owner-1', detail: { role: 'owner' } });
    const records = all.filter((r) => r.userId !== 'owner-1');
    expect(records.map((r) => r.kind).sort()).toEqual(['organization.memberAdded', 'organization.memberRemoved', 'organization.roleChanged']);
    for (const r of records) expect(r).toMatchObject({ userId: 'bob', actorId: 'owner-1', organizationId: org.id });
    expect(records.find((r) => r.kind === 'organization.roleChanged')!.detail).toEqual({ from: 'member', to: 'admin' });
    // Off without `activity`: nothing recorded.
    const off = resolveConfig({ secret: TEST_SECRET, providers: [], adapter: pg.adapter, organizations: {} } as AuthConfig);
    await addMember(off, 'owner-1', org.id, 'carol', 'member');
    expect((await pg.adapter.listActivity({ userId: 'carol' })).records).toEqual([]);
  });

  it('sign out everywhere: one session.ended, by the asking session', async () => {
    const t = testAuth({
      adapter: pg.adapter,
      session: { strategy: 'database' },
      activity: {},
      providers: [Credentials({ credentials: { email: {}, password: {} }, authorize: (c) => ({ id: 'dora', email: String(c.email) }) })],
    });
    await pg.adapter.createUser({ id: 'dora', email: 'dora@example.com', emailVerified: null });
    const other = t.newClient();
    for (const c of [t.client, other]) await c.post('/auth/callback/credentials', { csrfToken: await t.csrfToken(c), email: 'dora@example.com', password: 'x' });
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/account/sessions', { csrfToken, scope: 'others' });
    expect(res.status).toBeLessThan(400);
    const ended = (await pg.adapter.listActivity({ userId: 'dora', kinds: ['session.ended'] })).records;
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({ actorId: 'dora', reason: 'othersRevoked', detail: { scope: 'others', count: 1 } });
    expect(JSON.stringify(ended)).not.toContain(t.client.cookies.get('authchart.session-token')!);
  });
});
