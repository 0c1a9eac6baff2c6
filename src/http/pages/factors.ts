// The built-in pages of a signed-in user's factors: the list with its actions (set up an authenticator app, new
// backup codes, remove), and the new backup codes, shown once.

import { attr, html, safeUrl } from '../../core/html-escape.js';
import type { FactorSummary } from '../../flows/registry.js';
import type { MessageId } from '../../core/messages/en.js';
import { english } from '../../core/messages/english.js';
import { type Translator } from '../../core/messages/translator.js';
import { dangerCss } from './confirm.js';
import { copyScript } from './copy-script.js';
import { layout, type Theme } from './theme.js';

/** Input of {@link renderFactorsPage}. */
export interface FactorsPageParams {
  theme: Theme;
  /** `{origin}{basePath}`: the forms post to `/factors/*` under it. */
  authUrl: string;
  csrfToken: string;
  factors: FactorSummary[];
  /** Where each action returns to. */
  callbackUrl: string;
  nonce?: string;
  /** The page's language; English when absent. */
  i18n?: Translator;
}

const css = dangerCss + '.factors .button{width:auto;min-height:2.5rem;padding:.45rem .9rem}.codes-actions{display:flex;flex-wrap:wrap;gap:.5rem;justify-content:center;margin:0 0 1rem}.codes-actions .button{width:auto;min-height:2.5rem}@media print{.codes-actions,.done-link{display:none}}.factors{list-style:none;padding:0;margin:0 0 1rem}.factors li{display:flex;justify-content:space-between;align-items:center;gap:.5rem;padding:.5rem 0;border-bottom:1px solid var(--border)}.factors form{margin:0}.codes{font-family:ui-monospace,monospace;font-size:1.05rem;columns:2;list-style:none;padding:0;text-align:center}.actions form{margin:.5rem 0}';

function action(params: FactorsPageParams, path: string, label: MessageId, extra: Record<string, string> = {}, style = '') {
  const i18n = params.i18n ?? english;
  const fields = { csrfToken: params.csrfToken, callbackUrl: params.callbackUrl, ...extra };
  return html`<form method="post"${attr('action', safeUrl(`${params.authUrl}/factors/${path}`))}>${Object.entries(fields).map(([n, v]) => html`<input type="hidden" name="${n}" value="${v}">`)}<button type="submit"${attr('class', `button${style}`)}${attr('data-factor-action', path)}>${i18n.t(label)}</button></form>`;
}

/**
 * Renders the factors page: the active authenticator apps, how many backup codes are left, and the actions.
 *
 * @example
 * renderFactorsPage({ theme: {}, authUrl: 'https://example.com/auth', csrfToken, factors, callbackUrl: 'https://example.com/auth/factors' })
 */
export function renderFactorsPage(params: FactorsPageParams): string {
  const i18n = params.i18n ?? english;
  const apps = params.factors.filter((f) => f.kind === 'totp' && f.activatedAt);
  const codes = params.factors.filter((f) => f.kind === 'backup');
  const rows = [
    // The stored label of an app is the app's default name, written in English when it was made: shown in the reader's language.
    ...apps.map((f) => html`<li><span>${!f.label || f.label === english.text('factors.app') ? i18n.t('factors.app') : f.label}<br><small class="muted">${i18n.t('factors.added', { date: i18n.date(f.createdAt) })}</small></span>${action(params, 'remove', 'factors.remove', { id: f.id, step: 'confirm' }, ' danger')}</li>`),
    ...(codes.length ? [html`<li><span>${i18n.t('factors.backupCodes')}<br><small class="muted">${i18n.t('factors.codesLeft', { count: codes.length })}</small></span>${action(params, 'remove', 'factors.remove', { id: codes[0].id, step: 'confirm' }, ' danger')}</li>`] : []),
  ];
  const body = html`<h1>${i18n.t('factors.title')}</h1>
${rows.length ? html`<ul class="factors">${rows}</ul>` : html`<p class="muted center">${i18n.t('factors.none')}</p>`}
<div class="actions">
${action(params, 'totp', apps.length ? 'factors.addAnotherApp' : 'factors.addApp')}
${action(params, 'backup-codes', codes.length ? 'factors.newCodes' : 'factors.makeCodes', {}, ' secondary')}
</div>`;
  return layout({ title: i18n.t('factors.title'), theme: params.theme, body, css, nonce: params.nonce, i18n });
}

/** Input of {@link renderBackupCodesPage}. */
export interface BackupCodesPageParams {
  theme: Theme;
  codes: string[];
  /** Where "Done" goes. */
  continueUrl: string;
  /** The site's host, named in the downloaded file. */
  host?: string;
  nonce?: string;
  /** The page's language; English when absent. */
  i18n?: Translator;
}

/** The codes as a text file, in a `data:` URL: the link downloads it without script. */
function codesFile(params: BackupCodesPageParams, i18n: Translator): string {
  const title = params.host ? i18n.t('manage.codesFileTitle', { host: params.host }) : i18n.t('codes.title');
  const text = [title, '', ...params.codes, '', i18n.t('codes.note'), ''].join('\r\n');
  return `data:text/plain;charset=utf-8,${encodeURIComponent(text)}`;
}

/**
 * Renders a new set of backup codes: shown this once, stored only as hashes.
 *
 * @example
 * renderBackupCodesPage({ theme: {}, codes, continueUrl: 'https://example.com/account' })
 */
export function renderBackupCodesPage(params: BackupCodesPageParams): string {
  const next = safeUrl(params.continueUrl);
  const i18n = params.i18n ?? english;
  const body = html`<h1>${i18n.t('codes.title')}</h1>
<p class="muted center">${i18n.t('codes.note')}</p>
<ul class="codes" id="backup-codes" data-backup-codes dir="ltr">${params.codes.map((c) => html`<li>${c}</li>`)}</ul>
<div class="codes-actions"><button type="button" class="button secondary" data-copy="backup-codes"${attr('data-copied', i18n.t('manage.copied'))} aria-live="polite" hidden>${i18n.t('manage.copy')}</button><a class="button secondary" download="backup-codes.txt"${attr('href', codesFile(params, i18n))} data-download>${i18n.t('manage.download')}</a><button type="button" class="button secondary" data-print hidden>${i18n.t('manage.print')}</button></div>
${next ? html`<p class="center done-link"><a class="button"${attr('href', next)}>${i18n.t('codes.done')}</a></p>` : ''}
${copyScript(params.nonce)}`;
  return layout({ title: i18n.t('codes.title'), theme: params.theme, body, css, nonce: params.nonce, i18n });
}
