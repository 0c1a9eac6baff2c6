// XML read strictly, for SAML (an IdP's responses and its metadata): a document that declares a DTD or entities never
// reaches the parser, and any warning or error of the parser is a refusal, in the caller's own terms.
import { DOMParser } from '@xmldom/xmldom';

/** True when `xml` declares a DTD or entities: such a document must never reach a parser, even one that would not expand it. */
export function declaresDtd(xml: string): boolean {
  return /<!DOCTYPE|<!ENTITY/i.test(xml);
}

/**
 * Parses `xml`, calling `refuse` (which throws) on any warning or error of the parser.
 *
 * @example
 * const doc = parseStrictXml(xml, (problem) => { throw new InvalidRequest(`Not well-formed XML: ${problem}`) })
 */
export function parseStrictXml(xml: string, refuse: (problem: string) => never): Document {
  const fail = (msg: string) => refuse(String(msg).slice(0, 200));
  return new DOMParser({ errorHandler: { warning: fail, error: fail, fatalError: fail } }).parseFromString(xml, 'text/xml') as unknown as Document;
}
