// The second step of a change that cannot be undone (sign a device out, remove a passkey or a factor): the
// consequence in words, the action as a danger button posting the same fields again, and Cancel. A plain page, so
// it works without script.
import { attr, html, safeUrl } from '../../core/html-escape.js';
import { english } from '../../core/messages/english.js';
import { type Translator } from '../../core/messages/translator.js';
import { layout, type Theme } from './theme.js';

/** Input of {@link renderConfirmPage}. */
export interface ConfirmPageParams {
  theme: Theme;
  /** What happens, in the reader's language (one or more paragraphs). */
  message: string | string[];
  /** Where the confirming form posts. */
  action: string;
  /** Posted as they are (the CSRF token, the id). */
  fields: Record<string, string>;
  /** The danger button's label. */
  confirm: string;
  /** Where Cancel goes. */
  cancelUrl: string;
  nonce?: string;
  i18n?: Translator;
}

/** The danger button of the account pages: outlined in the error colours, unlike the one primary action. */
export const dangerCss = '.button.danger{background:var(--error-bg);color:var(--error-text);border-color:var(--error-border)}';

/**
 * Renders the confirmation step.
 *
 * @example
 * renderConfirmPage({ theme: {}, message: 'Remove this passkey?', action: '/auth/account/passkeys/remove', fields: { csrfToken, id }, confirm: 'Remove', cancelUrl: '/auth/account' })
 */
export function renderConfirmPage(params: ConfirmPageParams): string {
  const i18n = params.i18n ?? english;
  const title = i18n.t('manage.confirmTitle');
  const action = safeUrl(params.action);
  const cancel = safeUrl(params.cancelUrl);
  const paragraphs = Array.isArray(params.message) ? params.message : [params.message];
  const body = html`<h1>${title}</h1>
${paragraphs.map((p) => html`<p class="center" data-confirm-message>${p}</p>`)}
${action ? html`<form method="post"${attr('action', action)}>${Object.entries(params.fields).map(([n, v]) => html`<input type="hidden"${attr('name', n)}${attr('value', v)}>`)}<button type="submit" class="button danger" data-confirm>${params.confirm}</button></form>` : ''}
${cancel ? html`<p class="center cancel"><a class="button secondary"${attr('href', cancel)} data-cancel>${i18n.t('manage.cancel')}</a></p>` : ''}`;
  return layout({ title, theme: params.theme, body, css: `${dangerCss}.cancel{margin-top:.75rem}`, nonce: params.nonce, i18n });
}
