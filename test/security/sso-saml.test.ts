// Attacks on SAML sign-in (issue 49), each refused at the ACS with a typed error (SamlResponseRefused, or
// SsoAddressRefused for an address outside the verified domains): a redirect to the sign-in page that names it, never
// a 5xx, never a session, never a user made. Against the test IdP (real signatures, xml-crypto) on two app instances
// that share the database and a real Redis flow store:
// - signatures: none, only on the response, by another key; a wrapped or second assertion (XSW);
// - parser tricks: a comment in the NameID, a DTD with entities, garbage and non-base64 bodies;
// - the wrong audience, destination, recipient or issuer; an expired assertion; no Conditions;
// - the same assertion twice, also on the other instance; a response to another browser's request; an unsolicited
//   (IdP-initiated) response; a RelayState not this flow's;
// - an address of a domain claimed but not verified; a real assertion posted to another organization's connection.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisFlowStore } from '../../src/core/flow-store/store.js';
import type { TestAuth } from '../support/auth-app.js';
import type { ClientResponse, Navigation } from '../support/client.js';
import { useSharedStores } from '../support/shared-stores.js';
import { setsSession } from '../e2e/oauth/harness.js';
import { makeKeyPair, type KeyPair, type ResponseOptions } from '../e2e/peers/saml-idp.js';
import { samlSignIn, startSamlSignIn, startSamlWorld, type SamlWorld } from '../e2e/peers/saml-world.js';

