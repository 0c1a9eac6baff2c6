// The form a paused flow asks the HTTP layer to show (`{ kind: 'page', page: 'form' }`): the built-in page frame
// and theme, the browser's CSRF token, and inputs described as data, so a custom flow never writes HTML itself.

import { attr, html, safeUrl } from '../../core/html-escape.js';
import { english } from '../../core/messages/english.js';
import { type Translator } from '../../core/messages/translator.js';
import type { FlowFormField, FlowFormPage, FlowText } from '../../flows/runtime/contract.js';
import { copyScript } from './copy-script.js';
import { passkeyTexts } from './passkey-texts.js';
import { layout, type Theme } from './theme.js';

/** Input of {@link renderFormPage}. */
export interface FormPageParams {
  theme: Theme;
  /** Where the form POSTs (the provider's callback URL). */
  actionUrl: string;
  /** Sent back as they are (the CSRF token). */
  hiddenFields: Record<string, string>;
  page: FlowFormPage;
  /** The response's Content-Security-Policy nonce, put on the page's style (and the passkey script). */
  nonce?: string;
  /** The passkey script's URL ({basePath}/webauthn-script.js), for a page that offers a passkey. */
  passkeyScript?: string;
  /** The page's language (for built-in message ids); English when absent. */
  i18n?: Translator;
  /** `{origin}{basePath}`: what a page's relative `alternative` and `leave` URLs are resolved under. */
  authUrl?: string;
}

/** A flow's URL for the page: as given when absolute, else under the auth routes; undefined when unsafe. */
function resolved(url: string, authUrl: string | undefined): string | undefined {
  let absolute: string;
  try {
    absolute = authUrl ? new URL(url, `${authUrl}/`).href : url;
  } catch {
    return undefined;
  }
  return safeUrl(absolute);
}

/** A flow's text: its own words as written, a message id in the reader's language. */
function say(text: FlowText, i18n: Translator): string {
  return typeof text === 'string' ? text : i18n.t(text.message, text.values);
}

const inputTypes = new Set(['text', 'password', 'email', 'tel', 'number']);

function input(field: FlowFormField, i: number, autofocus: boolean, i18n: Translator) {
  const id = `field-${i}`;
  const type = field.type && inputTypes.has(field.type) ? field.type : 'text';
  // A password is never sent back to the browser, whatever the flow asks.
  const value = type === 'password' ? undefined : field.value;
  const error = field.error === undefined ? undefined : say(field.error, i18n);
  return html`<div><label for="${id}">${say(field.label, i18n)}</label><input id="${id}" name="${field.name}" type="${type}"${attr('value', value)}${attr('autocomplete', field.autocomplete)}${attr('inputmode', field.inputmode)}${attr('pattern', field.pattern)}${attr('maxlength', field.maxlength === undefined ? undefined : String(field.maxlength))}${field.required === false ? '' : html` required`}${error === undefined ? '' : html` aria-invalid="true" aria-describedby="${id}-error"`}${autofocus || error !== undefined ? html` autofocus` : ''}>${error === undefined ? '' : html`<p class="field-error" id="${id}-error" role="alert">${error}</p>`}</div>`;
}

/** A passkey button driven by the built-in passkey script: options from, and the assertion posted to, `action`. */
function passkeySection(action: string, csrfToken: string, label: string, script: string, i18n: Translator, nonce?: string) {
  const src = safeUrl(script);
  return html`<div class="section" data-webauthn${attr('data-options-url', action)}${attr('data-callback-url', action)}${attr('data-csrf-token', csrfToken)}${passkeyTexts(i18n)}>
<button type="button" class="button secondary" data-action="authenticate">${label}</button>
<noscript><p class="muted center">${i18n.t('common.passkeysNeedScript')}</p></noscript>
</div>
${src ? html`<script${attr('src', src)}${attr('nonce', nonce)} defer></script>` : ''}`;
}

// The marker put where `{seconds}` goes in the wait sentence, so the number can be its own element.
const SECONDS = '\u0001';

/**
 * A wait shown as a sentence whose number counts down to 0 without script (an animated integer custom property shown
 * through a CSS counter); the sentence itself goes when the wait is over. Assistive technology reads the number as
 * it was when the page was served.
 */
function waitNote(seconds: number, text: FlowText, i18n: Translator) {
  const [before, after = ''] = (typeof text === 'string' ? text.replace('{seconds}', SECONDS) : i18n.t(text.message, { ...text.values, seconds: SECONDS })).split(SECONDS);
  return html`<p class="wait center" role="status" data-wait="${String(seconds)}">${before}<span class="countdown" aria-hidden="true"></span><span class="visually-hidden">${String(seconds)}</span>${after}</p>`;
}

