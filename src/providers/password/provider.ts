// The Password provider: accounts whose password authchart keeps (hashed with argon2id in the adapter) and checks
// itself, signed in by e-mail address and password. A credentials-type provider, so the form, the per-account limit,
// the sign-in tail and the second-factor stage are those of every credentials sign-in.
import type { CredentialInput } from '../../core/options.js';
import type { CommonProviderOptions } from '../../core/provider.js';
import type { AdapterUser } from '../../core/types.js';
import type { BreachedLookup } from './breached.js';
import type { PasswordHasher } from './hash.js';
import type { VerifyImported } from './imported.js';
import type { PasswordMailOptions } from './mail.js';
import type { Awaitable } from '../../core/types.js';
import type { Theme } from '../../core/theme.js';
import type { Translator } from '../../core/messages/translator.js';
import { defaultPasswordHasher } from './new-password.js';

/** What the password flow reads of its provider ({@link PasswordConfig.password}). */
export interface PasswordSettings {
  hasher: PasswordHasher;
  verifyImported?: VerifyImported;
  /** Sign-up (`POST {basePath}/signup/:id`), or false when the app creates accounts itself. */
  signUp: SignUpSettings | false;
  /** The shortest new password at recovery (the provider's `minLength`); default 8. Sign-up and change carry their own. */
  minLength?: number;
  /** Refuses new passwords known from breaches at recovery (the provider's `breached`). */
  breached?: BreachedLookup;
  /** How recovery mails are sent. */
  mail?: PasswordMailOptions;
  /** The change-password flow's settings. */
  change?: PasswordChangeOptions;
}

/** A mail the sign-up sends: the address's proof (a link and a code), or a notice to an address that has an account. */
export type SignUpMail =
  | { kind: 'verify'; to: string; url: string; code: string; expires: Date }
  | { kind: 'existing'; to: string; signInUrl: string };

/** What a sign-up mail sender gets beside the mail: the request's language and the theme, for a mail of your own. */
export interface SignUpMailContext {
  request: Request;
  locale: string;
  messages: Translator;
  theme: Theme;
}

/** Options of the Password provider's sign-up ({@link PasswordOptions.signUp}). */
export interface SignUpOptions {
  /**
   * When the account is made. `'after-verification'` (default): nothing is stored as a user until someone proves the
   * address by the mailed link or code, so nobody can take an address they do not own. `'at-once'`: the account is
   * made and signed in at once, its address unverified until the mailed link is opened; the real owner of the
   * address takes it over by proving the address (its password dropped, its sessions ended). With `'at-once'` the
   * answer to a sign-up tells whether the address had an account.
   */
  createAccount?: 'after-verification' | 'at-once';
  /** Seconds the mailed link and code stay valid (default 900, at most 3600). */
  maxAge?: number;
  /** Tries at the mailed code before it is spent (default 5). */
  maxAttempts?: number;
  /** Seconds before another mail may be asked for (default 60). */
  resendCooldown?: number;
  /** Refuses passwords known from breaches at sign-up; overrides the provider's `breached`. */
  breached?: BreachedLookup;
  /** The shortest password at sign-up, 8 (NIST's minimum) to 64; overrides the provider's `minLength` (default 8). */
  minLength?: number;
  /**
   * Sends the sign-up mails. Default: through the configuration's e-mail provider (its `server` and `from`), in the
   * reader's language.
   */
  send?: (mail: SignUpMail, context: SignUpMailContext) => Awaitable<void>;
}

/** The sign-up options with their defaults in. */
export type SignUpSettings = Required<Omit<SignUpOptions, 'breached' | 'send'>> & Pick<SignUpOptions, 'breached' | 'send'>;

/** The rules every flow that sets a password starts from: the provider's top-level `minLength` and `breached`. */
interface NewPasswordRules {
  minLength?: number;
  breached?: BreachedLookup;
}

