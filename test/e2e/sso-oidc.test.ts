// Enterprise SSO with OIDC connections (issue 49): two organizations, each with its own IdP (two real oidc-provider
// instances on 127.0.0.1) configured at runtime through the admin API, each domain proven by a TXT record served by a
// real DNS server. "Continue with SSO" routes an address to its tenant's IdP; the user is provisioned just in time into
// that organization with the connection's default role, and the organization is active in the new session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeTotp, codeNow } from '../support/factors.js';
import { setsSession } from './oauth/harness.js';
import { continueWithSso, ssoSignIn, startSsoWorld, whoAndWhere, type SsoWorld } from './peers/sso-world.js';

let w: SsoWorld;
beforeAll(async () => {
  w = await startSsoWorld();
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

describe('OIDC connections of two tenants', () => {
  it('signs an Acme address in through Acme’s IdP: a new member of Acme, Acme active', async () => {
    const { client, callback } = await ssoSignIn(w, 'alice@acme.test', w.acme.op, 'alice');
    expect(callback.status).toBe(302);
    expect(callback.location?.href).toBe('http://localhost:3000/dashboard');
    expect(setsSession(callback)).toBe(true);
    const now = await whoAndWhere(w, client);
    expect(now).toMatchObject({ email: 'alice@acme.test', active: { id: w.acme.orgId, role: 'member' } });
    const user = await w.adapter.getUserByEmail('alice@acme.test');
    expect(await w.adapter.getMembership(w.acme.orgId, String(user!.id))).toMatchObject({ role: 'member' });
    expect(await w.adapter.getMembership(w.globex.orgId, String(user!.id))).toBeNull();
    // The membership made just in time is on record, by the sign-in that made it.
    const joined = (await w.adapter.listActivity({ userId: String(user!.id), kinds: ['organization.memberAdded'] })).records;
    expect(joined).toHaveLength(1);
    expect(joined[0]).toMatchObject({ organizationId: w.acme.orgId, actorId: String(user!.id), detail: { role: 'member', via: 'sso' } });
    expect(joined[0]!.sessionHash).toEqual(expect.any(String));
    // The IdP account is linked under the connection's provider id.
    expect(await w.adapter.getUserByAccount({ provider: `sso-${w.acme.connectionId}`, providerAccountId: 'alice' })).toMatchObject({ email: 'alice@acme.test' });
  });

  it('signs a Globex address in through Globex’s IdP with Globex’s default role (admin)', async () => {
    const { client, callback } = await ssoSignIn(w, 'bob@globex.test', w.globex.op, 'bob');
    expect(setsSession(callback)).toBe(true);
    expect(await whoAndWhere(w, client)).toMatchObject({ email: 'bob@globex.test', active: { id: w.globex.orgId, role: 'admin' } });
  });

  it('a second sign-in finds the same user and keeps the membership', async () => {
    const { client, callback } = await ssoSignIn(w, 'alice@acme.test', w.acme.op, 'alice');
    expect(setsSession(callback)).toBe(true);
    expect(await whoAndWhere(w, client)).toMatchObject({ email: 'alice@acme.test', active: { id: w.acme.orgId, role: 'member' } });
    expect((await w.adapter.listMembers(w.acme.orgId)).filter((m) => m.role === 'member')).toHaveLength(1);
  });

  it('refuses Globex’s address asserted by Acme’s IdP, and Acme’s asserted by Globex’s (SsoAddressRefused)', async () => {
    for (const [op, account, email] of [[w.acme.op, 'mallory', 'mallory@globex.test'], [w.globex.op, 'eve', 'eve@acme.test']] as const) {
      const start = op === w.acme.op ? 'someone@acme.test' : 'someone@globex.test';
      const { callback } = await ssoSignIn(w, start, op, account);
      expect(setsSession(callback)).toBe(false);
      expect(callback.location?.searchParams.get('error')).toBe('SsoAddressRefused');
      expect(w.t.logger.errorTypes().at(-1)).toBe('SsoAddressRefused');
      expect(await w.adapter.getUserByEmail(email)).toBeNull();
    }
  });

  it('sends an address of no verified domain nowhere: 404 for a script, the page with a message for a browser', async () => {
    const { res } = await continueWithSso(w, 'dave@elsewhere.test');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'SsoNotFound' });
    const browser = w.t.newClient();
    const page = await browser.post('/auth/sso', { csrfToken: await w.t.csrfToken(browser), email: 'dave@elsewhere.test' }, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(400);
    const text = await page.text();
    expect(text).toContain('No single sign-on is set up for this address');
    expect(text).toContain('value="dave@elsewhere.test"');
  });

  it('shows "Continue with SSO" on the sign-in page', async () => {
    const page = await (await w.t.newClient().get('/auth/signin')).text();
    expect(page).toMatch(/<form method="post" class="sso" action="\/auth\/sso">/);
    expect(page).toContain('Continue with SSO');
  });

  it('keeps the client secret sealed in the database and out of every answer', async () => {
    const rows = (await w.db.query<{ settings: Record<string, unknown> }>(`SELECT settings FROM sso_connections`)).rows;
    expect(rows).toHaveLength(2);
    for (const r of rows) expect(String(r.settings.clientSecret)).toMatch(/^sealed\./);
    const listed = await (await w.acme.admin.get('/auth/organizations/sso')).text();
    expect(listed).not.toContain('clientSecret"');
    expect(listed).not.toContain('sso-tenant-client-secret');
    expect(listed).toContain('"clientSecretSet":true');
  });
});

describe("authchart/client's signIn('sso', { email })", () => {
  it('leaves for the IdP of the address’s organization, and stays with SsoNotFound for an address without SSO', async () => {
    const { signIn } = await import('../../src/client/core.js');
    const browser = w.t.newClient();
    const saved = { fetch: globalThis.fetch, window: (globalThis as { window?: unknown }).window };
    const went: string[] = [];
    globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => browser.request(new Request(new URL(String(input), 'http://localhost:3000'), init))) as typeof fetch;
    (globalThis as { window?: unknown }).window = { location: { href: 'http://localhost:3000/login', assign: (u: string) => void went.push(u), reload: () => {} } };
    try {
      const none = await signIn('sso', { email: 'dave@elsewhere.test' });
      expect(none).toMatchObject({ ok: false, error: 'SsoNotFound' });
      expect(went).toEqual([]);
      const off = await signIn('sso', { email: 'alice@acme.test' });
      expect(off.ok).toBe(true);
      expect(new URL(off.url!).origin).toBe(w.acme.op.issuer);
      expect(went).toEqual([off.url]);
    } finally {
      globalThis.fetch = saved.fetch;
      (globalThis as { window?: unknown }).window = saved.window;
    }
    // The browser that left comes back signed in.
    const callback = await browser.submit(await w.acme.op.login(went[0]!, 'alice'));
    expect(setsSession(callback)).toBe(true);
    expect(await whoAndWhere(w, browser)).toMatchObject({ email: 'alice@acme.test', active: { id: w.acme.orgId } });
  });
});

