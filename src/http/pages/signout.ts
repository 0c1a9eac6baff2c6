// The built-in sign-out page: a confirmation, because signing out by GET would let any page sign a user out; a
// visitor who is not signed in is told so instead of being asked.

import { attr, html, safeUrl } from '../../core/html-escape.js';
import { breakable, layout, type Theme } from './theme.js';

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
  /** Who is signed in (named in the question); `null` when no one is: the page then says so and offers no button. */
  signedInAs?: string | null;
  /** Where a visitor who is not signed in goes on (the sign-in page). */
  signinUrl?: string;
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
  if (params.signedInAs === null) {
    const signin = safeUrl(params.signinUrl ?? `${params.basePath}/signin`);
    const next = safeUrl(params.callbackUrl);
    const body = html`<h1>Sign out</h1>
<p class="muted center">You are not signed in, so there is nothing to sign out of.</p>
${signin ? html`<a class="button primary"${attr('href', signin)}>Sign in</a>` : ''}
${next ? html`<p class="center"><a${attr('href', next)}>Continue without signing in</a></p>` : ''}`;
    return layout({ title: 'Sign out', theme: params.theme, body, nonce: params.nonce });
  }
  const who = params.signedInAs ? html`<p class="center">Signed in as <strong>${breakable(params.signedInAs)}</strong>.</p>` : '';
  const body = html`<h1>Sign out</h1>
${who}
<p class="muted center">Are you sure you want to sign out?</p>
<form method="post"${attr('action', action)}>
<input type="hidden" name="csrfToken" value="${params.csrfToken}"><input type="hidden" name="callbackUrl" value="${params.callbackUrl}">
<button type="submit" class="button primary">Sign out</button>
</form>`;
  return layout({ title: 'Sign out', theme: params.theme, body, nonce: params.nonce });
}
