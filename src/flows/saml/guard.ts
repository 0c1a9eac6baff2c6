// The look at a SAML response before any signature is checked: the shapes that signature wrapping, comment
// truncation and entity expansion need are refused outright, whatever the SAML library would make of them.
// - no DTD, no entity declaration (billion laughs, external entities);
// - the root is a samlp:Response with exactly one saml:Assertion in the whole document, and that one its child
//   (a second assertion anywhere, even inside a signature, is how wrapping attacks hide the one that gets read);
// - no EncryptedAssertion (not supported: refused rather than half-checked);
// - a NameID, Issuer or Audience is one plain text node (a comment splits it, and a parser that reads the first
//   part signs someone else in: `admin@acme.test<!---->.evil.test`);
// - the assertion has Conditions with NotOnOrAfter (the library crashes without them, and an assertion without an
//   end of validity is refused anyway).
import { declaresDtd, parseStrictXml } from '../../sso/strict-xml.js';
import { refuse } from './refusal.js';

export const PROTOCOL_NS = 'urn:oasis:names:tc:SAML:2.0:protocol';
export const ASSERTION_NS = 'urn:oasis:names:tc:SAML:2.0:assertion';

/** The largest SAML response taken, decoded (real ones are a few kilobytes; a big one is an attack on the parser). */
export const MAX_RESPONSE_BYTES = 256 * 1024;

const ELEMENT = 1;
const TEXT = 3;

/** What the guard read from the response, for the checks after the signature (never trusted before it). */
export interface GuardedResponse {
  /** The Response's `Destination`, when it has one. */
  destination: string | null;
  /** The Response's own `Issuer`, when it has one. */
  issuer: string | null;
  /** The Response's `InResponseTo`, when it has one. */
  inResponseTo: string | null;
}

export { declaresDtd };

/** Parses XML strictly: any warning or error of the parser is a refusal. */
export function parseXml(xml: string): Document {
  return parseStrictXml(xml, (problem) => {
    throw refuse('malformed', 'The response is not well-formed XML.', { actual: problem });
  });
}

function elements(doc: Document, ns: string, name: string): Element[] {
  return Array.from(doc.getElementsByTagNameNS(ns, name) as unknown as ArrayLike<Element>);
}

/** The text of an element that must be one plain text node (or empty), else a refusal. */
function plainText(el: Element): string {
  const nodes = Array.from(el.childNodes as unknown as ArrayLike<Node>);
  if (nodes.length > 1 || nodes.some((n) => n.nodeType !== TEXT)) {
    throw refuse('splitText', `<${el.localName}> holds more than one text node (a comment, CDATA or an element).`, { actual: nodes.map((n) => n.nodeType).join(',') });
  }
  return nodes[0]?.nodeValue ?? '';
}

/**
 * Checks the decoded response `xml` before any signature is looked at; throws SamlResponseRefused.
 *
 * @example
 * const { destination } = guardResponse(xml)
 */
export function guardResponse(xml: string): GuardedResponse {
  if (Buffer.byteLength(xml, 'utf8') > MAX_RESPONSE_BYTES) throw refuse('malformed', 'The response is too large.', { expected: `<= ${MAX_RESPONSE_BYTES} bytes` });
  // Before parsing: a DTD must never reach a parser, even one that would not expand it.
  if (declaresDtd(xml)) throw refuse('dtd', 'The response declares a DTD or entities.');
  const doc = parseXml(xml);
  const root = doc.documentElement;
  if (!root || root.namespaceURI !== PROTOCOL_NS || root.localName !== 'Response') {
    throw refuse('malformed', 'The document is not a samlp:Response.', { actual: root ? `${root.namespaceURI}:${root.localName}` : null });
  }
  if (doc.getElementsByTagNameNS(ASSERTION_NS, 'EncryptedAssertion').length > 0) throw refuse('assertions', 'Encrypted assertions are not supported.');
  const assertions = elements(doc, ASSERTION_NS, 'Assertion');
  if (assertions.length !== 1) throw refuse('assertions', 'The response must hold exactly one assertion.', { expected: 1, actual: assertions.length });
  const assertion = assertions[0]!;
  if (assertion.parentNode !== root) throw refuse('assertions', 'The assertion is not a child of the Response.');
  for (const name of ['NameID', 'Issuer', 'Audience']) for (const el of elements(doc, ASSERTION_NS, name)) plainText(el);
  const conditions = Array.from(assertion.childNodes as unknown as ArrayLike<Element>).filter((n) => n.nodeType === ELEMENT && n.namespaceURI === ASSERTION_NS && n.localName === 'Conditions');
  if (conditions.length !== 1 || !conditions[0]!.getAttribute('NotOnOrAfter')) {
    throw refuse('conditions', 'The assertion has no Conditions with NotOnOrAfter.', { expected: 'one Conditions with NotOnOrAfter', actual: conditions.length });
  }
  const issuerEl = Array.from(root.childNodes as unknown as ArrayLike<Element>).find((n) => n.nodeType === ELEMENT && n.namespaceURI === ASSERTION_NS && n.localName === 'Issuer');
  return { destination: root.getAttribute('Destination') || null, issuer: issuerEl ? plainText(issuerEl).trim() : null, inResponseTo: root.getAttribute('InResponseTo') || null };
}
