// The password rules of NIST SP 800-63B (5.1.1.2): a length between a minimum and a generous maximum, any Unicode
// character, no composition rules; refused before any hash is computed, each with the rule it breaks.
import { InvalidPassword, type PasswordProblem } from '../../core/errors.js';

/** NIST's minimum for a password a person chooses. */
export const MIN_PASSWORD_LENGTH = 8;
/**
 * The longest password taken, in characters (code points, after NFKC). NIST asks for at least 64; 128 leaves room
 * for long passphrases while bounding the work per guess (at most 512 bytes of UTF-8 to hash).
 */
export const MAX_PASSWORD_LENGTH = 128;
// One code point is at most two UTF-16 units, and NFKC rarely shortens text: anything longer is refused unread
// (a 200 KB body is never normalised, let alone hashed).
const MAX_RAW_UNITS = 2 * MAX_PASSWORD_LENGTH + 64;
// In a `u` regular expression a surrogate range matches only a surrogate that is not half of a pair.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

function refuse(problem: PasswordProblem, message: string): never {
  throw new InvalidPassword(message, { problem });
}

/**
 * The password as it is hashed: one string, well-formed UTF-16 without NUL, NFKC-normalised (so the same passphrase
 * typed on two keyboards is one password), at most {@link MAX_PASSWORD_LENGTH} characters. With `minLength` (new
 * passwords) also at least that long; sign-in leaves it out, so a password set under older rules still works.
 *
 * @throws InvalidPassword naming the rule broken (`not_a_string`, `too_long`, `nul`, `invalid_utf16`, `too_short`).
 * @example
 * passwordForHashing('correct horse battery staple', { minLength: 8 }) // 'correct horse battery staple'
 */
export function passwordForHashing(password: unknown, rules: { minLength?: number } = {}): string {
  if (typeof password !== 'string') refuse('not_a_string', 'The password must be one string.');
  if (password.length > MAX_RAW_UNITS) refuse('too_long', `The password is longer than ${MAX_PASSWORD_LENGTH} characters.`);
  if (password.includes('\0')) refuse('nul', 'The password contains a NUL character.');
  if (LONE_SURROGATE.test(password)) refuse('invalid_utf16', 'The password is not valid text (a lone UTF-16 surrogate).');
  const normalized = password.normalize('NFKC');
  let length = 0;
  for (const _ of normalized) length++;
  if (length > MAX_PASSWORD_LENGTH) refuse('too_long', `The password is longer than ${MAX_PASSWORD_LENGTH} characters.`);
  if (rules.minLength !== undefined && length < rules.minLength) refuse('too_short', `The password is shorter than ${rules.minLength} characters.`);
  return normalized;
}
