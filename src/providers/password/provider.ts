// The Password provider: accounts whose password authchart keeps (hashed with argon2id in the adapter) and checks
// itself, signed in by e-mail address and password. A credentials-type provider, so the form, the per-account limit,
// the sign-in tail and the second-factor stage are those of every credentials sign-in.
import type { CredentialInput } from '../../core/options.js';
import type { CommonProviderOptions } from '../../core/provider.js';
import type { PasswordHasher } from './hash.js';
import type { BreachedLookup } from './breached.js';
import type { VerifyImported } from './imported.js';
import type { PasswordMailOptions } from './mail.js';
import { defaultPasswordHasher } from './new-password.js';

/** What the password flow reads of its provider ({@link PasswordConfig.password}). */
export interface PasswordSettings {
  hasher: PasswordHasher;
  verifyImported?: VerifyImported;
  /** The shortest new password (recovery, sign-up, change); default 8. */
  minLength?: number;
  /** Refuses new passwords known from breaches. */
  breached?: BreachedLookup;
  /** How recovery mails are sent. */
  mail?: PasswordMailOptions;
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
  /** The shortest new password a person may choose (NIST: at least 8, the default). */
  minLength?: number;
  /** Refuses new passwords known from breaches: `breachedRange()` or the app's own lookup. */
  breached?: BreachedLookup;
  /** How the recovery mails (reset link and code, "your password was changed") are sent. */
  mail?: PasswordMailOptions;
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
      email: { label: 'Email', type: 'email', autocomplete: 'username' },
      password: { label: 'Password', type: 'password', autocomplete: 'current-password' },
    },
    identifier: 'email',
    password: {
      hasher: options.hasher ?? defaultPasswordHasher(),
      ...(options.verifyImported ? { verifyImported: options.verifyImported } : {}),
      ...(options.minLength !== undefined ? { minLength: options.minLength } : {}),
      ...(options.breached ? { breached: options.breached } : {}),
      ...(options.mail ? { mail: options.mail } : {}),
    },
  };
}
