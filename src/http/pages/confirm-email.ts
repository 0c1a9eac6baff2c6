// The magic-link confirmation page. Opening a link (GET) only shows this page; the token is consumed by
// the POST its button sends, so mail scanners that prefetch links cannot use it up. It names the address only
// when the flow found a stored token for it: the address in a link is whatever its writer put there.

import { attr, html, safeUrl } from '../../core/html-escape.js';
import { english } from '../../core/messages/english.js';
import { type Translator } from '../../core/messages/translator.js';
import { rich } from './text.js';
import { layout, type Theme } from './theme.js';

/** Input of {@link renderConfirmEmail}. */
export interface ConfirmEmailPageParams {
  theme: Theme;
  /** Where the button POSTs (the e-mail provider's callback URL). */
  actionUrl: string;
  /** Sent back as they are (token, email, callbackUrl, ...). */
  hiddenFields: Record<string, string>;
  /** The address a stored token backs; without it the page asks to continue signing in, naming no one. */
  email?: string;
  /** The response's Content-Security-Policy nonce, put on the page's style. */
  nonce?: string;
  /** The page's language; English when absent. */
  i18n?: Translator;
}

/**
 * Renders "Sign in as {email}?" (or "Continue signing in?" without a checked address) with one button that POSTs
 * the hidden fields to `actionUrl`.
 *
 * @example
 * renderConfirmEmail({ theme: {}, actionUrl: '/auth/callback/email', hiddenFields: { token, email }, email })
 */
export function renderConfirmEmail(params: ConfirmEmailPageParams): string {
  const action = safeUrl(params.actionUrl);
  const i18n = params.i18n ?? english;
  const hidden = Object.entries(params.hiddenFields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  const heading = params.email ? rich(i18n, 'confirm.heading', { email: html`<span class="email">${params.email}</span>` }) : i18n.t('confirm.headingAnonymous');
  const body = html`<h1>${heading}</h1>
<p class="muted center">${i18n.t('confirm.note')}</p>
${
  action
    ? html`<form method="post"${attr('action', action)}>
${hidden}
<button type="submit" class="button">${i18n.t('common.signIn')}</button>
</form>`
    : html`<p class="muted center">${i18n.t('confirm.unusable')}</p>`
}`;
  return layout({ title: i18n.t('confirm.title'), theme: params.theme, body, css: '.email{overflow-wrap:anywhere}', nonce: params.nonce, i18n });
}
