// The Password provider: accounts whose password authchart keeps (hashed with argon2id in the adapter) and checks
// itself, signed in by e-mail address and password. A credentials-type provider, so the form, the per-account limit,
// the sign-in tail and the second-factor stage are those of every credentials sign-in.
import type { CredentialInput } from '../../core/options.js';
import type { CommonProviderOptions } from '../../core/provider.js';
import type { AdapterUser } from '../../core/types.js';
import type { BreachedLookup } from './breached.js';
import type { PasswordHasher } from './hash.js';
import type { VerifyImported } from './imported.js';
import { defaultPasswordHasher } from './new-password.js';

/** What the password flow reads of its provider ({@link PasswordConfig.password}). */
export interface PasswordSettings {
  hasher: PasswordHasher;
  verifyImported?: VerifyImported;
  /** The change-password flow's settings. */
  change?: PasswordChangeOptions;
}

/** What the built-in change-password flow (`{basePath}/flows/change-password`) does beside the defaults. */
export interface PasswordChangeOptions {
  /** How recent (seconds) the sign-in must be to change the password; older sessions verify again first. Default 300. */
  maxAge?: number;
  /** The shortest new password (8 to 64, default 8). */
  minLength?: number;
  /** Refuse new passwords known from breaches (`breachedRange()`, or the app's own lookup). */
  breached?: BreachedLookup;
  /**
   * Tells the user their password changed. Default: a mail through the configured Email provider's `server`
   * (nothing when there is none). A throw is logged; the change stands.
   */
  notify?(params: { user: AdapterUser; subject: string; text: string }): unknown;
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
  /** The change-password flow: recent sign-in, rules for the new password, the notice. */
  change?: PasswordChangeOptions;
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
    password: { hasher: options.hasher ?? defaultPasswordHasher(), ...(options.verifyImported ? { verifyImported: options.verifyImported } : {}), ...(options.change ? { change: options.change } : {}) },
  };
}
