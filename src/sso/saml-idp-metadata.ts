// An IdP's SAML metadata, imported by an organization's admin instead of typing its parts: the XML itself
// (`idpMetadata`) or a URL the server fetches (`metadataUrl`). From its one IDPSSODescriptor come the entity id, the
// HTTP-Redirect SSO URL, the signing certificates and whether it wants signed AuthnRequests. The XML goes through the
// same pre-parse guard as a SAML response (no DTD, no entities, a size cap, a strict parser); the URL follows the
// issuer-host rules (https, in production no private host), with a timeout, a size cap, and every redirect checked
// by the same rules.
import type { InternalConfig } from '../core/config.js';
import { InvalidRequest } from '../core/errors.js';
import { readTextUpTo } from '../core/read-limited.js';
import { declaresDtd, parseStrictXml } from './strict-xml.js';
import { checkIdpUrl } from './idp-url.js';

/** The largest metadata document taken (one IdP's is a few kilobytes; federation aggregates are not taken). */
export const MAX_METADATA_BYTES = 256 * 1024;
/** How long fetching the metadata URL may take. */
export const METADATA_TIMEOUT_MS = 5_000;
const MAX_REDIRECTS = 3;

const MD_NS = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS_NS = 'http://www.w3.org/2000/09/xmldsig#';
const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** What a connection takes from the metadata. */
export interface IdpMetadata {
  idpEntityId: string;
  idpSsoUrl: string;
  idpCertificates: string[];
  /** `WantAuthnRequestsSigned="true"` on the IDPSSODescriptor. */
  signAuthnRequests: boolean;
}

const bad = (message: string, field: string, actual?: unknown) => new InvalidRequest(message, { field, ...(actual === undefined ? {} : { actual }) });

function all(parent: Document | Element, ns: string, name: string): Element[] {
  return Array.from(parent.getElementsByTagNameNS(ns, name) as unknown as ArrayLike<Element>);
}

/**
 * Reads an IdP's metadata XML; InvalidRequest (field `field`) for a DTD, a document too large, not well-formed, or
 * without exactly one IDPSSODescriptor with an HTTP-Redirect SSO service and a signing certificate.
 *
 * @example
 * const { idpEntityId, idpSsoUrl, idpCertificates } = readIdpMetadata(xml)
 */
export function readIdpMetadata(xml: string, field = 'idpMetadata'): IdpMetadata {
  if (Buffer.byteLength(xml, 'utf8') > MAX_METADATA_BYTES) throw bad(`The IdP metadata is larger than ${MAX_METADATA_BYTES} bytes.`, field);
  if (declaresDtd(xml)) throw bad('The IdP metadata declares a DTD or entities.', field);
  const doc = parseStrictXml(xml, () => {
    throw bad('The IdP metadata is not well-formed XML.', field);
  });
  const descriptors = all(doc, MD_NS, 'IDPSSODescriptor');
  if (descriptors.length !== 1) throw bad('The metadata must describe exactly one identity provider (one IDPSSODescriptor).', field, descriptors.length);
  const idp = descriptors[0]!;
  const entity = idp.parentNode as Element | null;
  const idpEntityId = entity?.namespaceURI === MD_NS && entity.localName === 'EntityDescriptor' ? entity.getAttribute('entityID')?.trim() : undefined;
  if (!idpEntityId) throw bad('The metadata names no entityID for the identity provider.', field);
  const sso = all(idp, MD_NS, 'SingleSignOnService').find((s) => s.getAttribute('Binding') === REDIRECT_BINDING)?.getAttribute('Location')?.trim();
  if (!sso) throw bad('The metadata has no SingleSignOnService with the HTTP-Redirect binding.', field);
  const signing = all(idp, MD_NS, 'KeyDescriptor').filter((k) => (k.getAttribute('use') ?? 'signing') === 'signing');
  const idpCertificates = [...new Set(signing.flatMap((k) => all(k, DS_NS, 'X509Certificate').map((c) => (c.textContent ?? '').replace(/\s+/g, ''))).filter((c) => /^[A-Za-z0-9+/]+={0,2}$/.test(c)))];
  if (idpCertificates.length === 0) throw bad('The metadata has no signing certificate.', field);
  return { idpEntityId, idpSsoUrl: sso, idpCertificates, signAuthnRequests: idp.getAttribute('WantAuthnRequestsSigned') === 'true' };
}

/**
 * Fetches an IdP's metadata from `url` (already checked by the issuer-host rules); every redirect is checked by the
 * same rules, the answer read up to {@link MAX_METADATA_BYTES}, the whole within {@link METADATA_TIMEOUT_MS}.
 * InvalidRequest (field `metadataUrl`) for anything that does not give a metadata document.
 *
 * @example
 * const metadata = readIdpMetadata(await fetchIdpMetadata(config, 'https://idp.example/metadata'), 'metadataUrl')
 */
export async function fetchIdpMetadata(config: InternalConfig, url: string): Promise<string> {
  const signal = AbortSignal.timeout(METADATA_TIMEOUT_MS);
  let target = url;
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const res = await fetch(target, { redirect: 'manual', signal, headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' } });
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel();
        target = checkIdpUrl(config, new URL(location, target).href, 'metadataUrl');
        continue;
      }
      if (!res.ok || !res.body) {
        await res.body?.cancel();
        throw bad(`The metadata URL answered ${res.status}.`, 'metadataUrl', res.status);
      }
      return await readTextUpTo(res.body, MAX_METADATA_BYTES, () => bad(`The IdP metadata is larger than ${MAX_METADATA_BYTES} bytes.`, 'metadataUrl'));
    }
  } catch (err) {
    if (err instanceof InvalidRequest) throw err;
    throw bad('The metadata URL could not be fetched.', 'metadataUrl', err instanceof Error ? err.name : undefined);
  }
  throw bad('The metadata URL redirects too often.', 'metadataUrl');
}

/**
 * A connection's request body with the metadata's settings filled in, when it carries `idpMetadata` (XML) or a
 * `metadataUrl` (fetched); a setting given in the body as well wins over the metadata's.
 *
 * @example
 * const body = await withIdpMetadata(config, req.body)
 */
export async function withIdpMetadata(config: InternalConfig, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const inline = body.idpMetadata;
  const from = typeof body.metadataUrl === 'string' && body.metadataUrl !== '' ? body.metadataUrl : undefined;
  if ((inline === undefined || inline === '') && !from) return body;
  if (inline !== undefined && inline !== '' && typeof inline !== 'string') throw bad('`idpMetadata` is the IdP metadata XML.', 'idpMetadata');
  const metadata = typeof inline === 'string' && inline !== '' ? readIdpMetadata(inline) : readIdpMetadata(await fetchIdpMetadata(config, checkIdpUrl(config, from!, 'metadataUrl')), 'metadataUrl');
  const { idpMetadata: _xml, ...rest } = body;
  const given = (name: string) => rest[name] !== undefined && rest[name] !== '';
  return {
    ...rest,
    idpEntityId: given('idpEntityId') ? rest.idpEntityId : metadata.idpEntityId,
    idpSsoUrl: given('idpSsoUrl') ? rest.idpSsoUrl : metadata.idpSsoUrl,
    idpCertificates: given('idpCertificates') ? rest.idpCertificates : metadata.idpCertificates,
    signAuthnRequests: given('signAuthnRequests') ? rest.signAuthnRequests : metadata.signAuthnRequests,
  };
}
