// Every failure authchart can report is one class here, with a stable `type` string.
// Only the client-safe types may reach a URL; everything else is shown as `Configuration`.

/** Evidence attached to an error: where it happened and what was expected. */
export interface ErrorCause extends Record<string, unknown> {
  err?: Error;
  /** Flow state the failure came from, when a machine raised it. */
  state?: string;
  /** Event that led to the failure. */
  event?: string;
  expected?: unknown;
  actual?: unknown;
}

export type ErrorKind = 'signIn' | 'error';

/**
 * Base class of every authchart error.
 *
 * @example
 * try { await auth.signIn('credentials', form) } catch (e) { if (e instanceof AuthError) console.log(e.type) }
 */
export class AuthError extends Error {
  /** Stable identifier of the error, used in logs and in `?error=` query strings. */
  static type = 'AuthError';
  /** `signIn` errors land on the sign-in page, the others on the error page. */
  static kind: ErrorKind = 'error';
  type: string;
  kind: ErrorKind;
  override cause?: ErrorCause;

  constructor(message?: string | Error | ErrorCause, cause?: ErrorCause) {
    let msg: string | undefined;
    let c: ErrorCause | undefined = cause;
    if (message instanceof Error) {
      msg = message.message;
      c = { err: message, ...cause };
    } else if (typeof message === 'object' && message !== null) {
      c = { ...message, ...cause };
      msg = c.err instanceof Error ? c.err.message : undefined;
    } else {
      msg = message;
    }
    super(msg);
    const ctor = new.target as typeof AuthError;
    this.name = ctor.type;
    this.type = ctor.type;
    this.kind = ctor.kind;
    this.cause = c;
    if (!this.message) this.message = ctor.type;
  }
}

/** Errors whose user-facing page is the sign-in page. */
export class SignInError extends AuthError {
  static override kind: ErrorKind = 'signIn';
}

// ---- client-safe sign-in errors -------------------------------------------------

/**
 * Thrown from a credentials provider's `authorize` (or produced when it returns null).
 * `code` is placed in the URL, so keep it generic.
 *
 * @example
 * class InvalidLogin extends CredentialsSignin { code = 'invalid_login' }
 */
export class CredentialsSignin extends SignInError {
  static override type = 'CredentialsSignin';
  code = 'credentials';
}
export class OAuthAccountNotLinked extends SignInError {
  static override type = 'OAuthAccountNotLinked';
}
export class OAuthCallbackError extends SignInError {
  static override type = 'OAuthCallbackError';
}
export class AccountNotLinked extends SignInError {
  static override type = 'AccountNotLinked';
}
export class MissingCSRF extends SignInError {
  static override type = 'MissingCSRF';
}
export class OAuthSignInError extends SignInError {
  static override type = 'OAuthSignInError';
}
export class EmailSignInError extends SignInError {
  static override type = 'EmailSignInError';
}
/**
 * Too many sign-in attempts from this client or for this account: answered with 429 and `Retry-After`; nothing was
 * sent or created. (A throttle store that is down is a `ServiceUnavailable`, 503.)
 *
 * @example
 * if (error instanceof RateLimited) console.log(`retry in ${error.retryAfter} s`)
 */
export class RateLimited extends SignInError {
  static override type = 'RateLimited';
  /** Seconds until a retry may succeed. */
  retryAfter = 0;
}

// ---- client-safe errors shown on the error page ---------------------------------

export class AccessDenied extends AuthError {
  static override type = 'AccessDenied';
}
export class Verification extends AuthError {
  static override type = 'Verification';
}
export class WebAuthnVerificationError extends AuthError {
  static override type = 'WebAuthnVerificationError';
}
/**
 * A sign-in stopped at the second-factor stage: too many wrong codes, a pending check that expired or was used
 * already. No session was issued; the user starts the sign-in again.
 */
export class SecondFactorFailed extends AuthError {
  static override type = 'SecondFactorFailed';
}
/**
 * The second-factor check waited too long (10 minutes, or less for a fresh-sign-in level) and was dropped: no code
 * was wrong. No session was issued; the user signs in again and gets a new check.
 */
export class SecondFactorExpired extends SecondFactorFailed {
  static override type = 'SecondFactorExpired';
}

// ---- server-side errors (shown as Configuration) --------------------------------

export class AdapterError extends AuthError {
  static override type = 'AdapterError';
}
/**
 * A store (the adapter's database, the throttle's or the flow store's Redis) did not answer within its deadline or
 * could not be reached: answered with 503 and `Retry-After`, never as "signed out", "too many attempts" or
 * `Configuration`. An `AdapterError` still (`instanceof AdapterError`), so code that handles a failing adapter
 * handles an outage too.
 *
 * @example
 * if (error instanceof ServiceUnavailable) console.log(`try again in ${error.retryAfter} s`)
 */
