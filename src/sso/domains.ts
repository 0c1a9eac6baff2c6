// Verified domains: an organization claims a domain, gets a token to publish as a DNS TXT record, and the claim is
// verified once the record is seen. Only a verified domain routes a sign-in or admits an asserted address, and a
// domain verified by one organization can be neither claimed nor verified by another.
import { randomBytes } from 'node:crypto';
import type { InternalConfig } from '../core/config.js';
import { SsoDomainRefused, SsoDomainUnverified, SsoNotFound } from '../core/errors.js';
import type { ResolveTxt } from './options.js';
import { ssoStore } from './store.js';
import type { OrganizationDomain } from './types.js';

/** The TXT record's value starts with this; the rest is the claim's random token. */
export const VERIFICATION_PREFIX = 'authchart-verification=';

/** Where the TXT record goes: a name of its own under the domain, so the apex's records stay as they are. */
export function verificationHost(domain: string): string {
  return `_authchart.${domain}`;
}

/**
 * A domain name as stored: lower case, ASCII (an IDN in its `xn--` form), no trailing dot, at least two labels; null
 * for anything else (an IP address, a URL, a name with a port or a path).
 */
export function normalizeDomain(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const raw = input.trim().toLowerCase().replace(/\.$/, '');
  if (!raw || raw.length > 253 || /[\s/:@?#[\]\\%]/.test(raw)) return null;
  let ascii: string;
  try {
    ascii = new URL(`http://${raw}/`).hostname;
  } catch {
    return null;
  }
  const labels = ascii.split('.');
  if (labels.length < 2 || /^[0-9]+$/.test(labels.at(-1)!)) return null;
  if (!labels.every((l) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(l))) return null;
  return ascii;
}

/** The domain of an e-mail address, normalised as {@link normalizeDomain}; null without one. */
export function domainOfAddress(email: unknown): string | null {
  if (typeof email !== 'string') return null;
  const at = email.lastIndexOf('@');
  return at > 0 ? normalizeDomain(email.slice(at + 1)) : null;
}

/** A domain from a request, or SsoDomainRefused (400). */
export function requireDomain(input: unknown): string {
  const domain = normalizeDomain(input);
  if (!domain) throw new SsoDomainRefused('Give a domain name such as `acme.example`.', { actual: typeof input === 'string' ? input.slice(0, 100) : null });
  return domain;
}

/** Claims `domain` for the organization: its TXT token (an existing claim of the same organization keeps its own). */
export async function claimDomain(config: InternalConfig, organizationId: string, domain: string): Promise<OrganizationDomain> {
  const verificationToken = VERIFICATION_PREFIX + randomBytes(24).toString('base64url');
  const claim = await ssoStore(config).claimDomain({ organizationId, domain, verificationToken });
  if (!claim) throw new SsoDomainRefused('Another organization has verified this domain.', { domain, status: 409 });
  return claim;
}

/** The organization's own claim of `domain`, or SsoNotFound (another organization's claim reads the same). */
export async function ownClaim(config: InternalConfig, organizationId: string, domain: string): Promise<OrganizationDomain> {
  const claim = (await ssoStore(config).listDomains(organizationId)).find((d) => d.domain === domain);
  if (!claim) throw new SsoNotFound('This organization has not claimed that domain.', { domain });
  return claim;
}

/** The configured TXT look-up, else the system resolver's (loaded on first use: `node:dns` is Node's). */
async function resolverOf(config: InternalConfig): Promise<ResolveTxt> {
  if (config.sso?.resolveTxt) return config.sso.resolveTxt;
  const dns = await import('node:dns/promises');
  return (host) => dns.resolveTxt(host);
}

/**
 * Verifies the organization's claim of `domain`: its TXT record at {@link verificationHost} must hold the claim's
 * token. SsoDomainUnverified when it does not (yet), SsoDomainRefused when another organization verified it first.
 */
export async function verifyDomain(config: InternalConfig, organizationId: string, domain: string): Promise<OrganizationDomain> {
  const claim = await ownClaim(config, organizationId, domain);
  if (claim.verifiedAt) return claim;
  let records: string[][];
  try {
    records = await (await resolverOf(config))(verificationHost(domain));
  } catch (err) {
    // No such name, no TXT record, a resolver that fails: all read "not found yet" (the code tells which).
    throw new SsoDomainUnverified(`No TXT record with the token was found at ${verificationHost(domain)}.`, { domain, actual: (err as { code?: unknown }).code ?? String(err) });
  }
  if (!records.some((chunks) => chunks.join('') === claim.verificationToken)) {
    throw new SsoDomainUnverified(`The TXT records at ${verificationHost(domain)} do not hold this claim's token.`, { domain, actual: records.length });
  }
  const verified = await ssoStore(config).markDomainVerified(organizationId, domain);
  if (!verified) throw new SsoDomainRefused('Another organization has verified this domain.', { domain, status: 409 });
  return verified;
}
