// Text the pages build from messages: a message with markup in its slots (a bold address, a button inside a
// sentence: the message's own text is escaped like any value, and only what the page itself built goes in as
// markup), and the home link's words.
import { html, type HtmlValue, type SafeHtml } from '../../core/html-escape.js';
import type { MessageId } from '../../core/messages/en.js';
import { english } from '../../core/messages/english.js';
import { messageParts, type Translator } from '../../core/messages/translator.js';

/**
 * The message `id` with each `{slot}` replaced by the value given for it (escaped unless built with `html`).
 *
 * @example
 * rich(i18n, 'signin.signedInAs', { who: html`<strong>${email}</strong>` })
 */
export function rich(i18n: Translator, id: MessageId, values: Readonly<Record<string, HtmlValue>>): SafeHtml {
  const parts = messageParts(i18n.text(id)).map((p) => (typeof p === 'string' ? p : Object.hasOwn(values, p.slot) ? values[p.slot] : `{${p.slot}}`));
  return html`${parts}`;
}

/** "Back to example.com" reads better than a bare link, when the host can be read from the URL. */
export function homeLinkText(homeUrl: string, i18n: Translator = english): string {
  try {
    return i18n.t('common.backTo', { host: new URL(homeUrl).host });
  } catch {
    return i18n.t('common.backHome');
  }
}
