// The built-in HTML pages (sign-in, sign-out, error, verify-request, magic-link confirmation, a flow's form) and
// their helpers, in one place for the tests. The routes load each page on its own (load.ts), never this module.

export { renderSignIn, signInErrorMessages, type PageProvider, type SignInPageParams } from './signin.js';
export { renderSignOut, type SignOutPageParams } from './signout.js';
export { renderError, errorPageStatus, type ErrorPageParams } from './error.js';
export { renderVerifyRequest, type VerifyRequestPageParams } from './verify-request.js';
export { renderConfirmEmail, type ConfirmEmailPageParams } from './confirm-email.js';
export { renderFormPage, type FormPageParams } from './form.js';
export { renderSignUp, type SignUpPageParams } from './signup.js';
export { layout, themeCss, type Theme, type LayoutParams } from './theme.js';
export { escapeHtml, safeUrl, html, raw, attr, SafeHtml, type HtmlValue, type SafeUrlOptions } from '../../core/html-escape.js';
export { safeColor } from '../../core/color.js';
