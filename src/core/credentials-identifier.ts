// Which account a credentials form is about: the one field the provider names as its identifier, read from the body
// and normalised here only, so `authorize` and the per-account limit both work from the same value.
import { InvalidRequest } from './errors.js';

/** What this module reads of a credentials provider (structural: core cannot import providers/). */
export interface IdentifiedProvider {
  identifier?: string | false;
  credentials?: Record<string, { type?: string } | undefined>;
}

/** Longer than any address or username a person types; more is refused rather than trimmed into another name. */
export const MAX_IDENTIFIER_LENGTH = 320;

/**
 * The body field that names the account: `identifier` when given, else the first declared field that is not a
 * password (the one the built-in form and password managers treat as the username). `false` when the provider
 * says it names no account; undefined when it declares nothing to go on.
 *
 * @example
 * identifierField({ credentials: { email: {}, password: { type: 'password' } } }) // 'email'
 */
export function identifierField(provider: IdentifiedProvider): string | false | undefined {
  if (provider.identifier !== undefined) return provider.identifier;
  const fields = provider.credentials ?? {};
  return Object.keys(fields).find((name) => fields[name]?.type !== 'password');
}

/**
 * The identifier as `authorize` gets it: NFKC, then trimmed. Throws InvalidRequest (400) when the field is missing,
 * empty, too long or not a single string (an array, object, number: JSON bodies can send any of them). A repeated
 * form field never gets here: the body parser refuses it.
 *
 * @example
 * submittedIdentifier({ email: ' ａda@example.com ' }, 'email') // 'ada@example.com'
 */
export function submittedIdentifier(body: Record<string, unknown>, field: string): string {
  const raw = Object.hasOwn(body, field) ? body[field] : undefined;
  if (raw === undefined || raw === null || raw === '') throw new InvalidRequest(`The "${field}" field is missing.`);
  if (typeof raw !== 'string') throw new InvalidRequest(`The "${field}" field must be one string.`);
  const value = raw.normalize('NFKC').trim();
  if (value === '') throw new InvalidRequest(`The "${field}" field is missing.`);
  if (value.length > MAX_IDENTIFIER_LENGTH) throw new InvalidRequest(`The "${field}" field is too long.`);
  return value;
}

/**
 * The credentials `authorize` gets: the body as sent, with the identifier field replaced by its normalised value.
 * Throws InvalidRequest as {@link submittedIdentifier} does. A provider that names no account gets the body as is.
 *
 * @example
 * credentialsForAuthorize(provider, { email: 'Ada@example.com ', password: 'x' }) // { email: 'Ada@example.com', password: 'x' }
 */
export function credentialsForAuthorize(provider: IdentifiedProvider, body: Record<string, unknown>): Record<string, unknown> {
  const field = identifierField(provider);
  if (!field) return { ...body };
  return { ...body, [field]: submittedIdentifier(body, field) };
}

// Characters that render as nothing (zero-width space and joiners, soft hyphen, variation selectors) and whitespace.
const INVISIBLE = /[\s\p{Default_Ignorable_Code_Point}]/gu;

// `i` followed by a combining dot above: what `İ` (U+0130) lowers to in JavaScript and under ICU collations.
const DOTTED_I = /i\u0307/g;

/**
 * The per-account throttle key of an identifier `authorize` gets (see {@link submittedIdentifier}). It folds more
 * than `authorize` sees, on purpose: case (full folding, `ß` and `ẞ` as `ss`), compatibility forms, whitespace and
 * invisible characters. Two spellings an app might resolve to one account then share one count; over-counting is the
 * safe direction (a typo shares a neighbour's limit), under-counting is the hole.
 *
 * It is at least as coarse as the databases apps look users up with: PostgreSQL's `lower()` and `citext` fold `İ`
 * to `i` under libc collations and to `i` + U+0307 under ICU ones, and `ẞ` to `ß`; lowering first and reading
 * `i` + U+0307 as `i` gives every such spelling one key (test/security/throttle-identifier-folding.test.ts checks
 * each code point against a real PostgreSQL).
 *
 * @example
 * accountKey('ADA@Example.com') === accountKey('a\u200Bda@example.com') // true
 * accountKey('KİM@example.com') === accountKey('kim@example.com') // true
 */
export function accountKey(identifier: string): string {
  const folded = identifier.normalize('NFKC').toLowerCase().toUpperCase().toLowerCase().normalize('NFKC');
  return folded.replace(DOTTED_I, 'i').replace(INVISIBLE, '');
}
