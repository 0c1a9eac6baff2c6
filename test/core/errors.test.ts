import { describe, expect, it } from 'vitest';
import * as errors from '../../src/core/errors.js';
import {
  AccessDenied,
  AuthError,
  CallbackRouteError,
  CredentialsSignin,
  errorClassesByType,
  publicErrorType,
  SignInError,
  toAuthError,
} from '../../src/core/errors.js';

type ErrorClass = typeof AuthError;

/** Every concrete error type of the reference's table (plus authchart's own), with its kind. */
const expected: [name: string, type: string, kind: 'signIn' | 'error'][] = [
  ['CredentialsSignin', 'CredentialsSignin', 'signIn'],
  ['OAuthAccountNotLinked', 'OAuthAccountNotLinked', 'signIn'],
  ['OAuthCallbackError', 'OAuthCallbackError', 'signIn'],
  ['AccountNotLinked', 'AccountNotLinked', 'signIn'],
  ['MissingCSRF', 'MissingCSRF', 'signIn'],
  ['OAuthSignInError', 'OAuthSignInError', 'signIn'],
  ['EmailSignInError', 'EmailSignInError', 'signIn'],
  ['RateLimited', 'RateLimited', 'signIn'],
  ['AccessDenied', 'AccessDenied', 'error'],
  ['Verification', 'Verification', 'error'],
  ['WebAuthnVerificationError', 'WebAuthnVerificationError', 'error'],
  ['SecondFactorFailed', 'SecondFactorFailed', 'error'],
  ['SecondFactorExpired', 'SecondFactorExpired', 'error'],
  ['RefreshTokenError', 'RefreshTokenError', 'error'],
  ['ServiceUnavailable', 'ServiceUnavailable', 'error'],
  ['AdapterError', 'AdapterError', 'error'],
  ['CallbackRouteError', 'CallbackRouteError', 'error'],
  ['ErrorPageLoop', 'ErrorPageLoop', 'error'],
  ['EventError', 'EventError', 'error'],
  ['InvalidCallbackUrl', 'InvalidCallbackUrl', 'error'],
  ['InvalidEndpoints', 'InvalidEndpoints', 'error'],
  ['InvalidCheck', 'InvalidCheck', 'error'],
  ['JWTSessionError', 'JWTSessionError', 'error'],
  ['MissingAdapter', 'MissingAdapter', 'error'],
  ['MissingAdapterMethods', 'MissingAdapterMethods', 'error'],
  ['MissingAuthorize', 'MissingAuthorize', 'error'],
  ['MissingSecret', 'MissingSecret', 'error'],
  ['MissingSecretError', 'MissingSecret', 'error'],
  ['OAuthProfileParseError', 'OAuthProfileParseError', 'error'],
  ['SessionTokenError', 'SessionTokenError', 'error'],
  ['SignOutError', 'SignOutError', 'error'],
  ['UnknownAction', 'UnknownAction', 'error'],
  ['UnsupportedStrategy', 'UnsupportedStrategy', 'error'],
  ['InvalidProvider', 'InvalidProvider', 'error'],
  ['DuplicateProviderId', 'DuplicateProviderId', 'error'],
  ['UntrustedHost', 'UntrustedHost', 'error'],
  ['DuplicateConditionalUI', 'DuplicateConditionalUI', 'error'],
  ['MissingWebAuthnAutocomplete', 'MissingWebAuthnAutocomplete', 'error'],
  ['ExperimentalFeatureNotEnabled', 'ExperimentalFeatureNotEnabled', 'error'],
  ['InvalidRequest', 'InvalidRequest', 'error'],
  ['InvalidPassword', 'InvalidPassword', 'error'],
  ['MissingRequestContext', 'MissingRequestContext', 'error'],
  ['OrganizationForbidden', 'OrganizationForbidden', 'error'],
  ['LastOwner', 'LastOwner', 'error'],
  ['SessionRequired', 'SessionRequired', 'error'],
  ['SsoAddressRefused', 'SsoAddressRefused', 'signIn'],
  ['SsoDomainRefused', 'SsoDomainRefused', 'error'],
  ['SsoDomainUnverified', 'SsoDomainUnverified', 'error'],
  ['SsoNotFound', 'SsoNotFound', 'error'],
  ['SamlResponseRefused', 'SamlResponseRefused', 'signIn'],
  ['InvalidWebhookEndpoint', 'InvalidWebhookEndpoint', 'error'],
];

/**
 * The types a client may see in `?error=`; the reference's eight, plus EmailSignInError, RateLimited,
 * SecondFactorFailed, InvalidRequest (the client's own bad request) and ServiceUnavailable (a store outage); their
 * pages have a message.
 */
