// The built-in page shown after a magic link was sent: names the address, and offers to send the link again or to
// use another address.

import { attr, html, safeUrl } from '../../core/html-escape.js';
import { english } from '../../core/messages/english.js';
import { type Translator } from '../../core/messages/translator.js';
import { homeLinkText, rich } from './text.js';
import { breakable, layout, type Theme } from './theme.js';

/** Input of {@link renderVerifyRequest}. */
export interface VerifyRequestPageParams {
  theme: Theme;
  basePath: string;
  /** The application's home page, linked at the bottom. */
  homeUrl: string;
  /** The address the link went to, when known. */
  email?: string;
  /** The response's Content-Security-Policy nonce, put on the page's style. */
  nonce?: string;
  /** Sends the link again (to `email`): the e-mail provider's sign-in URL and what its form posts. */
  resend?: { actionUrl: string; csrfToken: string; callbackUrl: string };
  /** The sign-in page, to use another address. */
  changeUrl?: string;
  /** The page's language; English when absent. */
  i18n?: Translator;
}

/**
 * Renders the "Check your email" page.
 *
 * @example
 * renderVerifyRequest({ theme: {}, basePath: '/auth', homeUrl: 'https://example.com', email: 'ada@example.com' })
 */
export function renderVerifyRequest(params: VerifyRequestPageParams): string {
  const i18n = params.i18n ?? english;
  const home = safeUrl(params.homeUrl);
  const sentTo = params.email ? html`<strong>${breakable(params.email)}</strong>` : i18n.t('verify.yourAddress');
  const resend = params.email && params.resend ? safeUrl(params.resend.actionUrl) : undefined;
  const change = safeUrl(params.changeUrl);
  const body = html`<h1>${i18n.t('verify.title')}</h1>
<p class="center">${rich(i18n, 'verify.sentTo', { address: sentTo })}</p>
<p class="muted center">${i18n.t('verify.open')}</p>
${
  resend && params.resend
    ? html`<form method="post"${attr('action', resend)}><input type="hidden" name="csrfToken" value="${params.resend.csrfToken}"><input type="hidden" name="callbackUrl" value="${params.resend.callbackUrl}"><input type="hidden" name="email" value="${params.email}">
<p class="muted small center">${i18n.t('verify.noMail')}</p>
<button type="submit" class="button secondary">${i18n.t('verify.resend')}</button></form>`
    : ''
}
${change ? html`<p class="center small"><a${attr('href', change)}>${i18n.t(params.email ? 'verify.change' : 'verify.back')}</a></p>` : ''}
${home ? html`<p class="center small"><a${attr('href', home)}>${homeLinkText(params.homeUrl, i18n)}</a></p>` : ''}`;
  return layout({ title: i18n.t('verify.title'), theme: params.theme, body, nonce: params.nonce, i18n });
}
