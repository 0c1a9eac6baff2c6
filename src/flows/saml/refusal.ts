// How the SAML flow refuses a response: one error type (SamlResponseRefused) with the name of the check that failed in
// `cause.reason`, so logs and tests tell a replay from a forged signature without reading message text.
import { SamlResponseRefused } from '../../core/errors.js';

/** The check a refused SAML response failed. */
export type SamlRefusalReason =
  /** Not base64, not XML, too large, not a samlp:Response. */
  | 'malformed'
  /** A DTD or entity declaration (entity expansion, external entities). */
  | 'dtd'
  /** No assertion, more than one, one outside the Response's children, or an encrypted one (not supported). */
  | 'assertions'
  /** A comment, CDATA or element inside a NameID, Issuer or Audience (the comment truncation attack). */
  | 'splitText'
  /** No Conditions with NotOnOrAfter, or no bearer SubjectConfirmationData with NotOnOrAfter. */
  | 'conditions'
  /** Refused by the signature, audience, time or InResponseTo checks of the SAML library. */
  | 'rejected'
  /** The IdP answered with a non-success status. */
  | 'status'
  /** The Response's Destination or the assertion's Recipient is not this connection's ACS URL. */
  | 'destination'
  /** The assertion (or the Response) names another issuer than the connection's IdP. */
  | 'issuer'
  /** The NameID is missing or unusable as an account id. */
  | 'subject'
  /** This assertion id was accepted before. */
  | 'replayed';

/**
 * A SamlResponseRefused for `reason`, with the evidence (never the assertion itself).
 *
 * @example
 * throw refuse('issuer', 'The assertion was issued by another IdP.', { expected: idpEntityId, actual: issuer })
 */
export function refuse(reason: SamlRefusalReason, message: string, evidence: { expected?: unknown; actual?: unknown; err?: Error } = {}): SamlResponseRefused {
  return new SamlResponseRefused(`SAML response refused (${reason}): ${message}`, { reason, ...evidence });
}

/** The reason a SamlResponseRefused carries. */
export function reasonOf(error: unknown): SamlRefusalReason | undefined {
  return error instanceof SamlResponseRefused ? ((error.cause as { reason?: SamlRefusalReason } | undefined)?.reason ?? undefined) : undefined;
}
