// Which message the sign-in page and the error page show for each sign-in error type. Its own module: the error
// page needs it without the sign-in page, and each page loads on its own (load.ts).
import type { MessageId } from '../../core/messages/en.js';

/** The message of each error type on the sign-in page (including the legacy codes older apps still send). */
export const signInErrorIds: Readonly<Record<string, MessageId>> = {
  CredentialsSignin: 'signin.error.CredentialsSignin',
  OAuthAccountNotLinked: 'signin.error.OAuthAccountNotLinked',
  AccountNotLinked: 'signin.error.AccountNotLinked',
  MissingCSRF: 'signin.error.MissingCSRF',
  OAuthCallbackError: 'signin.error.OAuthCallbackError',
  SsoAddressRefused: 'signin.error.SsoAddressRefused',
  SamlResponseRefused: 'signin.error.SamlResponseRefused',
  OAuthSignInError: 'signin.error.OAuthSignInError',
  AccessDenied: 'signin.error.AccessDenied',
  Verification: 'signin.error.Verification',
  EmailSignInError: 'signin.error.EmailSignInError',
  RateLimited: 'signin.error.RateLimited',
  ServiceUnavailable: 'signin.error.ServiceUnavailable',
  WebAuthnVerificationError: 'signin.error.WebAuthnVerificationError',
  Configuration: 'signin.error.Configuration',
  SessionRequired: 'signin.error.SessionRequired',
  OAuthSignin: 'signin.error.OAuthSignInError',
  OAuthCallback: 'signin.error.OAuthCallbackError',
  OAuthCreateAccount: 'signin.error.CreateAccount',
  EmailCreateAccount: 'signin.error.CreateAccount',
  Callback: 'signin.error.default',
  EmailSignin: 'signin.error.EmailSignInError',
};
