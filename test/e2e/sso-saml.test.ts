// Enterprise SSO with a SAML connection (issue 49): an organization's admin adds the connection (the test IdP's
// entity id, SSO URL and certificate) and proves the domain through the admin API; a user of that domain chooses
// "Continue with SSO", goes to the IdP with an AuthnRequest, and the IdP's signed response posted to the ACS signs
// them in: a new member of the organization with its default role, the organization active. On two instances.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setsSession } from './oauth/harness.js';
import { samlSignIn, startSamlSignIn, startSamlWorld, type SamlWorld } from './peers/saml-world.js';

let w: SamlWorld;
beforeAll(async () => {
  w = await startSamlWorld();
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

async function whoAndWhere(client: SamlWorld['admin']) {
  const session = (await (await client.get('/auth/session')).json()) as { user?: { email?: string; name?: string } } | null;
  const orgs = (await (await client.get('/auth/organizations')).json()) as { active: { id: string; role: string } | null };
  return { email: session?.user?.email, name: session?.user?.name, active: orgs.active };
}

describe('a SAML connection', () => {
  it('tells the admin what to register at the IdP', () => {
    expect(w.created).toMatchObject({
      kind: 'saml',
      spEntityId: `http://localhost:3000/auth/sso/saml/${w.connectionId}/metadata`,
      acsUrl: `http://localhost:3000/auth/sso/saml/${w.connectionId}/acs`,
      spMetadataUrl: `http://localhost:3000/auth/sso/saml/${w.connectionId}/metadata`,
    });
  });

  it('shows the ACS and metadata URLs on the built-in SSO page', async () => {
    const page = await (await w.admin.get('/auth/organizations/sso/page')).text();
    expect(page).toContain('Acme SAML');
    expect(page).toContain(`ACS URL http://localhost:3000/auth/sso/saml/${w.connectionId}/acs`);
    expect(page).not.toContain(`/auth/callback/sso-${w.connectionId}`);
  });

  it('serves the SP metadata with the ACS and signed assertions wanted', async () => {
    const res = await w.a.newClient().get(`/auth/sso/saml/${w.connectionId}/metadata`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('samlmetadata+xml');
    const xml = await res.text();
    expect(xml).toContain(`entityID="http://localhost:3000/auth/sso/saml/${w.connectionId}/metadata"`);
    expect(xml).toContain(`Location="http://localhost:3000/auth/sso/saml/${w.connectionId}/acs"`);
    expect(xml).toContain('WantAssertionsSigned="true"');
    expect((await w.a.newClient().get('/auth/sso/saml/no-such-connection/metadata')).status).toBe(404);
  });

  it('sends "Continue with SSO" to the IdP with an AuthnRequest for this SP, its flow cookie SameSite=None', async () => {
    const { start } = await startSamlSignIn(w, 'alice@acme.test');
    const request = w.idp.readRequest(start.location!);
    expect(request.issuer).toBe(`http://localhost:3000/auth/sso/saml/${w.connectionId}/metadata`);
    expect(request.acsUrl).toBe(`http://localhost:3000/auth/sso/saml/${w.connectionId}/acs`);
    expect(request.relayState).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const flowCookie = start.setCookie.find((c) => c.includes(`sso-${w.connectionId}=`));
    expect(flowCookie).toMatch(/SameSite=None/i);
    expect(flowCookie).toMatch(/Secure/i);
  });

  it('signs the user in from the IdP’s signed response: a new member of Acme, Acme active', async () => {
    const { client, acs } = await samlSignIn(w, 'alice@acme.test', 'alice');
    expect(acs.status, w.a.logger.errors.map((e) => e.message).join('; ')).toBe(302);
    expect(acs.location?.href).toBe('http://localhost:3000/dashboard');
    expect(setsSession(acs)).toBe(true);
    expect(await whoAndWhere(client)).toMatchObject({ email: 'alice@acme.test', name: 'Alice Acme', active: { id: w.orgId, role: 'member' } });
    expect(await w.adapter.getUserByAccount({ provider: `sso-${w.connectionId}`, providerAccountId: 'alice@acme.test' })).toMatchObject({ email: 'alice@acme.test' });
  });

  it('signs in on the second instance as on the first, and a second sign-in finds the same user', async () => {
    const { client, acs } = await samlSignIn(w, 'alice@acme.test', 'alice', {}, w.b);
    expect(setsSession(acs)).toBe(true);
    expect(await whoAndWhere(client)).toMatchObject({ email: 'alice@acme.test', active: { id: w.orgId } });
    expect((await w.adapter.listMembers(w.orgId)).filter((m) => m.role === 'member')).toHaveLength(1);
  });

  it('accepts a response signed as a whole as well as its assertion', async () => {
    const { client, acs } = await samlSignIn(w, 'bob@acme.test', 'bob', { signResponse: true });
    expect(setsSession(acs)).toBe(true);
    expect(await whoAndWhere(client)).toMatchObject({ email: 'bob@acme.test', active: { id: w.orgId } });
  });
});