export class ServiceUnavailable extends AdapterError {
  static override type = 'ServiceUnavailable';
  /** Seconds a client is asked to wait before trying again. */
  retryAfter = 5;
}
export class CallbackRouteError extends AuthError {
  static override type = 'CallbackRouteError';
}
export class ErrorPageLoop extends AuthError {
  static override type = 'ErrorPageLoop';
}
export class EventError extends AuthError {
  static override type = 'EventError';
}
export class InvalidCallbackUrl extends AuthError {
  static override type = 'InvalidCallbackUrl';
}
export class InvalidEndpoints extends AuthError {
  static override type = 'InvalidEndpoints';
}
export class InvalidCheck extends AuthError {
  static override type = 'InvalidCheck';
}
export class JWTSessionError extends AuthError {
  static override type = 'JWTSessionError';
}
export class MissingAdapter extends AuthError {
  static override type = 'MissingAdapter';
}
export class MissingAdapterMethods extends AuthError {
  static override type = 'MissingAdapterMethods';
}
export class MissingAuthorize extends AuthError {
  static override type = 'MissingAuthorize';
}
export class MissingSecret extends AuthError {
  static override type = 'MissingSecret';
}
/** The spec's name for {@link MissingSecret}. */
export { MissingSecret as MissingSecretError };
export class OAuthProfileParseError extends AuthError {
  static override type = 'OAuthProfileParseError';
}
export class SessionTokenError extends AuthError {
  static override type = 'SessionTokenError';
}
export class SignOutError extends AuthError {
  static override type = 'SignOutError';
}
export class UnknownAction extends AuthError {
  static override type = 'UnknownAction';
}
export class UnsupportedStrategy extends AuthError {
  static override type = 'UnsupportedStrategy';
}
export class InvalidProvider extends AuthError {
  static override type = 'InvalidProvider';
}
export class DuplicateProviderId extends AuthError {
  static override type = 'DuplicateProviderId';
}
export class UntrustedHost extends AuthError {
  static override type = 'UntrustedHost';
}
export class DuplicateConditionalUI extends AuthError {
  static override type = 'DuplicateConditionalUI';
}
export class MissingWebAuthnAutocomplete extends AuthError {
  static override type = 'MissingWebAuthnAutocomplete';
}
export class ExperimentalFeatureNotEnabled extends AuthError {
  static override type = 'ExperimentalFeatureNotEnabled';
}
/**
 * An API form that needs the request being answered (`auth()`, `unstable_update(data)`, `signIn`/`signOut` on a
 * server) was called where there is none: outside the middleware or handler wrappers that make it known, or with
 * an argument that is no request. The message says which form to use instead.
 */
export class MissingRequestContext extends AuthError {
  static override type = 'MissingRequestContext';
}
/** A request body the server refuses to read (malformed, repeated keys, too large). */
export class InvalidRequest extends AuthError {
  static override type = 'InvalidRequest';
}

/** Which password rule a password breaks ({@link InvalidPassword}). */
export type PasswordProblem = 'too_short' | 'too_long' | 'not_a_string' | 'nul' | 'invalid_utf16' | 'breached';

/**
 * A password refused by the password rules before any hash is computed: too short or too long, not one string, a NUL
 * character or text that is not valid UTF-16 (a lone surrogate), or a known breached password. `problem` (also
 * `cause.problem`) says which; at sign-in it answers 400 like any malformed form (`InvalidRequest` for a client).
 *
 * @example
 * try { checkPasswordRules(password) } catch (e) { if (e instanceof InvalidPassword) console.log(e.problem) }
 */
export class InvalidPassword extends InvalidRequest {
  static override type = 'InvalidPassword';
  /** Which rule the password breaks. */
  get problem(): PasswordProblem | undefined {
    return this.cause?.problem as PasswordProblem | undefined;
  }
}

/**
 * A provider access token could not be refreshed: the provider refused the refresh token (revoked grant, reused
 * or expired refresh token: the user must sign in with the provider again) or could not be reached. The session
 * of a user whose refresh was refused shows `error: 'RefreshTokenError'`, as Auth.js apps set it themselves.
 */
export class RefreshTokenError extends AuthError {
  static override type = 'RefreshTokenError';
}

/**
 * An organization action refused: the user is not a member of the organization (or it does not exist: the two read
 * alike), their role lacks `cause.permission`, or the role they would hand out or take away grants more than theirs.
 * Answers 403; a signed-out request answers 401 (`SessionRequired`) before this is asked.
 *
 * @example
 * try { await requireOrganization(event, config, { permission: 'invoice:approve' }) } catch (e) { if (e instanceof OrganizationForbidden) ... }
 */
export class OrganizationForbidden extends AuthError {
  static override type = 'OrganizationForbidden';
}

/** A helper that acts for a signed-in user (`requireOrganization` outside h3) found nobody signed in. Answers 401. */
export class SessionRequired extends AuthError {
  static override type = 'SessionRequired';
}

