// Checking a SAML response posted to the ACS, in three passes: the guard (guard.ts) before any signature is read; the
// SAML library (signature by one of the connection's certificates on the assertion, audience, NotBefore/NotOnOrAfter
// with bounded skew, InResponseTo of this browser's request); then what the library does not check, read from the
// assertion it verified: the issuer is the connection's IdP, the Destination and Recipient are this ACS.
import { SAML, SamlStatusError, type Profile } from '@node-saml/node-saml';
import { OAuthCallbackError } from '../../core/errors.js';
import { samlEndpoints } from '../../sso/saml-endpoints.js';
import type { SamlConnection } from '../../sso/saml-provider.js';
import { ASSERTION_NS, guardResponse, MAX_RESPONSE_BYTES, parseXml } from './guard.js';
import { idpCertificates, onlyRequest, samlConfigOf } from './options.js';
import { refuse } from './refusal.js';

/** An assertion that passed every check: what the flow needs of it. */
export interface SamlAssertion {
  /** The assertion's ID (one use only: replay.ts). */
  id: string;
  issuer: string;
  nameId: string;
  nameIdFormat: string | null;
  /** The address the IdP asserts: an e-mail attribute, else an e-mail-format NameID; null without one. */
  email: string | null;
  name: string | null;
  /** The latest moment the assertion could be accepted (ms): Conditions' and the bearer confirmation's NotOnOrAfter. */
  notOnOrAfter: number;
}

