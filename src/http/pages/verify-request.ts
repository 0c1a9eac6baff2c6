// The built-in page shown after a magic link was sent: tells the user to check their inbox.

import { attr, html, safeUrl } from '../../core/html-escape.js';
import { layout, type Theme } from './theme.js';

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
  const sentTo = params.email ? html`<strong>${params.email}</strong>` : 'your email address';
  const body = html`<h1>Check your email</h1>
<p class="muted center">A sign in link has been sent to ${sentTo}.</p>
<p class="muted center">Open the link in that email to finish signing in. You can close this page.</p>
${home ? html`<p class="center"><a${attr('href', home)}>${homeLinkText(params.homeUrl)}</a></p>` : ''}`;
  return layout({ title: 'Check your email', theme: params.theme, body, nonce: params.nonce });
}
