// The credentials provider: the user's own `authorize` decides who signs in.
import type { Awaitable, User } from '../core/types.js';
import type { CredentialInput } from '../core/options.js';
import type { CommonProviderOptions } from '../core/provider.js';

export interface CredentialsConfig extends CommonProviderOptions {
  type: 'credentials';
  /** The fields of the built-in sign-in form. */
  credentials: Record<string, CredentialInput>;
  /**
   * The form field that names the account (`'email'`, `'username'`). Defaults to the first field of `credentials`
   * that is not `type: 'password'`. `authorize` gets it as one string, NFKC-normalised and trimmed; the per-account
   * limit counts that same value (case-folded); a request where it is missing, repeated or not a string is refused
   * with 400 `InvalidRequest` before `authorize` runs. With throttling on (the production default) a provider must
   * name one, by `credentials` or here; `false` says the form names no account (only the per-client limits apply).
   *
   * @example
   * Credentials({ identifier: 'login', credentials: {}, authorize })
   */
  identifier?: string | false;
  /**
   * Returns the user for these credentials, or null. Throw a `CredentialsSignin` subclass to put
   * its `code` in the error URL; any other throw is reported as `Configuration`.
   */
  authorize: (credentials: Record<string, unknown>, request: Request) => Awaitable<User | null>;
  /**
   * Database sessions only. A credentials sign-in is stored as a `credentials` account (keyed by `authorize`'s id)
   * and never joins a user it did not create: when another user (OAuth, e-mail, passkey) already has the e-mail
   * address `authorize` returns, it fails with `AccountNotLinked`. `true` links it to that user instead, which is
   * safe only when every address `authorize` returns was verified by the app (whoever holds the password then
   * owns the other user's account).
   */
  allowDangerousEmailAccountLinking?: boolean;
}

export type CredentialsUserConfig = Partial<Omit<CredentialsConfig, 'type'>> & Pick<CredentialsConfig, 'authorize'>;

/**
 * A username/password (or any form) sign-in.
 *
 * @example
 * Credentials({
 *   credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
 *   authorize: async (c) => (c.password === 'secret' ? { id: '1', email: String(c.email) } : null),
 * })
 */
export function Credentials(options: CredentialsUserConfig): CredentialsConfig {
  return {
    id: 'credentials',
    name: 'Credentials',
    credentials: {},
    ...options,
    type: 'credentials',
  };
}
