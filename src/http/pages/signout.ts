// The built-in sign-out page: a confirmation, because signing out by GET would let any page sign a user out; a
// visitor who is not signed in is told so instead of being asked.

import { attr, html, safeUrl } from '../../core/html-escape.js';
import { english } from '../../core/messages/english.js';
import { type Translator } from '../../core/messages/translator.js';
import { rich } from './text.js';
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
  /** The page's language; English when absent. */
  i18n?: Translator;
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
  const i18n = params.i18n ?? english;
  const title = i18n.t('signout.title');
  if (params.signedInAs === null) {
    const signin = safeUrl(params.signinUrl ?? `${params.basePath}/signin`);
    const next = safeUrl(params.callbackUrl);
    const body = html`<h1>${title}</h1>
<p class="muted center">${i18n.t('signout.notSignedIn')}</p>
${signin ? html`<a class="button primary"${attr('href', signin)}>${i18n.t('common.signIn')}</a>` : ''}
${next ? html`<p class="center"><a${attr('href', next)}>${i18n.t('signout.continueWithout')}</a></p>` : ''}`;
    return layout({ title, theme: params.theme, body, nonce: params.nonce, i18n });
  }
  const who = params.signedInAs ? html`<p class="center">${rich(i18n, 'signout.signedInAs', { who: html`<strong>${breakable(params.signedInAs)}</strong>` })}</p>` : '';
  const body = html`<h1>${title}</h1>
${who}
<p class="muted center">${i18n.t('signout.question')}</p>
<form method="post"${attr('action', action)}>
<input type="hidden" name="csrfToken" value="${params.csrfToken}"><input type="hidden" name="callbackUrl" value="${params.callbackUrl}">
<button type="submit" class="button primary">${i18n.t('signout.button')}</button>
</form>`;
  return layout({ title, theme: params.theme, body, nonce: params.nonce, i18n });
}
