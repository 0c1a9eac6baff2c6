// A small SAML 2.0 identity provider for the tests, on 127.0.0.1: it reads an AuthnRequest sent by the HTTP-Redirect
// binding, "logs in" one of its accounts, and answers the ACS with the HTTP-POST binding (an auto-submitting form),
// signing the assertion (and, on request, the response) with xml-crypto and a key pair made at start. Every part of
// the response can be bent, for the attack tests: the audience, the destination, the issuer, the times, the key, or
// the XML itself after signing. A browser that comes without a scripted login sees a small login page: pick an account,
// "Sign in", and the signed response is posted to the ACS by an auto-submitting form, as a real IdP does.
import { randomBytes, verify as cryptoVerify, X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { inflateRawSync } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';
import { generate } from 'selfsigned';
import { SignedXml } from 'xml-crypto';
import type { Navigation } from '../../support/client.js';
import { readForms } from './html-form.js';
import { freePort } from './net.js';

export interface KeyPair {
  key: string;
  cert: string;
}

/** A throwaway RSA key and its self-signed certificate. */
export async function makeKeyPair(name = 'saml-test-idp'): Promise<KeyPair> {
  const pems = await generate([{ name: 'commonName', value: name }], { keySize: 2048, algorithm: 'sha256' });
  return { key: pems.private, cert: pems.cert };
}

/** What the IdP read from an AuthnRequest. */
export interface AuthnRequestSeen {
  id: string;
  acsUrl: string;
  issuer: string;
  relayState: string | null;
}

/** Ways to bend one response (all optional: by default a correct, assertion-signed response). */
export interface ResponseOptions {
  /** The NameID element's inner XML (raw: a comment may be put in it). Default: the account's address. */
  nameIdXml?: string;
  email?: string;
  audience?: string;
  destination?: string | null;
  recipient?: string;
  issuer?: string;
  /** The Response's InResponseTo and the confirmation's; null leaves both out (IdP-initiated). */
  inResponseTo?: string | null;
  notOnOrAfter?: Date;
  /** Leave the Conditions element out. */
  noConditions?: boolean;
  signAssertion?: boolean;
  signResponse?: boolean;
  /** Sign with this key instead of the IdP's own. */
  keyPair?: KeyPair;
  assertionId?: string;
  /** Applied to the signed XML: a wrapper, a DTD, a second assertion. */
  transform?: (xml: string) => string;
}

export interface SamlIdpHarness {
  entityId: string;
  ssoUrl: string;
  keys: KeyPair;
  accounts: Record<string, { email: string; name: string }>;
  /** Reads an AuthnRequest from the redirect URL to this IdP. */
  readRequest(url: string | URL): AuthnRequestSeen;
  /** The signed response XML for a request (or for `acsUrl` with no request, IdP-initiated). */
  responseXml(request: AuthnRequestSeen, accountId: string, options?: ResponseOptions): string;
  /** The IdP's metadata XML (entity id, HTTP-Redirect SSO URL, signing certificate, WantAuthnRequestsSigned). */
  metadataXml(): string;
  /** Where the IdP serves its metadata. */
  metadataUrl: string;
  /** Whether it wants signed AuthnRequests (in its metadata, and refusing unsigned ones). */
  wantAuthnRequestsSigned: boolean;
  /** The SP's signing certificate (PEM) the IdP checks signed AuthnRequests with, as its admin imported it. */
  spCertificate?: string;
  /** Checks the HTTP-Redirect signature of the request in `url` against spCertificate: 'signed', 'unsigned' or 'bad'. */
  requestSignature(url: string | URL): 'signed' | 'unsigned' | 'bad';
  /** What the browser does after logging in at the IdP: the auto-submitted POST to the ACS. */
  login(url: string | URL, accountId: string, options?: ResponseOptions): Promise<Navigation>;
  stop(): Promise<void>;
}

const SIG_ALG = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const DIGEST = 'http://www.w3.org/2001/04/xmlenc#sha256';
const C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Signs the element with `ID="<id>"` in `xml`, the signature placed right after its Issuer. */
export function signElement(xml: string, id: string, keys: KeyPair): string {
  const sig = new SignedXml({ privateKey: keys.key, publicCert: keys.cert, signatureAlgorithm: SIG_ALG, canonicalizationAlgorithm: C14N });
  sig.addReference({ xpath: `//*[@ID='${id}']`, transforms: [ENVELOPED, C14N], digestAlgorithm: DIGEST });
  sig.computeSignature(xml, { location: { reference: `//*[@ID='${id}']/*[local-name(.)='Issuer']`, action: 'after' } });
  return sig.getSignedXml();
}

/** `host`: the name in the IdP's URLs (`localhost` puts it on another site than an app on 127.0.0.1); it listens on 127.0.0.1. */
export async function startSamlIdp(accounts: SamlIdpHarness['accounts'], options: { host?: string } = {}): Promise<SamlIdpHarness> {
  const keys = await makeKeyPair();
  const port = await freePort();
  const base = `http://${options.host ?? '127.0.0.1'}:${port}`;
  const entityId = `${base}/idp`;
  let pending: { accountId: string; options: ResponseOptions } | undefined;

  const readRequest = (url: string | URL): AuthnRequestSeen => {
    const u = new URL(url);
    const raw = u.searchParams.get('SAMLRequest');
    if (!raw) throw new Error('no SAMLRequest');
    const xml = inflateRawSync(Buffer.from(raw, 'base64')).toString('utf8');
    const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement!;
    const issuer = root.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'Issuer')[0]?.textContent ?? '';
    return { id: root.getAttribute('ID')!, acsUrl: root.getAttribute('AssertionConsumerServiceURL')!, issuer, relayState: u.searchParams.get('RelayState') };
  };

  const responseXml = (request: AuthnRequestSeen, accountId: string, o: ResponseOptions = {}): string => {
    const account = accounts[accountId];
    if (!account) throw new Error(`no account ${accountId}`);
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const end = o.notOnOrAfter ?? new Date(now + 5 * 60_000);
    const responseId = `_r${randomBytes(12).toString('hex')}`;
    const assertionId = o.assertionId ?? `_a${randomBytes(12).toString('hex')}`;
    const irt = o.inResponseTo === undefined ? request.id : o.inResponseTo;
    const issuer = o.issuer ?? entityId;
    const destination = o.destination === undefined ? request.acsUrl : o.destination;
    const email = o.email ?? account.email;
    const conditions = o.noConditions
      ? ''
      : `<saml:Conditions NotBefore="${iso(now - 30_000)}" NotOnOrAfter="${end.toISOString()}"><saml:AudienceRestriction><saml:Audience>${esc(o.audience ?? request.issuer)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>`;
    const assertion =
      `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${assertionId}" Version="2.0" IssueInstant="${iso(now)}">` +
      `<saml:Issuer>${esc(issuer)}</saml:Issuer>` +
      `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${o.nameIdXml ?? esc(account.email)}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${irt ? ` InResponseTo="${esc(irt)}"` : ''} NotOnOrAfter="${end.toISOString()}" Recipient="${esc(o.recipient ?? request.acsUrl)}"/></saml:SubjectConfirmation></saml:Subject>` +
      conditions +
      `<saml:AuthnStatement AuthnInstant="${iso(now)}" SessionIndex="_s${randomBytes(6).toString('hex')}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
      `<saml:AttributeStatement><saml:Attribute Name="email"><saml:AttributeValue>${esc(email)}</saml:AttributeValue></saml:Attribute><saml:Attribute Name="displayName"><saml:AttributeValue>${esc(account.name)}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>` +
      `</saml:Assertion>`;
    let xml =
      `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${responseId}" Version="2.0" IssueInstant="${iso(now)}"${destination ? ` Destination="${esc(destination)}"` : ''}${irt ? ` InResponseTo="${esc(irt)}"` : ''}>` +
      `<saml:Issuer>${esc(issuer)}</saml:Issuer>` +
      `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
      assertion +
      `</samlp:Response>`;
    const signer = o.keyPair ?? keys;
    if (o.signAssertion !== false) xml = signElement(xml, assertionId, signer);
    if (o.signResponse) xml = signElement(xml, responseId, signer);
    return o.transform ? o.transform(xml) : xml;
  };

  const metadataXml = () => {
    const cert = keys.cert.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
    return (
      `<?xml version="1.0"?><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${esc(entityId)}">` +
      `<md:IDPSSODescriptor WantAuthnRequestsSigned="${harness.wantAuthnRequestsSigned}" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">` +
      `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${cert}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
      `<md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>` +
      `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${esc(base)}/sso-post"/>` +
      `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${esc(base)}/sso"/>` +
      `</md:IDPSSODescriptor></md:EntityDescriptor>`
    );
  };

  const requestSignature = (url: string | URL): 'signed' | 'unsigned' | 'bad' => {
    // The signed octets are the query's own encoded parameters, in this order (SAML bindings 3.4.4.1).
    const raw = new Map(new URL(url).search.slice(1).split('&').map((p) => [p.split('=')[0]!, p.slice(p.indexOf('=') + 1)] as const));
    const signature = raw.get('Signature');
    const alg = raw.get('SigAlg');
    if (!signature || !alg) return 'unsigned';
    if (decodeURIComponent(alg) !== SIG_ALG || !harness.spCertificate) return 'bad';
    const octets = ['SAMLRequest', 'RelayState', 'SigAlg'].filter((n) => raw.has(n)).map((n) => `${n}=${raw.get(n)}`).join('&');
    const ok = cryptoVerify('RSA-SHA256', Buffer.from(octets), new X509Certificate(harness.spCertificate).publicKey, Buffer.from(decodeURIComponent(signature), 'base64'));
    return ok ? 'signed' : 'bad';
  };

  /** Refuses (throws) a request this IdP does not take: unsigned or badly signed when it wants signed requests. */
  const admit = (url: URL) => {
    const signature = requestSignature(url);
    if (harness.wantAuthnRequestsSigned && signature !== 'signed') throw new Error(`AuthnRequest refused: ${signature}`);
    if (signature === 'bad') throw new Error('AuthnRequest refused: bad signature');
  };

  /** The auto-submitting form that posts a signed response for `request` to its ACS, as an IdP answers a login. */
  const postBack = (request: AuthnRequestSeen, accountId: string, options: ResponseOptions): string => {
    const body = Buffer.from(responseXml(request, accountId, options), 'utf8').toString('base64');
    const relay = request.relayState === null ? '' : `<input type="hidden" name="RelayState" value="${esc(request.relayState)}">`;
    return `<!doctype html><html><head><title>Test IdP</title></head><body onload="document.forms[0].submit()"><form method="post" action="${esc(request.acsUrl)}"><input type="hidden" name="SAMLResponse" value="${body}">${relay}<noscript><button>Continue</button></noscript></form></body></html>`;
  };

  /** The login page a browser sees: pick an account, "Sign in"; the request travels on in hidden fields. */
  const loginPage = (url: URL): string => {
    readRequest(url);
    const options = Object.entries(accounts).map(([id, a]) => `<option value="${esc(id)}">${esc(a.name)} &lt;${esc(a.email)}&gt;</option>`).join('');
    const keep = ['SAMLRequest', 'RelayState', 'SigAlg', 'Signature'].map((n) => (url.searchParams.has(n) ? `<input type="hidden" name="${n}" value="${esc(url.searchParams.get(n)!)}">` : '')).join('');
    return `<!doctype html><html><head><meta charset="utf-8"><title>Test IdP — sign in</title><style>body{font:16px system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem}select,button{font:inherit;width:100%;padding:.5rem;margin:.5rem 0}</style></head><body><h1>Test IdP</h1><form method="post" action="/sso/login"><label for="account">Account</label><select id="account" name="account">${options}</select>${keep}<button type="submit">Sign in</button></form></body></html>`;
  };

  const readBody = (req: import('node:http').IncomingMessage) =>
    new Promise<URLSearchParams>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8')))).on('error', reject);
    });

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const send = (status: number, html: string) => res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    void (async () => {
      if (url.pathname === '/metadata' && req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(metadataXml());
      } else if (url.pathname === '/sso' && req.method === 'GET' && pending) {
        // The scripted login (login()): answer at once for the pending account.
        const { accountId, options } = pending;
        pending = undefined;
        admit(url);
        send(200, postBack(readRequest(url), accountId, options));
      } else if (url.pathname === '/sso' && req.method === 'GET') {
        admit(url);
        send(200, loginPage(url));
      } else if (url.pathname === '/sso/login' && req.method === 'POST') {
        const form = await readBody(req);
        const back = new URL('/sso', base);
        for (const n of ['SAMLRequest', 'RelayState', 'SigAlg', 'Signature']) if (form.has(n)) back.searchParams.set(n, form.get(n)!);
        send(200, postBack(readRequest(back), form.get('account') ?? '', {}));
      } else {
        res.writeHead(404).end('not found');
      }
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(400);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

  const harness: SamlIdpHarness = {
    entityId,
    ssoUrl: `${base}/sso`,
    metadataXml,
    metadataUrl: `${base}/metadata`,
    wantAuthnRequestsSigned: false,
    requestSignature,
    keys,
    accounts,
    readRequest,
    responseXml,
    async login(url, accountId, options = {}) {
      pending = { accountId, options };
      const res = await fetch(url, { redirect: 'manual' });
      const html = await res.text();
      if (res.status !== 200) throw new Error(`IdP answered ${res.status}: ${html}`);
      const [form] = readForms(html);
      if (!form) throw new Error(`IdP answered no form: ${html}`);
      return { url: form.action, method: 'POST', form: form.fields };
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return harness;
}