/** The sign-up settings of `options` (defaults in; checked), its rules defaulting to the provider's `rules`. */
function signUpSettings(options: SignUpOptions | false | undefined, rules: NewPasswordRules): SignUpSettings | false {
  if (options === false) return false;
  const o = { ...options, minLength: options?.minLength ?? rules.minLength, breached: options?.breached ?? rules.breached };
  const settings: SignUpSettings = {
    createAccount: o.createAccount ?? 'after-verification',
    maxAge: o.maxAge ?? 900,
    maxAttempts: o.maxAttempts ?? 5,
    resendCooldown: o.resendCooldown ?? 60,
    minLength: o.minLength ?? 8,
    ...(o.breached ? { breached: o.breached } : {}),
    ...(o.send ? { send: o.send } : {}),
  };
  if (settings.createAccount !== 'after-verification' && settings.createAccount !== 'at-once') throw new TypeError(`signUp.createAccount must be 'after-verification' or 'at-once'.`);
  if (!Number.isInteger(settings.maxAge) || settings.maxAge < 60 || settings.maxAge > 3600) throw new TypeError('signUp.maxAge must be an integer from 60 to 3600 seconds.');
  if (!Number.isInteger(settings.maxAttempts) || settings.maxAttempts < 1 || settings.maxAttempts > 10) throw new TypeError('signUp.maxAttempts must be an integer from 1 to 10.');
  if (!Number.isInteger(settings.resendCooldown) || settings.resendCooldown < 0 || settings.resendCooldown > 3600) throw new TypeError('signUp.resendCooldown must be an integer from 0 to 3600 seconds.');
  if (!Number.isInteger(settings.minLength) || settings.minLength < 8 || settings.minLength > 64) throw new TypeError('signUp.minLength must be an integer from 8 to 64.');
  return settings;
}

/** What the built-in change-password flow (`{basePath}/flows/change-password`) does beside the defaults. */
export interface PasswordChangeOptions {
  /** How recent (seconds) the sign-in must be to change the password; older sessions verify again first. Default 300. */
  maxAge?: number;
  /** The shortest new password at a change (8 to 64); overrides the provider's `minLength` (default 8). */
  minLength?: number;
  /** Refuses new passwords known from breaches at a change; overrides the provider's `breached`. */
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
  /**
   * Sign-up at `{basePath}/signup/:id` (on by default: the address proven before the account exists), or `false`
   * when the app creates accounts itself.
   */
  signUp?: SignUpOptions | false;
  /**
   * The shortest password a person may choose, 8 (NIST's minimum, the default) to 64: the rule of every flow that
   * sets one (sign-up, recovery, change). `signUp.minLength` and `change.minLength` override it for their flow.
   */
  minLength?: number;
  /**
   * Refuses passwords known from breaches (`breachedRange()` or the app's own lookup) in every flow that sets one
   * (sign-up, recovery, change). `signUp.breached` and `change.breached` override it for their flow.
   */
  breached?: BreachedLookup;
  /** How the recovery mails (reset link and code, "your password was changed") are sent. */
  mail?: PasswordMailOptions;
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
  const { minLength, breached } = options;
  if (minLength !== undefined && (!Number.isInteger(minLength) || minLength < 8 || minLength > 64)) throw new TypeError('minLength must be an integer from 8 to 64.');
  const rules: NewPasswordRules = { ...(minLength !== undefined ? { minLength } : {}), ...(breached ? { breached } : {}) };
  // The change flow takes the provider's rules where its own options leave them out.
  const change: PasswordChangeOptions | undefined =
    options.change || minLength !== undefined || breached
      ? { ...options.change, ...(options.change?.minLength === undefined && minLength !== undefined ? { minLength } : {}), ...(!options.change?.breached && breached ? { breached } : {}) }
      : undefined;
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
    password: {
      hasher: options.hasher ?? defaultPasswordHasher(),
      ...(options.verifyImported ? { verifyImported: options.verifyImported } : {}),
      signUp: signUpSettings(options.signUp, rules),
      ...rules,
      ...(options.mail ? { mail: options.mail } : {}),
      ...(change ? { change } : {}),
    },
  };
}