describe('the built-in SSO page', () => {
  it('shows the organization’s connections and domains, and its forms come back to it', async () => {
    const page = await w.acme.admin.get('/auth/organizations/sso/page');
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('Acme SSO');
    expect(text).toContain('data-domain="acme.test"');
    expect(text).not.toContain('Globex SSO');
    expect(text).toContain(`/auth/callback/sso-${w.acme.connectionId}`);
    const claimed = await w.admin(w.acme.admin, '/domains', { domain: 'page.acme.test', page: '1' });
    expect(claimed.status).toBe(302);
    expect(claimed.location?.pathname + claimed.location!.search).toBe('/auth/organizations/sso/page?notice=saved');
    const after = await (await w.acme.admin.get('/auth/organizations/sso/page?notice=saved')).text();
    expect(after).toContain('_authchart.page.acme.test');
    expect(after).toContain('Saved.');
    const refused = await w.admin(w.globex.admin, '/domains', { domain: 'acme.test', page: '1' });
    expect(refused.location?.search).toBe('?error=SsoDomainRefused');
  });

  it('speaks the visitor’s language', async () => {
    const page = await (await w.acme.admin.get('/auth/organizations/sso/page', { headers: { 'accept-language': 'de' } })).text();
    expect(page).toContain('OIDC-Verbindung hinzufügen');
    const signin = await (await w.t.newClient().get('/auth/signin', { headers: { 'accept-language': 'fr' } })).text();
    expect(signin).toContain('Continuer avec le SSO');
  });

  it('is refused to a member without sso:manage, and sends the signed-out to sign in', async () => {
    const { client } = await ssoSignIn(w, 'alice@acme.test', w.acme.op, 'alice');
    expect((await client.get('/auth/organizations/sso/page')).status).toBe(403);
    const out = await w.t.newClient().get('/auth/organizations/sso/page');
    expect(out.status).toBe(302);
    expect(out.location?.pathname).toBe('/auth/signin');
  });
});

describe('an SSO sign-in that a second factor interrupts (JWT sessions)', () => {
  let w2: SsoWorld;
  beforeAll(async () => {
    // JWT sessions here (the other world keeps database sessions): the organization lands in the new token.
    w2 = await startSsoWorld({ secondFactor: {}, session: { strategy: 'jwt' } });
  }, 60_000);
  afterAll(async () => {
    await w2?.stop();
  });

  it('joins the organization once the factor check passes, not before', async () => {
    const first = await ssoSignIn(w2, 'alice@acme.test', w2.acme.op, 'alice');
    expect(setsSession(first.callback)).toBe(true);
    const user = (await w2.adapter.getUserByEmail('alice@acme.test'))!;
    const key = await activeTotp(w2.adapter, String(user.id));
    expect(await w2.adapter.removeMember(w2.acme.orgId, String(user.id))).toMatchObject({ role: 'member' });

    const { client, callback } = await ssoSignIn(w2, 'alice@acme.test', w2.acme.op, 'alice');
    expect(setsSession(callback)).toBe(false);
    expect(await w2.adapter.getMembership(w2.acme.orgId, String(user.id))).toBeNull();
    const passed = await client.post('/auth/second-factor', { csrfToken: await w2.t.csrfToken(client), code: codeNow(key) });
    expect(setsSession(passed)).toBe(true);
    expect(await whoAndWhere(w2, client)).toMatchObject({ email: 'alice@acme.test', active: { id: w2.acme.orgId, role: 'member' } });
  });
});
