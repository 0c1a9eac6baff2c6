// A new password made ready to store: the rules (NIST's length, well-formed text), the optional breached check, then
// the hash. What an app calls to create an account today; the sign-up and change flows will call it too.
import { InvalidPassword } from '../../core/errors.js';
import type { BreachedLookup } from './breached.js';
import { argon2id, type PasswordHasher } from './hash.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordForHashing } from './rules.js';

/** Options of {@link hashNewPassword}. */
export interface NewPasswordOptions {
  /** The hasher of the Password provider the account signs in with (default: argon2id with OWASP's parameters). */
  hasher?: PasswordHasher;
  /** At least {@link MIN_PASSWORD_LENGTH} (NIST's minimum), at most 64; default 8. */
  minLength?: number;
  /** Refuse passwords known from breaches (`breachedRange()`, or the app's own lookup). */
  breached?: BreachedLookup;
}

let defaultHasher: PasswordHasher | undefined;

/** The argon2id hasher with OWASP's parameters, one per process (so its dummy hash is made once). */
export function defaultPasswordHasher(): PasswordHasher {
  return (defaultHasher ??= argon2id());
}

/**
 * Checks a new password against the rules and (when asked) the breached list, and returns its hash to store with
 * `adapter.setPasswordHash(userId, hash)`. Nothing is hashed when a rule refuses it.
 *
 * @throws InvalidPassword with `problem` `too_short`, `too_long`, `nul`, `invalid_utf16`, `not_a_string` or `breached`.
 * @example
 * await adapter.setPasswordHash(user.id, await hashNewPassword(form.password, { breached: breachedRange() }))
 */
export async function hashNewPassword(password: unknown, options: NewPasswordOptions = {}): Promise<string> {
  const minLength = options.minLength ?? MIN_PASSWORD_LENGTH;
  if (!Number.isInteger(minLength) || minLength < MIN_PASSWORD_LENGTH || minLength > 64) {
    throw new TypeError(`minLength must be an integer from ${MIN_PASSWORD_LENGTH} to 64 (the longest password is ${MAX_PASSWORD_LENGTH}).`);
  }
  const normalized = passwordForHashing(password, { minLength });
  if (options.breached && (await options.breached(normalized))) {
    throw new InvalidPassword('The password is in a list of breached passwords; choose another.', { problem: 'breached' });
  }
  return (options.hasher ?? defaultPasswordHasher()).hash(normalized);
}
