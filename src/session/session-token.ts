// How a database session's token is stored: its SHA-256, so a leaked sessions table holds no usable cookie. The
// cookie carries the token itself; every adapter call names the row by the hash.
import { createHash } from 'node:crypto';

/**
 * The stored form of a session token (64 hex characters). Also the session's public id in session control: it
 * names the row, and knowing it does not give the cookie.
 *
 * @example
 * await adapter.getSessionAndUser(storedSessionToken(cookieValue))
 */
export function storedSessionToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
