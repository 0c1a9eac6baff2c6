// The passkey script's status lines in the page's language: written on the section it drives as data-text-*
// attributes (escaped like any attribute), so the script itself stays one static file for every locale.
import { attr, html, type SafeHtml } from '../../core/html-escape.js';
import type { MessageId } from '../../core/messages/en.js';
import type { Translator } from '../../core/messages/translator.js';

const texts: Readonly<Record<string, MessageId>> = {
  cancelled: 'passkey.cancelled',
  exists: 'passkey.exists',
  insecure: 'passkey.insecure',
  failed: 'passkey.failed',
  'need-email': 'passkey.needEmail',
  dialog: 'passkey.dialog',
  unsupported: 'passkey.unsupported',
};

/**
 * The data-text-* attributes of a passkey section.
 *
 * @example
 * html`<div data-webauthn${passkeyTexts(i18n)}>`
 */
export function passkeyTexts(i18n: Translator): SafeHtml {
  return html`${Object.entries(texts).map(([key, id]) => attr(`data-text-${key}`, i18n.t(id)))}`;
}
