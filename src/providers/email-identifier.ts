// The address an e-mail provider signs in: its own normaliser (or the default one), with the domain in ASCII. The
// e-mail flow stores links under it and the throttle counts magic-link requests by it, so both read the same value.
import { asciiEmailDomain } from '../core/email-address.js';
import type { ResolvedProvider } from '../core/provider.js';
import { normalizeEmailAddress, type EmailConfig } from './email.js';

/** Longest token or address a link may carry; anything longer is not ours and never reaches the database. */
export const MAX_LINK_PARAM = 512;

/**
 * Runs the provider's address normaliser; anything but a non-empty string is an unusable address (TypeError). An
 * address a custom normaliser returns still gets its domain in ASCII, so its Unicode and punycode spellings are one
 * user.
 *
 * @example
 * normalizeAddress(provider, ' Ada@Example.COM ') // 'ada@example.com'
 */
export function normalizeAddress(provider: ResolvedProvider, email: string): string {
  const normalize = (provider as unknown as EmailConfig).normalizeIdentifier ?? normalizeEmailAddress;
  let value = normalize(email);
  // An identifier without "@" (a phone number, say) is the custom normaliser's own business.
  if (typeof value === 'string' && value.includes('@')) value = asciiEmailDomain(value) ?? '';
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LINK_PARAM) throw new TypeError('normalizeIdentifier returned no usable address.');
  return value;
}