const stores = useSharedStores();
let w: SamlWorld;
let stranger: KeyPair;
beforeAll(async () => {
  const flowStore = redisFlowStore(await stores.redis(), { prefix: `${stores.redisPrefix}saml:` });
  [w, stranger] = await Promise.all([startSamlWorld({ flowStore }), makeKeyPair('not-the-idp')]);
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

/** The error the ACS answer names, and the check the server logged as failed. */
function refusal(acs: ClientResponse, t: TestAuth = w.a) {
  const last = t.logger.errors.at(-1) as (Error & { type?: string; cause?: { reason?: string; state?: string } }) | undefined;
  return { status: acs.status, error: acs.location?.searchParams.get('error') ?? null, logged: last?.type, reason: last?.cause?.reason, state: last?.cause?.state };
}

function expectRefused(acs: ClientResponse, reason: string | undefined, type = 'SamlResponseRefused', t: TestAuth = w.a) {
  const r = refusal(acs, t);
  expect(r.status).toBeLessThan(500);
  expect(setsSession(acs)).toBe(false);
  expect(r.error).toBe(type);
  expect(r.logged).toBe(type);
  if (reason) expect(r.reason).toBe(reason);
  return r;
}

/** POSTs `form` to the ACS as the browser `client` would (its cookies), on instance `t`. */
async function postAcs(t: TestAuth, cookie: string, form: Record<string, string>): Promise<ClientResponse> {
  const client = t.newClient();
  return client.post(`/auth/sso/saml/${w.connectionId}/acs`, form, { headers: { cookie } });
}

const b64 = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

/** A sign-in whose response is bent by `options`: the answer of the ACS. */
async function attack(options: ResponseOptions, email = 'alice@acme.test', account = 'alice') {
  return (await samlSignIn(w, email, account, options)).acs;
}

describe('signatures', () => {
  it('refuses an unsigned assertion', async () => {
    expectRefused(await attack({ signAssertion: false }), 'rejected');
  });

  it('refuses a signed response whose assertion is unsigned', async () => {
    expectRefused(await attack({ signAssertion: false, signResponse: true }), 'rejected');
  });

  it('refuses a response whose assertion alone is signed when the connection wants signed responses', async () => {
    const csrf = await w.a.csrfToken(w.admin);
    expect((await w.admin.post(`/auth/organizations/sso/connections/${w.connectionId}`, { csrfToken: csrf, wantResponseSigned: 'true' })).status).toBe(200);
    try {
      expectRefused(await attack({}), 'rejected');
      expect(setsSession(await attack({ signResponse: true }, 'bob@acme.test', 'bob'))).toBe(true);
    } finally {
      expect((await w.admin.post(`/auth/organizations/sso/connections/${w.connectionId}`, { csrfToken: csrf, wantResponseSigned: 'false' })).status).toBe(200);
    }
  });

  it('refuses an assertion signed by another key', async () => {
    expectRefused(await attack({ keyPair: stranger }), 'rejected');
  });

  it('refuses a second, unsigned assertion beside the signed one (signature wrapping)', async () => {
    const forged = '<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_evil" Version="2.0" IssueInstant="2020-01-01T00:00:00Z"><saml:Issuer>x</saml:Issuer></saml:Assertion>';
    expectRefused(await attack({ transform: (xml) => xml.replace('</samlp:Response>', `${forged}</samlp:Response>`) }), 'assertions');
  });

  it('refuses the signed assertion moved into an extension and a forged one in its place (signature wrapping)', async () => {
    const acs = await attack({
      transform: (xml) => {
        const signed = xml.slice(xml.indexOf('<saml:Assertion'), xml.indexOf('</saml:Assertion>') + '</saml:Assertion>'.length);
        const forged = signed.replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, '').replace(/alice@acme\.test/g, 'admin@acme.test');
        return xml.replace(signed, `<samlp:Extensions>${signed}</samlp:Extensions>${forged}`);
      },
    });
    expectRefused(acs, 'assertions');
    expect(await w.adapter.getUserByEmail('admin@acme.test')).toMatchObject({ email: 'admin@acme.test' }); // the admin, untouched
  });
});

describe('parser tricks', () => {
  it('refuses a comment inside the NameID (truncation attack)', async () => {
    expectRefused(await attack({ nameIdXml: 'alice@acme.test<!---->.evil.test' }), 'splitText');
    expect(await w.adapter.getUserByAccount({ provider: `sso-${w.connectionId}`, providerAccountId: 'alice@acme.test' })).toBeNull();
  });

  it('refuses a DTD with entities, before any parser sees it', async () => {
    const acs = await attack({ transform: (xml) => `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>${xml}` });
    expectRefused(acs, 'dtd');
  });

  it.each([
    ['non-base64', '%%% not base64 %%%'],
    ['base64 of no XML', b64('hello, ACS')],
    ['base64 of another document', b64('<html><body>hi</body></html>')],
    ['nothing at all', undefined],
  ])('refuses %s as malformed', async (_name, samlResponse) => {
    const { client, start } = await startSamlSignIn(w, 'alice@acme.test');
    const relayState = new URL(start.location!).searchParams.get('RelayState')!;
    const acs = await client.post(`/auth/sso/saml/${w.connectionId}/acs`, { ...(samlResponse === undefined ? {} : { SAMLResponse: samlResponse }), RelayState: relayState });
    expectRefused(acs, 'malformed');
  });
});

describe('a response meant for someone else', () => {
  it('refuses another audience', async () => {
    expectRefused(await attack({ audience: 'https://other-sp.example/metadata' }), 'rejected');
  });

  it('refuses another Destination', async () => {
    expectRefused(await attack({ destination: 'https://other-sp.example/acs' }), 'destination');
  });

  it('refuses another Recipient', async () => {
    expectRefused(await attack({ recipient: 'https://other-sp.example/acs' }), 'destination');
  });

  it('refuses another issuer, even signed with the IdP’s key', async () => {
    expectRefused(await attack({ issuer: 'https://evil-idp.example/' }), 'issuer');
  });

  it('refuses an address outside the connection’s verified domains (SsoAddressRefused), making no user', async () => {
    expectRefused(await attack({}, 'alice@acme.test', 'mallory'), undefined, 'SsoAddressRefused');
    expect(await w.adapter.getUserByEmail('mallory@elsewhere.test')).toBeNull();
  });
});

describe('time', () => {
  it('refuses an expired assertion', async () => {
    expectRefused(await attack({ notOnOrAfter: new Date(Date.now() - 10 * 60_000) }), 'rejected');
  });

  it('refuses an assertion without Conditions (typed, never the library’s TypeError)', async () => {
    expectRefused(await attack({ noConditions: true }), 'conditions');
  });
});

describe('one use, one browser, one request', () => {
  /** A started sign-in up to the IdP's POST: the navigation and the browser's cookies for the ACS. */
  async function captured(email = 'alice@acme.test') {
    const { client, start } = await startSamlSignIn(w, email);
    const nav = await w.idp.login(start.location!.href, 'alice');
    return { client, start, nav, cookie: client.cookies.header(nav.url) };
  }

  it('refuses the same assertion a second time, with the same flow cookie, on the same instance', async () => {
    const { client, nav, cookie } = await captured();
    expect(setsSession(await client.submit(nav))).toBe(true);
    expect(expectRefused(await postAcs(w.a, cookie, nav.form!), undefined).state).toBe('failed.replayed');
  });

  it('refuses the same assertion replayed on the other instance (shared Redis flow store)', async () => {
    const { client, nav, cookie } = await captured();
    expect(setsSession(await client.submit(nav))).toBe(true);
    expect(expectRefused(await postAcs(w.b, cookie, nav.form!), undefined, 'SamlResponseRefused', w.b).state).toBe('failed.replayed');
  });

  it('refuses a response to another browser’s request (InResponseTo)', async () => {
    const mine = await startSamlSignIn(w, 'alice@acme.test');
    const theirs = await startSamlSignIn(w, 'bob@acme.test');
    const myRequest = w.idp.readRequest(mine.start.location!);
    const theirRequest = w.idp.readRequest(theirs.start.location!);
    // The IdP's answer to their request, posted in my browser with my RelayState.
    const xml = w.idp.responseXml(myRequest, 'alice', { inResponseTo: theirRequest.id });
    const acs = await mine.client.post(`/auth/sso/saml/${w.connectionId}/acs`, { SAMLResponse: b64(xml), RelayState: myRequest.relayState! });
    expectRefused(acs, 'rejected');
  });

  it('refuses an unsolicited (IdP-initiated) response: no flow of this browser waits for it', async () => {
    const { acsUrl, issuer } = { acsUrl: `http://localhost:3000/auth/sso/saml/${w.connectionId}/acs`, issuer: `http://localhost:3000/auth/sso/saml/${w.connectionId}/metadata` };
    const xml = w.idp.responseXml({ id: '_none', acsUrl, issuer, relayState: null }, 'alice', { inResponseTo: null });
    const acs = await w.a.newClient().post(`/auth/sso/saml/${w.connectionId}/acs`, { SAMLResponse: b64(xml) });
    expect(expectRefused(acs, undefined).state).toBe('failed.unsolicited');
  });

  it('refuses a response without InResponseTo even in a browser that started a sign-in', async () => {
    expectRefused(await attack({ inResponseTo: null }), 'rejected');
  });

  it('refuses a RelayState that is not this flow’s', async () => {
    const { client, nav } = await captured();
    const acs = await client.submit({ ...nav, form: { ...nav.form!, RelayState: 'someone-elses' } } as Navigation);
    expect(expectRefused(acs, undefined).state).toBe('failed.refused');
  });

  it('answers 404 at the ACS of a connection that does not exist', async () => {
    const res = await w.a.newClient().post(`/auth/sso/saml/${randomUUID()}/acs`, { SAMLResponse: b64('<x/>') }, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'SsoNotFound' });
  });
});