/** The countdown's style: `seconds` whole steps from `seconds` to 0, then the sentence hidden. */
function countdownCss(seconds: number): string {
  return `@property --wait{syntax:'<integer>';inherits:false;initial-value:0}.countdown{font-variant-numeric:tabular-nums;font-weight:600;counter-reset:wait var(--wait);animation:countdown ${seconds}s steps(${seconds},end) forwards}.countdown::after{content:counter(wait)}@keyframes countdown{from{--wait:${seconds}}to{--wait:0}}.wait{animation:wait-over 0s linear ${seconds}s forwards}@keyframes wait-over{to{visibility:hidden;height:0;margin:0;overflow:hidden}}.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}`;
}

/**
 * Renders a flow's form page: heading, message, optional error, the inputs, one submit button.
 *
 * @example
 * renderFormPage({ theme: {}, actionUrl: '/auth/callback/email-code', hiddenFields: { csrfToken },
 *   page: { title: 'Enter your code', fields: [{ name: 'code', label: 'Code' }] } })
 */
export function renderFormPage(params: FormPageParams): string {
  const { page } = params;
  const i18n = params.i18n ?? english;
  const title = say(page.title, i18n);
  const action = safeUrl(params.actionUrl);
  const image = page.image && safeUrl(page.image.src, { allowSvgData: true });
  // An app link (otpauth://) is the one scheme besides http(s) a flow may link to.
  const link = page.link && (/^otpauth:\/\/[a-z]+\//i.test(page.link.href) ? page.link.href : safeUrl(page.link.href));
  const alternative = page.alternative && resolved(page.alternative.action, params.authUrl);
  const leave = page.leave && resolved(page.leave.href, params.authUrl);
  const wait = page.wait && Number.isInteger(page.wait.seconds) && page.wait.seconds > 0 && page.wait.seconds <= 86_400 ? page.wait : undefined;
  const hidden = Object.entries({ ...page.hidden, ...params.hiddenFields }).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  const body = html`<h1>${title}</h1>
${page.error ? html`<div class="alert" role="alert">${say(page.error, i18n)}</div>` : ''}
${image ? html`<img class="figure"${attr('src', image)} alt="${say(page.image!.alt, i18n)}">` : ''}
${page.message ? html`<p class="muted center message">${say(page.message, i18n)}</p>` : ''}
${wait ? waitNote(wait.seconds, wait.text, i18n) : ''}
${page.copyable ? html`<div class="copyable" data-copyable><p class="copy-label" id="copy-label">${say(page.copyable.label, i18n)}</p><code id="copy-value" class="copy-value" dir="ltr" aria-labelledby="copy-label" data-copy-value>${page.copyable.value}</code><button type="button" class="button secondary" data-copy="copy-value"${attr('data-copied', i18n.t('manage.copied'))} aria-live="polite" hidden>${i18n.t('manage.copy')}</button></div>${copyScript(params.nonce)}` : ''}
${link ? html`<p class="center"><a${attr('href', link)}>${say(page.link!.text, i18n)}</a></p>` : ''}
${
  action
    ? html`<form method="post"${attr('action', action)}>
${hidden}
${page.fields.map((field, i) => input(field, i, i === Math.max(0, page.fields.findIndex((f) => f.error !== undefined)), i18n))}
<button type="submit" class="button">${page.submit === undefined ? i18n.t('common.continue') : say(page.submit, i18n)}</button>
</form>`
    : ''
}
${alternative ? html`<form method="post" class="center alternative"${attr('action', alternative)}>
${params.hiddenFields.csrfToken === undefined ? '' : html`<input type="hidden" name="csrfToken" value="${params.hiddenFields.csrfToken}">`}
${Object.entries(page.alternative!.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit" class="button secondary" data-form-alternative>${say(page.alternative!.label, i18n)}</button>
</form>` : ''}
${leave ? html`<p class="center"><a${attr('href', leave)} data-form-leave>${say(page.leave!.text, i18n)}</a></p>` : ''}
${action && page.passkey && params.passkeyScript ? passkeySection(action, params.hiddenFields.csrfToken ?? '', say(page.passkey.label, i18n), params.passkeyScript, i18n, params.nonce) : ''}`;
  return layout({ title, i18n, theme: params.theme, body, css: (wait ? countdownCss(wait.seconds) : '') + '.copyable{display:grid;gap:.5rem;margin:0 0 1rem;padding:.75rem;border:1px solid var(--border);border-radius:8px;background:var(--input)}.copy-label{margin:0;font-size:.85rem;font-weight:600}.copy-value{font:1.05rem/1.6 ui-monospace,monospace;letter-spacing:.05em;user-select:all;overflow-wrap:anywhere;text-align:center}.alternative{margin-top:.75rem}.message{overflow-wrap:anywhere}.field-error{margin:.25rem 0 0;font-size:.9rem}.figure{display:block;width:12rem;height:12rem;margin:0 auto 1rem;background:#fff;border-radius:8px}', nonce: params.nonce });
}
