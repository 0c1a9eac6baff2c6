// The built-in pages of a signed-in user's factors: the list with its actions (set up an authenticator app, new
// backup codes, remove), and the new backup codes, shown once.

import { attr, html, safeUrl } from '../../core/html-escape.js';
import type { FactorSummary } from '../../flows/second-factor/account.js';
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
}

const css = '.factors{list-style:none;padding:0;margin:0 0 1rem}.factors li{display:flex;justify-content:space-between;align-items:center;gap:.5rem;padding:.5rem 0;border-bottom:1px solid var(--border)}.factors form{margin:0}.codes{font-family:ui-monospace,monospace;font-size:1.05rem;columns:2;list-style:none;padding:0;text-align:center}.actions form{margin:.5rem 0}';

function action(params: FactorsPageParams, path: string, label: string, extra: Record<string, string> = {}) {
  const fields = { csrfToken: params.csrfToken, callbackUrl: params.callbackUrl, ...extra };
  return html`<form method="post"${attr('action', safeUrl(`${params.authUrl}/factors/${path}`))}>${Object.entries(fields).map(([n, v]) => html`<input type="hidden" name="${n}" value="${v}">`)}<button type="submit" class="button">${label}</button></form>`;
}

/**
 * Renders the factors page: the active authenticator apps, how many backup codes are left, and the actions.
 *
 * @example
 * renderFactorsPage({ theme: {}, authUrl: 'https://example.com/auth', csrfToken, factors, callbackUrl: 'https://example.com/auth/factors' })
 */
export function renderFactorsPage(params: FactorsPageParams): string {
  const apps = params.factors.filter((f) => f.kind === 'totp' && f.activatedAt);
  const codes = params.factors.filter((f) => f.kind === 'backup');
  const rows = [
    ...apps.map((f) => html`<li><span>${f.label ?? 'Authenticator app'}<br><small class="muted">added ${f.createdAt.slice(0, 10)}</small></span>${action(params, 'remove', 'Remove', { id: f.id })}</li>`),
    ...(codes.length ? [html`<li><span>Backup codes<br><small class="muted">${String(codes.length)} left</small></span>${action(params, 'remove', 'Remove', { id: codes[0].id })}</li>`] : []),
  ];
  const body = html`<h1>Two-step verification</h1>
${rows.length ? html`<ul class="factors">${rows}</ul>` : html`<p class="muted center">No second factor yet: a password alone signs you in.</p>`}
<div class="actions">
${action(params, 'totp', apps.length ? 'Add another authenticator app' : 'Set up an authenticator app')}
${action(params, 'backup-codes', codes.length ? 'New backup codes' : 'Make backup codes')}
</div>`;
  return layout({ title: 'Two-step verification', theme: params.theme, body, css, nonce: params.nonce });
}

/** Input of {@link renderBackupCodesPage}. */
export interface BackupCodesPageParams {
  theme: Theme;
  codes: string[];
  /** Where "Done" goes. */
  continueUrl: string;
  nonce?: string;
}

/**
 * Renders a new set of backup codes: shown this once, stored only as hashes.
 *
 * @example
 * renderBackupCodesPage({ theme: {}, codes, continueUrl: 'https://example.com/account' })
 */
export function renderBackupCodesPage(params: BackupCodesPageParams): string {
  const next = safeUrl(params.continueUrl);
  const body = html`<h1>Your backup codes</h1>
<p class="muted center">Each code signs you in once when your authenticator app is not at hand. Keep them somewhere safe: they are not shown again, and any earlier codes no longer work.</p>
<ul class="codes" data-backup-codes>${params.codes.map((c) => html`<li>${c}</li>`)}</ul>
${next ? html`<p class="center"><a class="button"${attr('href', next)}>Done</a></p>` : ''}`;
  return layout({ title: 'Your backup codes', theme: params.theme, body, css, nonce: params.nonce });
}