const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const EMAIL_ATTRIBUTES = ['email', 'mail', 'urn:oid:0.9.2342.19200300.100.1.3', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', 'emailAddress'];
const NAME_ATTRIBUTES = ['displayName', 'name', 'urn:oid:2.16.840.1.113730.3.1.241', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name'];

/** The posted `SAMLResponse`, decoded: strict base64 of at most {@link MAX_RESPONSE_BYTES}, else a refusal. */
export function decodeResponse(posted: unknown): string {
  if (typeof posted !== 'string' || posted === '') throw refuse('malformed', 'No SAMLResponse was posted.');
  const compact = posted.replace(/[\r\n\t ]+/g, '');
  if (compact.length > Math.ceil(MAX_RESPONSE_BYTES / 3) * 4 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact) || compact.length % 4 !== 0) {
    throw refuse('malformed', 'The SAMLResponse is not base64 of a response of reasonable size.');
  }
  return Buffer.from(compact, 'base64').toString('utf8');
}

const first = (v: unknown): string | null => {
  const one = Array.isArray(v) ? v[0] : v;
  return typeof one === 'string' && one.trim() !== '' ? one.trim() : null;
};

function child(el: Element, name: string): Element | undefined {
  return Array.from(el.childNodes as unknown as ArrayLike<Element>).find((n) => n.nodeType === 1 && n.namespaceURI === ASSERTION_NS && n.localName === name);
}

function time(value: string | null): number {
  const t = value ? Date.parse(value) : Number.NaN;
  return Number.isFinite(t) ? t : Number.NaN;
}

/**
 * Checks a posted SAML response against the connection and the request this browser's flow sent; the assertion,
 * or SamlResponseRefused with the failed check's reason.
 *
 * @example
 * const assertion = await validateSamlResponse(connection, authUrl, { samlResponse, requestId })
 */
export async function validateSamlResponse(connection: SamlConnection, authUrl: string, posted: { samlResponse: unknown; requestId: string | undefined }): Promise<SamlAssertion> {
  // The connection lost its certificates since the request left: nothing could verify the answer (the server's
  // problem, not the response's).
  if (idpCertificates(connection).length === 0) throw new OAuthCallbackError('This SAML connection has no IdP signing certificate.', { actual: connection.id });
  // No request of ours: IdP-initiated, which only a connection that allows it reaches (the machine decides).
  const idpInitiated = posted.requestId === undefined;
  if (idpInitiated && connection.allowIdpInitiated !== true) throw refuse('rejected', 'This connection takes no IdP-initiated sign-in.');
  const xml = decodeResponse(posted.samlResponse);
  const guarded = guardResponse(xml);
  if (idpInitiated && guarded.inResponseTo !== null) throw refuse('rejected', 'An IdP-initiated response answers no request: it must carry no InResponseTo.', { actual: guarded.inResponseTo.slice(0, 100) });
  const endpoints = samlEndpoints(authUrl, connection.id);
  const saml = new SAML(samlConfigOf(connection, endpoints, onlyRequest(posted.requestId), undefined, undefined, idpInitiated));
  let profile: Profile | null;
  try {
    // The library reads the response again from what the guard saw (re-encoded, so no other bytes reach it).
    ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: Buffer.from(xml, 'utf8').toString('base64') }));
  } catch (err) {
    if (err instanceof SamlStatusError) throw refuse('status', 'The identity provider answered with an error status.', { err, actual: err.message.slice(0, 200) });
    // The library's errors carry no codes: all are one refusal, the message kept as evidence for the log.
    throw refuse('rejected', 'The response failed the signature, audience, time or request checks.', { err: err instanceof Error ? err : new Error(String(err)) });
  }
  if (!profile || typeof profile.getAssertionXml !== 'function') throw refuse('assertions', 'The response carries no assertion.');
  // What the signature covers: read again from the verified assertion, never from the response around it.
  const assertion = parseXml(profile.getAssertionXml()).documentElement;
  if (!assertion || assertion.namespaceURI !== ASSERTION_NS || assertion.localName !== 'Assertion') throw refuse('assertions', 'The verified element is not an assertion.');
  const issuerEl = child(assertion, 'Issuer');
  const issuer = issuerEl?.textContent?.trim() ?? '';
  if (issuer !== connection.idpEntityId) throw refuse('issuer', 'The assertion was issued by another identity provider.', { expected: connection.idpEntityId, actual: issuer.slice(0, 200) });
  if (guarded.issuer !== null && guarded.issuer !== connection.idpEntityId) throw refuse('issuer', 'The response names another issuer.', { expected: connection.idpEntityId, actual: guarded.issuer.slice(0, 200) });
  if (guarded.destination !== null && guarded.destination !== endpoints.acsUrl) {
    throw refuse('destination', 'The response was sent to another address.', { expected: endpoints.acsUrl, actual: guarded.destination.slice(0, 300) });
  }
  const subject = child(assertion, 'Subject');
  const confirmation = subject && Array.from(subject.childNodes as unknown as ArrayLike<Element>).find((n) => n.nodeType === 1 && n.localName === 'SubjectConfirmation' && n.getAttribute('Method') === BEARER);
  const data = confirmation && child(confirmation, 'SubjectConfirmationData');
  if (!data || !data.getAttribute('NotOnOrAfter')) throw refuse('conditions', 'The assertion has no bearer confirmation with NotOnOrAfter.');
  if (idpInitiated && data.getAttribute('InResponseTo')) throw refuse('rejected', 'An IdP-initiated assertion answers no request: it must carry no InResponseTo.');
  const recipient = data.getAttribute('Recipient');
  if (recipient !== endpoints.acsUrl) throw refuse('destination', 'The assertion is meant for another recipient.', { expected: endpoints.acsUrl, actual: recipient?.slice(0, 300) ?? null });
  const conditions = child(assertion, 'Conditions');
  const ends = [time(conditions?.getAttribute('NotOnOrAfter') ?? null), time(data.getAttribute('NotOnOrAfter'))];
  if (ends.some(Number.isNaN)) throw refuse('conditions', 'NotOnOrAfter is not a time.');
  const id = assertion.getAttribute('ID') ?? '';
  if (id === '' || id.length > 256) throw refuse('malformed', 'The assertion has no usable ID.');
  const nameId = typeof profile.nameID === 'string' ? profile.nameID.trim() : '';
  if (nameId === '' || nameId.length > 255) throw refuse('subject', 'The assertion names no subject.');
  const nameIdFormat = typeof profile.nameIDFormat === 'string' ? profile.nameIDFormat : null;
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  const email = EMAIL_ATTRIBUTES.map((a) => first(attributes[a])).find((v) => v !== null) ?? (nameIdFormat === EMAIL_FORMAT || nameId.includes('@') ? nameId : null);
  const name = NAME_ATTRIBUTES.map((a) => first(attributes[a])).find((v) => v !== null) ?? null;
  return { id, issuer, nameId, nameIdFormat, email: email ? email.toLowerCase() : null, name, notOnOrAfter: Math.max(...ends) };
}