const clientSafe = new Set([
  'CredentialsSignin', 'OAuthAccountNotLinked', 'OAuthCallbackError', 'AccessDenied', 'Verification', 'MissingCSRF',
  'AccountNotLinked', 'WebAuthnVerificationError', 'EmailSignInError', 'RateLimited', 'SecondFactorFailed', 'InvalidRequest', 'ServiceUnavailable',
  // A factor check that waited too long: its own words, "no code was wrong".
  'SecondFactorExpired',
  // An SSO sign-in refused for its address (issue 49): the sign-in page says why.
  'SsoAddressRefused',
  // A SAML response refused at the ACS: the sign-in page says the IdP's answer could not be accepted.
  'SamlResponseRefused',
]);

const classOf = (name: string) => (errors as unknown as Record<string, ErrorClass>)[name]!;

describe('error classes', () => {
  it.each(expected)('%s has type %s and kind %s, on the class and on instances', (name, type, kind) => {
    const Cls = classOf(name);
    expect(Cls).toBeTypeOf('function');
    const error = new Cls('something failed');
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toBeInstanceOf(Error);
    expect(Cls.type).toBe(type);
    expect(error.type).toBe(type);
    expect(error.kind).toBe(kind);
    expect(error.name).toBe(type);
    expect(error.message).toBe('something failed');
    expect(error instanceof SignInError).toBe(kind === 'signIn');
  });

  it('lists every exported error class in this table', () => {
    const exported = Object.entries(errors)
      .filter(([, value]) => typeof value === 'function' && value.prototype instanceof AuthError && value !== SignInError)
      .map(([name]) => name)
      .sort();
    expect(exported).toEqual(expected.map(([name]) => name).sort());
  });

  it('has a distinct type per class, and the runtime finds each class by its type', () => {
    const classes = [...new Set(expected.map(([name]) => classOf(name)))];
    const types = classes.map((c) => c.type);
    expect(new Set(types).size).toBe(types.length);
    for (const Cls of classes) expect(errorClassesByType.get(Cls.type)).toBe(Cls);
  });

  it('uses the type as the message when none is given', () => {
    expect(new AccessDenied().message).toBe('AccessDenied');
  });

  it('keeps a wrapped error as cause.err with its message, and merges the evidence', () => {
    const original = new Error('database is down');
    const error = new CallbackRouteError(original, { state: 'authorizing', event: 'SUBMIT' });
    expect(error.message).toBe('database is down');
    expect(error.cause).toEqual({ err: original, state: 'authorizing', event: 'SUBMIT' });
  });

  it('accepts evidence as the first argument', () => {
    const error = new CallbackRouteError({ expected: 'a', actual: 'b' });
    expect(error.cause).toEqual({ expected: 'a', actual: 'b' });
    expect(error.message).toBe('CallbackRouteError');
  });

  it('wraps anything thrown with toAuthError, but keeps AuthErrors as they are', () => {
    const denied = new AccessDenied('no');
    expect(toAuthError(denied, CallbackRouteError)).toBe(denied);
    const wrapped = toAuthError(new TypeError('boom'), CallbackRouteError);
    expect(wrapped).toBeInstanceOf(CallbackRouteError);
    expect(wrapped.cause?.err).toBeInstanceOf(TypeError);
    const fromString = toAuthError('plain string', CallbackRouteError);
    expect(fromString).toBeInstanceOf(CallbackRouteError);
    expect(fromString.message).toBe('plain string');
  });
});

describe('publicErrorType', () => {
  it.each(expected)('shows %s to the client as its own type only when client-safe', (name, type) => {
    const error = new (classOf(name))('detail');
    expect(publicErrorType(error)).toBe(clientSafe.has(type) ? type : 'Configuration');
  });

  it('reports plain errors and non-errors as Configuration', () => {
    expect(publicErrorType(new Error('secret detail'))).toBe('Configuration');
    expect(publicErrorType('AccessDenied')).toBe('Configuration');
    expect(publicErrorType({ type: 'AccessDenied' })).toBe('Configuration');
    expect(publicErrorType(undefined)).toBe('Configuration');
  });
});

describe('CredentialsSignin', () => {
  it('has the generic code "credentials" by default', () => {
    expect(new CredentialsSignin().code).toBe('credentials');
  });

  it('lets a subclass choose its code and keeps the CredentialsSignin type', () => {
    class WrongPassword extends CredentialsSignin {
      override code = 'bad_pw';
    }
    const error = new WrongPassword('password mismatch');
    expect(error.code).toBe('bad_pw');
    expect(error.type).toBe('CredentialsSignin');
    expect(error.kind).toBe('signIn');
    expect(error).toBeInstanceOf(CredentialsSignin);
    expect(publicErrorType(error)).toBe('CredentialsSignin');
  });
});
