// The built-in pages load one by one, each with the first request that shows it (sign-in, sign-out, error,
// check-your-email, a flow's form): a server that only answers session checks and API calls loads none, and a
// browser that signs in from the sign-in page loads that page and its theme, not the error, sign-up or form pages.
import { lazy } from '../../core/lazy.js';

/** The sign-in page. */
export const loadSignInPage = lazy(() => import('./signin.js'));
/** The error page: a failed or refused sign-in, an outage, too many attempts. */
export const loadErrorPage = lazy(() => import('./error.js'));
/** The sign-out confirmation page. */
export const loadSignOutPage = lazy(() => import('./signout.js'));
/** "Check your e-mail", after a link or code was sent. */
export const loadVerifyRequestPage = lazy(() => import('./verify-request.js'));
/** A paused flow's form (a second factor, an invitation, an app's own flow). */
export const loadFormPage = lazy(() => import('./form.js'));
/** The sign-up form of a password provider. */
export const loadSignUpPage = lazy(() => import('./signup.js'));
/** The page that asks a magic link's visitor to confirm before the token is spent. */
export const loadConfirmEmailPage = lazy(() => import('./confirm-email.js'));
