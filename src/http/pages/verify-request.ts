// The built-in page shown after a magic link was sent: names the address, and offers to send the link again or to
// use another address.

import { attr, html, safeUrl } from '../../core/html-escape.js';
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
}

/** "Back to example.com" reads better than a bare link, when the host can be read from the URL. */
export function homeLinkText(homeUrl: string): string {
  try {
    return `Back to ${new URL(homeUrl).host}`;
  } catch {
    return 'Back to the home page';
  }
}

/**
 * Renders the "Check your email" page.
 *
 * @example
 * renderVerifyRequest({ theme: {}, basePath: '/auth', homeUrl: 'https://example.com', email: 'ada@example.com' })
 */
export function renderVerifyRequest(params: VerifyRequestPageParams): string {
  const home = safeUrl(params.homeUrl);
  const sentTo = params.email ? html`<strong>${breakable(params.email)}</strong>` : 'your email address';
  const resend = params.email && params.resend ? safeUrl(params.resend.actionUrl) : undefined;
  const change = safeUrl(params.changeUrl);
  const body = html`<h1>Check your email</h1>
<p class="center">A sign in link has been sent to ${sentTo}.</p>
<p class="muted center">Open the link in that email to finish signing in. You can close this page.</p>
${
  resend && params.resend
    ? html`<form method="post"${attr('action', resend)}><input type="hidden" name="csrfToken" value="${params.resend.csrfToken}"><input type="hidden" name="callbackUrl" value="${params.resend.callbackUrl}"><input type="hidden" name="email" value="${params.email}">
<p class="muted small center">No email after a few minutes? Check your spam folder, or</p>
<button type="submit" class="button secondary">Resend the link</button></form>`
    : ''
}
${change ? html`<p class="center small"><a${attr('href', change)}>${params.email ? 'Use a different address' : 'Back to sign in'}</a></p>` : ''}
${home ? html`<p class="center small"><a${attr('href', home)}>${homeLinkText(params.homeUrl)}</a></p>` : ''}`;
  return layout({ title: 'Check your email', theme: params.theme, body, nonce: params.nonce });
}
