// The URLs of an organization's IdP that the server itself fetches (OIDC discovery, keys and tokens; SAML metadata),
// chosen by a tenant's admin: https, and in production never a loopback, private or link-local host.
import type { InternalConfig } from '../core/config.js';
import { InvalidRequest } from '../core/errors.js';

const bad = (message: string, field: string) => new InvalidRequest(message, { field });

// Host names that reach the server's own network, never an organization's IdP: an admin of one tenant must not make
// the server fetch them (discovery, keys, the token endpoint).
const PRIVATE_HOST = /^(?:localhost|.*\.localhost|.*\.internal|.*\.local|\[.*\]|(?:0|10|127)\.[\d.]+|169\.254\.[\d.]+|192\.168\.[\d.]+|172\.(?:1[6-9]|2\d|3[01])\.[\d.]+|100\.(?:6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.[\d.]+)$/;

/**
 * An issuer or IdP URL: https; in development also http on a loopback host. In production a loopback, private or
 * link-local address is refused: the server fetches this URL, and a tenant's admin chose it.
 */
export function checkIdpUrl(config: InternalConfig, v: string, name: string): string {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw bad(`\`${name}\` is not a URL.`, name);
  }
  const loopback = u.hostname === 'localhost' || u.hostname === '127.0.0.1' || u.hostname === '[::1]';
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback && !config.production)) throw bad(`\`${name}\` must be an https URL.`, name);
  if (config.production && PRIVATE_HOST.test(u.hostname)) throw bad(`\`${name}\` must be a public host, not ${u.hostname}.`, name);
  if (u.username || u.password || u.hash) throw bad(`\`${name}\` carries no credentials or fragment.`, name);
  return v.replace(/\/$/, '');
}