/** A change refused because it would leave the organization without an owner (the last owner leaving or demoted). Answers 409. */
export class LastOwner extends AuthError {
  static override type = 'LastOwner';
}

// ---- enterprise SSO (issue 49) ----------------------------------------------------

/**
 * An SSO sign-in refused for its address: the identity provider asserted (or the person typed) an address whose
 * domain is not a verified domain of the connection's organization routed to that connection, or no address at all.
 * The IdP of one tenant never signs anyone in under another tenant's domain. Client-safe: the error page says so. A
 * kind of OAuthCallbackError (the provider's answer is refused), reported as itself.
 */
export class SsoAddressRefused extends OAuthCallbackError {
  static override type = 'SsoAddressRefused';
}

/**
 * A SAML response refused at the assertion consumer service: not signed by the connection's IdP, meant for another
 * service provider or request, expired, replayed, malformed, or built to trick a parser (DTD, a second assertion, a
 * comment in the NameID). `cause.reason` says which check failed. Client-safe: the sign-in page says the
 * organization's sign-in service sent an answer that could not be accepted.
 */
export class SamlResponseRefused extends OAuthCallbackError {
  static override type = 'SamlResponseRefused';
}

/** A domain claim refused: another organization verified it first (409), or it is no domain name (400). */
export class SsoDomainRefused extends AuthError {
  static override type = 'SsoDomainRefused';
}

/** A domain's TXT record was not found (yet): the claim stays unverified. Answers 409; try again once DNS has it. */
export class SsoDomainUnverified extends AuthError {
  static override type = 'SsoDomainUnverified';
}

/** No such SSO connection or domain in the caller's active organization (another tenant's id reads the same). 404. */
export class SsoNotFound extends AuthError {
  static override type = 'SsoNotFound';
}

/** Error types that may appear in a URL; every other type is reported as `Configuration`. */
export const clientSafeErrorTypes: ReadonlySet<string> = new Set([
  CredentialsSignin.type,
  OAuthAccountNotLinked.type,
  OAuthCallbackError.type,
  AccessDenied.type,
  Verification.type,
  MissingCSRF.type,
  AccountNotLinked.type,
  WebAuthnVerificationError.type,
  EmailSignInError.type,
  RateLimited.type,
  SecondFactorFailed.type,
  SecondFactorExpired.type,
  InvalidRequest.type,
  ServiceUnavailable.type,
  SsoAddressRefused.type,
  SamlResponseRefused.type,
]);

/** The type to show a client for an error: itself when client-safe, else `Configuration`. */
export function publicErrorType(error: unknown): string {
  if (error instanceof AuthError && clientSafeErrorTypes.has(error.type)) return error.type;
  return 'Configuration';
}

/**
 * A webhook endpoint in the configuration that cannot be used: a URL that is not http(s) or carries credentials, a
 * secret that is not a Standard Webhooks `whsec_` secret, or an id that is missing or repeated. Thrown at start.
 */
export class InvalidWebhookEndpoint extends AuthError {
  static override type = 'InvalidWebhookEndpoint';
}

/** Wraps anything thrown into an AuthError of the given class, keeping AuthErrors as they are. */
export function toAuthError(error: unknown, Fallback: new (m?: string | Error | ErrorCause, c?: ErrorCause) => AuthError, cause?: ErrorCause): AuthError {
  if (error instanceof AuthError) return error;
  if (error instanceof Error) return new Fallback(error, cause);
  return new Fallback(String(error), cause);
}

const allErrorClasses = [
  AuthError, SignInError, CredentialsSignin, OAuthAccountNotLinked, OAuthCallbackError, AccountNotLinked, MissingCSRF,
  OAuthSignInError, EmailSignInError, AccessDenied, Verification, WebAuthnVerificationError, AdapterError, CallbackRouteError,
  ErrorPageLoop, EventError, InvalidCallbackUrl, InvalidEndpoints, InvalidCheck, JWTSessionError, MissingAdapter,
  MissingAdapterMethods, MissingAuthorize, MissingSecret, OAuthProfileParseError, SessionTokenError, SignOutError,
  UnknownAction, UnsupportedStrategy, InvalidProvider, DuplicateProviderId, UntrustedHost, DuplicateConditionalUI,
  MissingWebAuthnAutocomplete, ExperimentalFeatureNotEnabled, InvalidRequest, RateLimited, MissingRequestContext, SecondFactorFailed, SecondFactorExpired,
  RefreshTokenError, ServiceUnavailable, InvalidPassword, OrganizationForbidden, LastOwner, SessionRequired,
  SsoAddressRefused, SsoDomainRefused, SsoDomainUnverified, SsoNotFound, SamlResponseRefused,
  InvalidWebhookEndpoint,
];

/** Error classes by their `type`, so a machine's failure state can name its error as data. */
export const errorClassesByType: ReadonlyMap<string, typeof AuthError> = new Map(allErrorClasses.map((c) => [c.type, c]));
