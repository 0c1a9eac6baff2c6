// Attacks on enterprise SSO (issue 49), each refused, against the two-tenant world (real IdPs, real DNS, PGlite):
// - an address outside the connection's verified domains (another tenant's, an unclaimed one, one the IdP calls
//   unverified), and a domain claimed but not verified, never sign anyone in or create a user;
// - a connection of another organization used by id reaches nothing through any admin route (IDOR), nor does its
//   callback take another connection's flow;
// - a second organization cannot claim or verify a domain another one verified, even with the right TXT record;
// - the admin API needs `sso:manage` in the ACTIVE organization and CSRF on writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setsSession } from '../e2e/oauth/harness.js';
import { continueWithSso, ssoSignIn, startSsoWorld, whoAndWhere, type SsoWorld } from '../e2e/peers/sso-world.js';

let w: SsoWorld;
beforeAll(async () => {
  w = await startSsoWorld();
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;

describe('addresses an IdP may not assert', () => {
  it.each([
    ['another tenant’s verified domain', 'mallory', 'mallory@globex.test'],
    ['a domain nobody claimed', 'dave', 'dave@elsewhere.test'],
  ])('refuses %s (SsoAddressRefused), creating no user', async (_name, account, email) => {
    const { callback } = await ssoSignIn(w, 'x@acme.test', w.acme.op, account);
    expect(setsSession(callback)).toBe(false);
    expect(callback.location?.searchParams.get('error')).toBe('SsoAddressRefused');
    expect(await w.adapter.getUserByEmail(email)).toBeNull();
  });

  it('refuses an address the IdP itself says is not verified', async () => {
    const { callback } = await ssoSignIn(w, 'x@acme.test', w.acme.op, 'unverified');
    expect(callback.location?.searchParams.get('error')).toBe('SsoAddressRefused');
    expect(await w.adapter.getUserByEmail('ursula@acme.test')).toBeNull();
  });

  it('refuses a domain claimed but not verified, even routed to the connection', async () => {
    const claim = await w.admin(w.acme.admin, '/domains', { domain: 'pending.test' });
    expect(claim.status).toBe(201);
    // Routed while unverified: the admin may prepare it, but it routes and admits nothing until DNS proves it.
    expect((await w.admin(w.acme.admin, '/domains/route', { domain: 'pending.test', connectionId: w.acme.connectionId })).status).toBe(200);
    const { res } = await continueWithSso(w, 'carol@pending.test');
    expect(res.status).toBe(404);
    const { callback } = await ssoSignIn(w, 'x@acme.test', w.acme.op, 'carol');
    expect(callback.location?.searchParams.get('error')).toBe('SsoAddressRefused');
    expect(await w.adapter.getUserByEmail('carol@pending.test')).toBeNull();
    // A TXT record without the claim's token does not verify it either.
    w.dns.records.set('_authchart.pending.test', ['authchart-verification=not-the-token']);
    const verify = await w.admin(w.acme.admin, '/domains/verify', { domain: 'pending.test' });
    expect(verify.status).toBe(409);
    expect(await json(verify)).toMatchObject({ error: 'SsoDomainUnverified' });
    expect(await w.adapter.getVerifiedDomain('pending.test')).toBeNull();
  });

  it('refuses a connection turned off, and its domain sends nobody there', async () => {
    const off = await w.admin(w.globex.admin, `/connections/${w.globex.connectionId}`, { enabled: 'false' });
    expect(off.status).toBe(200);
    try {
      const { res } = await continueWithSso(w, 'bob@globex.test');
      expect(res.status).toBe(404);
    } finally {
      expect((await w.admin(w.globex.admin, `/connections/${w.globex.connectionId}`, { enabled: 'true' })).status).toBe(200);
    }
    const { callback } = await ssoSignIn(w, 'bob@globex.test', w.globex.op, 'bob');
    expect(setsSession(callback)).toBe(true);
  });
});

describe('another organization’s connection by id (IDOR)', () => {
  const acmeConnection = () => w.acme.connectionId;

  it('reaches nothing through update, delete or routing, and changes nothing', async () => {
    const before = await w.adapter.getSsoConnection(acmeConnection());
    for (const [path, body] of [
      [`/connections/${acmeConnection()}`, { name: 'Pwned', issuer: 'https://evil.example', clientSecret: 'x' }],
      [`/connections/${acmeConnection()}/delete`, {}],
    ] as const) {
      const res = await w.admin(w.globex.admin, path, body);
      expect(res.status, path).toBe(404);
      expect(await json(res)).toMatchObject({ error: 'SsoNotFound' });
    }
    // Globex routing its own domain to Acme's connection: refused.
    const route = await w.admin(w.globex.admin, '/domains/route', { domain: 'globex.test', connectionId: acmeConnection() });
    expect(route.status).toBe(404);
    expect((await w.adapter.getVerifiedDomain('globex.test'))?.connectionId).toBe(w.globex.connectionId);
    // Acme's domain through Globex's admin: verify, route, delete all 404.
    for (const path of ['/domains/verify', '/domains/route', '/domains/delete']) {
      const res = await w.admin(w.globex.admin, path, { domain: 'acme.test', connectionId: w.globex.connectionId });
      expect(res.status, path).toBe(404);
    }
    expect(await w.adapter.getSsoConnection(acmeConnection())).toEqual(before);
    expect(await w.adapter.getVerifiedDomain('acme.test')).toMatchObject({ organizationId: w.acme.orgId, connectionId: acmeConnection() });
    // The listing shows only the caller's organization.
    const listed = await json(await w.globex.admin.get('/auth/organizations/sso'));
    expect((listed.connections as { id: string }[]).map((c) => c.id)).toEqual([w.globex.connectionId]);
    expect((listed.domains as { domain: string }[]).map((d) => d.domain)).toEqual(['globex.test']);
  });

  it('the adapter itself scopes every write by organization', async () => {
    expect(await w.adapter.updateSsoConnection(w.globex.orgId, acmeConnection(), { name: 'Pwned' })).toBeNull();
    expect(await w.adapter.deleteSsoConnection(w.globex.orgId, acmeConnection())).toBe(false);
    expect(await w.adapter.setDomainConnection(w.globex.orgId, 'globex.test', acmeConnection())).toBeNull();
  });

  it('a callback at one connection does not take a flow started at another', async () => {
    const client = w.t.newClient();
    const { res: start } = await continueWithSso(w, 'alice@acme.test', client);
    const nav = await w.acme.op.login(start.location!.href, 'alice');
    // The same answer brought to Globex's connection's callback: no flow of that connection in this browser.
    const moved = new URL(nav.url);
    moved.pathname = `/auth/callback/sso-${w.globex.connectionId}`;
    const res = await client.get(moved.href);
    expect(setsSession(res)).toBe(false);
    expect(res.location?.searchParams.get('error')).not.toBeNull();
    // An id that is no connection at all: an unknown provider, never a 500.
    const unknown = await client.get('/auth/callback/sso-00000000-0000-0000-0000-000000000000?code=x&state=y');
    expect(unknown.status).toBeLessThan(500);
    expect(setsSession(unknown)).toBe(false);
  });
});

describe('a domain another organization verified', () => {
  it('cannot be claimed, nor verified with the other’s TXT record', async () => {
    const claim = await w.admin(w.globex.admin, '/domains', { domain: 'acme.test' });
    expect(claim.status).toBe(409);
    expect(await json(claim)).toMatchObject({ error: 'SsoDomainRefused' });
    // A claim made before Acme verified, then verified with the record Acme published: still refused.
    const race = await w.adapter.claimDomain({ organizationId: w.globex.orgId, domain: 'late.test', verificationToken: 'authchart-verification=globex' });
    expect(race).not.toBeNull();
    const acmeClaim = await w.adapter.claimDomain({ organizationId: w.acme.orgId, domain: 'late.test', verificationToken: 'authchart-verification=acme' });
    expect(await w.adapter.markDomainVerified(w.acme.orgId, 'late.test')).toMatchObject({ organizationId: w.acme.orgId });
    void acmeClaim;
    w.dns.records.set('_authchart.late.test', ['authchart-verification=globex']);
    const verify = await w.admin(w.globex.admin, '/domains/verify', { domain: 'late.test' });
    expect(verify.status).toBe(409);
    expect(await json(verify)).toMatchObject({ error: 'SsoDomainRefused' });
    expect(await w.adapter.getVerifiedDomain('late.test')).toMatchObject({ organizationId: w.acme.orgId });
  });
});

describe('who may manage SSO', () => {
  it('a member without sso:manage is refused (403), a signed-out request 401, a write without CSRF refused', async () => {
    const { client } = await ssoSignIn(w, 'alice@acme.test', w.acme.op, 'alice');
    expect((await whoAndWhere(w, client)).active?.role).toBe('member');
    expect((await client.get('/auth/organizations/sso')).status).toBe(403);
    expect((await w.admin(client, '/domains', { domain: 'alice.test' })).status).toBe(403);
    expect((await w.t.newClient().get('/auth/organizations/sso')).status).toBe(401);
    const forged = await w.acme.admin.post('/auth/organizations/sso/domains', { domain: 'forged.test' });
    expect(forged.status).toBeGreaterThanOrEqual(400);
    expect(forged.status).toBeLessThan(500);
    expect((await w.adapter.listDomains(w.acme.orgId)).map((d) => d.domain)).not.toContain('forged.test');
  });

  it('refuses a malformed domain or connection (400), never a 500', async () => {
    for (const domain of ['', 'localhost', '127.0.0.1', 'http://acme.test/', 'a b.test', 'x'.repeat(300)]) {
      const res = await w.admin(w.acme.admin, '/domains', { domain });
      expect(res.status, domain).toBe(400);
    }
    for (const body of [{ name: 'x', issuer: 'ftp://idp.test', clientId: 'a', clientSecret: 'b' }, { name: 'x', issuer: 'http://idp.example', clientId: 'a', clientSecret: 'b' }, { name: 'x', kind: 'ldap' }, { name: 'x', issuer: 'https://idp.test', clientId: 'a', clientSecret: 'b', defaultRole: 'owner' }]) {
      const res = await w.admin(w.acme.admin, '/connections', body as unknown as Record<string, string>);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });
});
