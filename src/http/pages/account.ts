// The built-in account page: the signed-in user's linked accounts (unlink, link another), passkeys, second factors
// and devices. Optional: `pages.account` names an app's own page instead.
import { attr, html, safeUrl, type SafeHtml } from '../../core/html-escape.js';
import { layout, type Theme } from './theme.js';

/** One provider the page offers: linked (with its account id) or not. */
export interface AccountProviderRow {
  id: string;
  name: string;
  /** The linked account's id at the provider; absent: not linked (a link button). */
  providerAccountId?: string;
}

/** Input of {@link renderAccountPage}. */
export interface AccountPageParams {
  theme: Theme;
  /** `{origin}{basePath}`: the forms post under it. */
  authUrl: string;
  csrfToken: string;
  who: string;
  providers: AccountProviderRow[];
  passkeys: number;
  /** Second factors: the factors page link, when the configuration has them. */
  factors: boolean;
  devices: { current: boolean; lastSeen: string; userAgent?: string }[];
  /** A refusal to show (`?error=`), as its message. */
  notice?: string;
  nonce?: string;
}

const css = '.rows{list-style:none;padding:0;margin:0 0 1rem}.rows li{display:flex;justify-content:space-between;align-items:center;gap:.5rem;padding:.5rem 0;border-bottom:1px solid var(--border)}.rows form{margin:0}h2{font-size:1.05rem;margin:1.25rem 0 .5rem}';

function post(params: AccountPageParams, path: string, label: string, name: string): SafeHtml {
  return html`<form method="post"${attr('action', safeUrl(`${params.authUrl}/${path}`))}><input type="hidden" name="csrfToken"${attr('value', params.csrfToken)}><input type="hidden" name="callbackUrl"${attr('value', `${params.authUrl}/account`)}><button type="submit" class="button"${attr('data-account-action', name)}>${label}</button></form>`;
}

/**
 * Renders the account page.
 *
 * @example
 * renderAccountPage({ theme: {}, authUrl: 'https://example.com/auth', csrfToken, who: 'ada@example.com', providers, passkeys: 1, factors: true, devices: [] })
 */
export function renderAccountPage(params: AccountPageParams): string {
  const accounts = params.providers.map((p) =>
    p.providerAccountId
      ? html`<li${attr('data-provider', p.id)}><span>${p.name}<br><small class="muted">linked</small></span>${post(params, `unlink/${encodeURIComponent(p.id)}/${encodeURIComponent(p.providerAccountId)}`, 'Unlink', `unlink-${p.id}`)}</li>`
      : html`<li${attr('data-provider', p.id)}><span>${p.name}<br><small class="muted">not linked</small></span>${post(params, `link/${encodeURIComponent(p.id)}`, 'Link', `link-${p.id}`)}</li>`,
  );
  const devices = params.devices.map((d) => html`<li><span>${d.userAgent ?? 'Unknown device'}${d.current ? ' (this device)' : ''}<br><small class="muted">last seen ${d.lastSeen.slice(0, 16).replace('T', ' ')}</small></span></li>`);
  const factors = safeUrl(`${params.authUrl}/factors`);
  const body = html`<h1>Your account</h1>
<p class="muted center">Signed in as ${params.who}</p>
${params.notice ? html`<p class="error" role="alert">${params.notice}</p>` : ''}
<h2>Linked accounts</h2>
${accounts.length ? html`<ul class="rows" data-linked-accounts>${accounts}</ul>` : html`<p class="muted">No provider to link.</p>`}
<h2>Passkeys</h2>
<p class="muted" data-passkeys>${params.passkeys === 1 ? '1 passkey' : `${String(params.passkeys)} passkeys`}</p>
${params.factors && factors ? html`<h2>Two-step verification</h2><p><a${attr('href', factors)}>Manage second factors</a></p>` : ''}
<h2>Devices</h2>
${devices.length ? html`<ul class="rows" data-devices>${devices}</ul>` : html`<p class="muted">Signed-in devices are listed with database sessions.</p>`}`;
  return layout({ title: 'Your account', theme: params.theme, body, css, nonce: params.nonce });
}
