// The Password provider: accounts whose password authchart keeps (hashed with argon2id in the adapter) and checks
// itself, signed in by e-mail address and password. A credentials-type provider, so the form, the per-account limit,
// the sign-in tail and the second-factor stage are those of every credentials sign-in.
import type { CredentialInput } from '../../core/options.js';
import type { CommonProviderOptions } from '../../core/provider.js';
import type { PasswordHasher } from './hash.js';
import type { VerifyImported } from './imported.js';
import { defaultPasswordHasher } from './new-password.js';

/** What the password flow reads of its provider ({@link PasswordConfig.password}). */
export interface PasswordSettings {
  hasher: PasswordHasher;
  verifyImported?: VerifyImported;
}

export interface PasswordConfig extends CommonProviderOptions {
  type: 'credentials';
  /** The built-in form's fields: the address and the password. */
  credentials: { email: CredentialInput; password: CredentialInput };
  /** The field the per-account limit counts and the account is found by. */
  identifier: 'email';
  /** Marks the provider as a Password provider (its flow is the built-in password sign-in), with its settings. */
  password: PasswordSettings;
}

/** Options of {@link Password}. */
export interface PasswordOptions {
  /** Default `password`. */
  id?: string;
  /** Default `Password`. */
  name?: string;
  /** How new hashes are made (default: argon2id with OWASP's parameters through @node-rs/argon2). */
  hasher?: PasswordHasher;
  /** Checks hashes of formats other than the hasher's and bcrypt (imported from an earlier system). */
  verifyImported?: VerifyImported;
}

/**
 * Accounts with a password authchart keeps. The user is found by e-mail address (`getUserByEmail`, the address
 * normalised as the e-mail provider stores it) and the hash through the adapter's `getPasswordHash`; a hash of
 * another format (bcrypt, or one `verifyImported` knows) or older parameters is replaced at a successful sign-in.
 * Needs an adapter with `getPasswordHash` and `setPasswordHash` (PostgresAdapter has them).
 *
 * @example
 * AuthInit({ adapter: PostgresAdapter(pool), providers: [Password()] })
 */
export function Password(options: PasswordOptions = {}): PasswordConfig {
  return {
    id: options.id ?? 'password',
    name: options.name ?? 'Password',
    type: 'credentials',
    credentials: {
      // No labels: the sign-in page names the address and password fields in the reader's language.
      email: { type: 'email', autocomplete: 'username' },
      password: { type: 'password', autocomplete: 'current-password' },
    },
    identifier: 'email',
    password: { hasher: options.hasher ?? defaultPasswordHasher(), ...(options.verifyImported ? { verifyImported: options.verifyImported } : {}) },
  };
}
