// Importing the IdP's SAML metadata (issue 49): the admin gives the metadata XML, or its URL for the server to fetch,
// instead of the entity id, SSO URL and certificate; the connection takes them from the metadata (the HTTP-Redirect
// SSO service, the signing certificate), and a user of the domain routed to it signs in through the IdP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setsSession } from './oauth/harness.js';
import { samlSignIn, startSamlWorld, type SamlWorld } from './peers/saml-world.js';

let w: SamlWorld;
beforeAll(async () => {
  w = await startSamlWorld();
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const post = (path: string, body: Record<string, string>) => w.adminPost(path, body);
const bareCert = () => w.idp.keys.cert.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');

describe('IdP metadata', () => {
  it('fills the entity id, the HTTP-Redirect SSO URL and the certificate from the metadata XML', async () => {
    const res = await post('/organizations/sso/connections', { kind: 'saml', name: 'From XML', idpMetadata: w.idp.metadataXml() });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await res.json()).toMatchObject({ kind: 'saml', idpEntityId: w.idp.entityId, idpSsoUrl: w.idp.ssoUrl, idpCertificates: [bareCert()], signAuthnRequests: false });
  });

  it('fetches the metadata from its URL, keeps the URL, and signs in through the connection made from it', async () => {
    const res = await post('/organizations/sso/connections', { kind: 'saml', name: 'From URL', metadataUrl: w.idp.metadataUrl });
    expect(res.status, await res.clone().text()).toBe(201);
    const made = (await res.json()) as { id: string };
    expect(made).toMatchObject({ idpEntityId: w.idp.entityId, idpSsoUrl: w.idp.ssoUrl, idpCertificates: [bareCert()], metadataUrl: w.idp.metadataUrl });
    expect((await post('/organizations/sso/domains/route', { domain: 'acme.test', connectionId: made.id })).status).toBe(200);
    const { acs, client } = await samlSignIn(w, 'alice@acme.test', 'alice');
    expect(setsSession(acs), w.a.logger.errors.map((e) => e.message).join('; ')).toBe(true);
    expect(acs.location?.href).toBe('http://localhost:3000/dashboard');
    expect(((await (await client.get('/auth/session')).json()) as { user: { email: string } }).user.email).toBe('alice@acme.test');
  });

  it('updates a connection from new metadata, a setting given beside it winning', async () => {
    const res = await post(`/organizations/sso/connections/${w.connectionId}`, { idpMetadata: w.idp.metadataXml(), name: 'Renamed' });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ name: 'Renamed', idpCertificates: [bareCert()] });
  });

  it('refuses metadata without an IdP descriptor, with a typed error', async () => {
    const res = await post('/organizations/sso/connections', { kind: 'saml', name: 'Empty', idpMetadata: '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"/>' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'InvalidRequest' });
  });
});
