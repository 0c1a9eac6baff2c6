// Signed AuthnRequests (issue 49): every SAML connection gets its own SP signing key when it is made (the private key
// sealed under the auth secret, the certificate in the SP metadata); a connection whose IdP wants signed requests
// (`signAuthnRequests`, or WantAuthnRequestsSigned in the IdP's metadata) signs its HTTP-Redirect AuthnRequest with it,
// RSA-SHA256. The test IdP, told to want signed requests, checks the signature with the certificate from the SP
// metadata and refuses an unsigned or altered request, as a real IdP does.
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setsSession } from './oauth/harness.js';
import { startSamlSignIn, startSamlWorld, type SamlWorld } from './peers/saml-world.js';

let w: SamlWorld;
beforeAll(async () => {
  w = await startSamlWorld();
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const post = (path: string, body: Record<string, string>) => w.adminPost(path, body);
const spMetadata = async () => (await w.a.newClient().get(`/auth/sso/saml/${w.connectionId}/metadata`)).text();
const bare = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');

describe('signed AuthnRequests', () => {
  it('gives each SAML connection a signing certificate, shown with it and in the SP metadata, never its key', async () => {
    const cert = String(w.created.spSigningCert);
    expect(new X509Certificate(cert).verify(new X509Certificate(cert).publicKey)).toBe(true);
    expect(w.created).not.toHaveProperty('spSigningKey');
    const xml = await spMetadata();
    expect(xml.replace(/\s+/g, '')).toContain(bare(cert));
    expect(xml).toContain('AuthnRequestsSigned="false"');
    w.idp.spCertificate = cert;
  });

  it('is refused by an IdP that wants signed requests while the connection does not sign', async () => {
    w.idp.wantAuthnRequestsSigned = true;
    const { start } = await startSamlSignIn(w, 'alice@acme.test');
    expect(w.idp.requestSignature(start.location!)).toBe('unsigned');
    await expect(w.idp.login(start.location!.href, 'alice')).rejects.toThrow(/AuthnRequest refused: unsigned/);
  });

  it('signs the request once the connection says so, and the IdP takes it', async () => {
    expect((await post(`/organizations/sso/connections/${w.connectionId}`, { signAuthnRequests: 'true' })).status).toBe(200);
    expect(await spMetadata()).toContain('AuthnRequestsSigned="true"');
    const { client, start } = await startSamlSignIn(w, 'alice@acme.test');
    expect(start.location!.searchParams.get('SigAlg')).toBe('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    expect(w.idp.requestSignature(start.location!)).toBe('signed');
    const acs = await client.submit(await w.idp.login(start.location!.href, 'alice'));
    expect(setsSession(acs), w.a.logger.errors.map((e) => e.message).join('; ')).toBe(true);
  });

  it('is refused by the IdP when the signed request was altered on the way', async () => {
    const { start } = await startSamlSignIn(w, 'alice@acme.test');
    const altered = new URL(start.location!);
    altered.searchParams.set('RelayState', 'someone-else');
    expect(w.idp.requestSignature(altered)).toBe('bad');
    await expect(w.idp.login(altered.href, 'alice')).rejects.toThrow(/AuthnRequest refused/);
  });

  it('signs for a connection made from metadata with WantAuthnRequestsSigned', async () => {
    const res = await post('/organizations/sso/connections', { kind: 'saml', name: 'Wants signed', idpMetadata: w.idp.metadataXml() });
    expect(await res.json()).toMatchObject({ signAuthnRequests: true });
  });
});
