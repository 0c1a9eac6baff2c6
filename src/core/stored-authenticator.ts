// What `createAuthenticator` is given for a new passkey: the fields of the Auth.js adapter contract, and authchart's
// AAGUID only for an adapter that keeps authchart's passkey extensions (it has `renameAuthenticator`, as
// PostgresAdapter does). An Auth.js adapter's schema has no such column, and an ORM refuses a field it does not know.
import type { AdapterAuthenticator } from './types.js';

/**
 * The record to store for a passkey registered to `userId` under the account `providerAccountId`.
 *
 * @example
 * await adapter.createAuthenticator(authenticatorRecord(adapter, passkey.credential, userId, account.providerAccountId))
 */
export function authenticatorRecord(
  adapter: { renameAuthenticator?: unknown },
  credential: Omit<AdapterAuthenticator, 'userId' | 'providerAccountId'>,
  userId: string,
  providerAccountId: string,
): AdapterAuthenticator {
  const { aaguid, ...contract } = credential;
  const record: AdapterAuthenticator = { ...contract, userId, providerAccountId };
  if (typeof adapter.renameAuthenticator === 'function' && aaguid) record.aaguid = aaguid;
  return record;
}
