// The magic-link confirmation page. Opening a link (GET) only shows this page; the token is consumed by
// the POST its button sends, so mail scanners that prefetch links cannot use it up.

import { attr, html, safeUrl } from './escape.js';
import { layout, type Theme } from './theme.js';

/** Input of {@link renderConfirmEmail}. */
export interface ConfirmEmailPageParams {
  theme: Theme;
  /** Where the button POSTs (the e-mail provider's callback URL). */
  actionUrl: string;
  /** Sent back as they are (token, email, callbackUrl, ...). */
  hiddenFields: Record<string, string>;
  email: string;
}

/**
 * Renders "Sign in as {email}?" with one button that POSTs the hidden fields to `actionUrl`.
 *
 * @example
 * renderConfirmEmail({ theme: {}, actionUrl: '/auth/callback/email', hiddenFields: { token, email }, email })
 */
export function renderConfirmEmail(params: ConfirmEmailPageParams): string {
  const action = safeUrl(params.actionUrl);
  const hidden = Object.entries(params.hiddenFields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  const body = html`<h1>Sign in as <span class="email">${params.email}</span>?</h1>
<p class="muted center">Confirm to finish signing in. If you did not ask to sign in, you can close this page.</p>
${
  action
    ? html`<form method="post"${attr('action', action)}>
${hidden}
<button type="submit" class="button">Sign in</button>
</form>`
    : html`<p class="muted center">This sign-in link cannot be used. Request a new one.</p>`
}`;
  return layout({ title: 'Confirm sign in', theme: params.theme, body, css: '.email{overflow-wrap:anywhere}' });
}