describe('domains and tenants', () => {
  it('refuses an address of a domain the organization claimed but never verified, making no user', async () => {
    const claim = await w.admin.post('/auth/organizations/sso/domains', { csrfToken: await w.a.csrfToken(w.admin), domain: 'acme-labs.test' });
    expect(claim.status).toBeLessThan(300);
    // The IdP vouches for an address of the claimed, unverified domain (a signed assertion, the right IdP).
    expectRefused(await attack({ email: 'eve@acme-labs.test' }), undefined, 'SsoAddressRefused');
    expect(await w.adapter.getUserByEmail('eve@acme-labs.test')).toBeNull();
  });

  it("refuses Acme's assertion posted to another organization's connection (IDOR by connection id)", async () => {
    // Another tenant with its own SAML connection (its own IdP certificate).
    const other = w.a.newClient();
    const post = async (path: string, body: Record<string, string>) => other.post(`/auth${path}`, { csrfToken: await w.a.csrfToken(other), ...body });
    expect((await post('/callback/credentials', { email: 'admin@globex.test' })).status).toBe(302);
    expect((await post('/organizations', { name: 'Globex' })).status).toBe(201);
    const made = await post('/organizations/sso/connections', { kind: 'saml', name: 'Globex SAML', idpEntityId: 'https://idp.globex.test/', idpSsoUrl: 'https://idp.globex.test/sso', idpCertificates: stranger.cert });
    expect(made.status).toBe(201);
    const globex = String(((await made.json()) as { id: string }).id);
    // A real, signed sign-in of Acme's, its response sent to Globex's ACS in the same browser.
    const { client, start } = await startSamlSignIn(w, 'alice@acme.test');
    const nav = await w.idp.login(start.location!.href, 'alice');
    const acs = await client.post(`/auth/sso/saml/${globex}/acs`, nav.form!);
    expect(acs.status).toBeLessThan(500);
    expect(setsSession(acs)).toBe(false);
    expect(acs.location?.searchParams.get('error')).toBeTruthy();
  });
});
