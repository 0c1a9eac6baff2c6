// How a database session's token is stored: its SHA-256, so a leaked sessions table holds no usable cookie. The
// cookie carries the token itself; every adapter call names the row by the hash. The stored form is marked
// (`sha256:`), a form no session token has, so a value read from the table is refused on every path that takes a
// token as it is (an Auth.js cookie under `migrateFrom: 'authjs'` is looked up unhashed, as Auth.js stored it).
import { createHash } from 'node:crypto';

const STORED = 'sha256:';

/**
 * The stored form of a session token (`sha256:` and 64 hex characters). Also the session's public id in session
 * control: it names the row, and knowing it does not give the cookie.
 *
 * @example
 * await adapter.getSessionAndUser(storedSessionToken(cookieValue))
 */
export function storedSessionToken(token: string): string {
  return STORED + createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether a value has the stored form: something read from the sessions table, never a token to look up as it is. */
export function isStoredSessionToken(value: string): boolean {
  return value.startsWith(STORED);
}
