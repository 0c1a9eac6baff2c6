// The credentials provider: the user's own `authorize` decides who signs in.
import type { Awaitable, User } from '../core/types.js';
import type { CredentialInput } from '../core/options.js';
import type { CommonProviderOptions } from './types.js';

export interface CredentialsConfig extends CommonProviderOptions {
  type: 'credentials';
  /** The fields of the built-in sign-in form. */
  credentials: Record<string, CredentialInput>;
  /**
   * Returns the user for these credentials, or null. Throw a `CredentialsSignin` subclass to put
   * its `code` in the error URL; any other throw is reported as `Configuration`.
   */
  authorize: (credentials: Record<string, unknown>, request: Request) => Awaitable<User | null>;
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
