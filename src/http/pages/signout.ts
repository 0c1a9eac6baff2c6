// The built-in sign-out page: a confirmation, because signing out by GET would let any page sign a user out.

import { attr, html, safeUrl } from '../../core/html-escape.js';
import { layout, type Theme } from './theme.js';

/** Input of {@link renderSignOut}. */
export interface SignOutPageParams {
  csrfToken: string;
  /** Where to go after signing out; posted back with the form. */
  callbackUrl: string;
  theme: Theme;
  basePath: string;
  /** Full URL of `POST {basePath}/signout`. */
  signoutUrl: string;
  /** The response's Content-Security-Policy nonce, put on the page's style. */
  nonce?: string;
}

/**
 * Renders the "Are you sure you want to sign out?" page, whose button POSTs to `signoutUrl`.
 *
 * @example
 * renderSignOut({ csrfToken, callbackUrl: '/', theme: {}, basePath: '/auth', signoutUrl: '/auth/signout' })
 */
export function renderSignOut(params: SignOutPageParams): string {
  // A dropped action would post to the page itself, which is harmless; the route re-checks CSRF anyway.
  const action = safeUrl(params.signoutUrl);
  const body = html`<h1>Sign out</h1>
<p class="muted center">Are you sure you want to sign out?</p>
<form method="post"${attr('action', action)}>
<input type="hidden" name="csrfToken" value="${params.csrfToken}"><input type="hidden" name="callbackUrl" value="${params.callbackUrl}">
<button type="submit" class="button">Sign out</button>
</form>`;
  return layout({ title: 'Sign out', theme: params.theme, body, nonce: params.nonce });
}
