// authchart/client's switchOrganization against a real authchart instance (PostgreSQL on PGlite), and the active
// organization in `GET {basePath}/session`: its role as it is now, read afresh on every session read.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSession } from '../../src/client/core.js';
import { switchOrganization } from '../../src/client/organizations.js';
import { AuthClientError } from '../../src/client/core.js';
import { Credentials } from '../../src/providers/credentials.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pg = useMigratedPGlite();
let t: TestAuth;
const saved = { fetch: globalThis.fetch, window: (globalThis as { window?: unknown }).window };
const provider = Credentials({ credentials: { email: {} }, authorize: (c) => ({ id: String(c.email), email: String(c.email) }) });

beforeAll(() => {
  t = testAuth({ providers: [provider], adapter: pg.adapter, session: { strategy: 'jwt' }, organizations: {} });
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => t.client.request(new Request(new URL(String(input), ORIGIN), init))) as typeof fetch;
  (globalThis as { window?: unknown }).window = { location: { href: `${ORIGIN}/`, assign: () => {}, reload: () => {} } };
});
afterAll(() => {
  globalThis.fetch = saved.fetch;
  (globalThis as { window?: unknown }).window = saved.window;
});

describe('switchOrganization and the session', () => {
  it('switches only to an organization of the user; the session shows it with the role as it is now', async () => {
    const email = `ada-${randomUUID()}@example.test`;
    expect((await t.client.post('/auth/callback/credentials', { csrfToken: await t.csrfToken(), email })).status).toBe(302);
    expect((await getSession())?.organization).toBeNull();
    const mine = await pg.adapter.createOrganization({ id: randomUUID(), name: 'Mine', ownerId: 'someone-else' });
    await pg.adapter.addMember({ organizationId: mine.id, userId: email, role: 'admin' });
    const theirs = await pg.adapter.createOrganization({ id: randomUUID(), name: 'Theirs', ownerId: 'someone-else' });

    const active = await switchOrganization(mine.id);
    expect(active).toMatchObject({ id: mine.id, role: 'admin' });
    expect((await getSession())?.organization).toMatchObject({ id: mine.id, role: 'admin' });
    await expect(switchOrganization(theirs.id)).rejects.toMatchObject({ type: 'OrganizationForbidden', status: 403 });
    await expect(switchOrganization(theirs.id)).rejects.toBeInstanceOf(AuthClientError);
    expect((await getSession())?.organization).toMatchObject({ id: mine.id });

    // Lowered elsewhere: the next read says so, without signing in again. Removed: no organization.
    await pg.adapter.setMemberRole({ organizationId: mine.id, userId: email, role: 'member' });
    expect((await getSession())?.organization).toEqual({ id: mine.id, role: 'member', permissions: ['member:read'] });
    await pg.adapter.removeMember(mine.id, email);
    expect((await getSession())?.organization).toBeNull();
    expect((await getSession())?.user?.email).toBe(email);
    expect(await switchOrganization(null)).toBeNull();
  });
});
