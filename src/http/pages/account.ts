// The built-in account page: the signed-in user's linked accounts (unlink, link another), passkeys, second factors
// and devices. Optional: `pages.account` names an app's own page instead.
import { attr, html, safeUrl, type SafeHtml } from '../../core/html-escape.js';
import type { MessageId } from '../../core/messages/en.js';
import { english, type Translator } from '../../core/messages/translator.js';
import { passkeyTexts } from './passkey-texts.js';
import { rich } from './text.js';
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
  /** The user's address or name; absent: "you" in the page's language. */
  who?: string;
  providers: AccountProviderRow[];
  passkeys: number;
  /** A passkey provider's id: an "add a passkey" button (POST link/:id, through the link stage). */
  passkeyProvider?: string;
  /** Second factors: the factors page link, when the configuration has them. */
  factors: boolean;
  devices: { current: boolean; lastSeen: string; userAgent?: string }[];
  /** A refusal to show (`?error=`): its error type. */
  notice?: string;
  nonce?: string;
  /** The page's language; English when absent. */
  i18n?: Translator;
}

/** What the page says for a refusal, by error type. */
const notices: Readonly<Record<string, MessageId>> = {
  OAuthAccountNotLinked: 'account.error.OAuthAccountNotLinked',
  AccessDenied: 'account.error.AccessDenied',
  AccountNotLinked: 'account.error.AccountNotLinked',
};

const css = '.rows{list-style:none;padding:0;margin:0 0 1rem}.rows li{display:flex;justify-content:space-between;align-items:center;gap:.5rem;padding:.5rem 0;border-bottom:1px solid var(--border)}.rows form{margin:0}h2{font-size:1.05rem;margin:1.25rem 0 .5rem}';

function post(params: AccountPageParams, path: string, label: string, name: string): SafeHtml {
  return html`<form method="post"${attr('action', safeUrl(`${params.authUrl}/${path}`))}><input type="hidden" name="csrfToken"${attr('value', params.csrfToken)}><input type="hidden" name="callbackUrl"${attr('value', `${params.authUrl}/account`)}><button type="submit" class="button"${attr('data-account-action', name)}>${label}</button></form>`;
}

/**
 * The "add a passkey" button: the passkey script asks `POST link/:id` for registration options (CSRF token, recent
 * sign-in), runs the ceremony and posts the credential to the provider's callback; the link stage stores it.
 */
function addPasskey(params: AccountPageParams, providerId: string, i18n: Translator): SafeHtml {
  const id = encodeURIComponent(providerId);
  const hook = html`data-webauthn data-signed-in data-options-method="post"${attr('data-provider-id', providerId)}${attr('data-options-url', safeUrl(`${params.authUrl}/link/${id}`))}${attr('data-callback-url', safeUrl(`${params.authUrl}/callback/${id}`))}${attr('data-csrf-token', params.csrfToken)}${attr('data-callback-url-after', `${params.authUrl}/account`)}${passkeyTexts(i18n)}`;
  const script = safeUrl(`${params.authUrl}/webauthn-script.js`);
  return html`<div ${hook}><button type="button" class="button secondary" data-action="register" data-account-action="add-passkey">${i18n.t('account.addPasskey')}</button>
<noscript><p class="muted center">${i18n.t('common.passkeysNeedScript')}</p></noscript></div>
${script ? html`<script${attr('src', script)}${attr('nonce', params.nonce)} defer></script>` : ''}`;
}

/**
 * Renders the account page.
 *
 * @example
 * renderAccountPage({ theme: {}, authUrl: 'https://example.com/auth', csrfToken, who: 'ada@example.com', providers, passkeys: 1, factors: true, devices: [] })
 */
export function renderAccountPage(params: AccountPageParams): string {
  const i18n = params.i18n ?? english;
  const accounts = params.providers.map((p) =>
    p.providerAccountId
      ? html`<li${attr('data-provider', p.id)}><span>${p.name}<br><small class="muted">${i18n.t('account.isLinked')}</small></span>${post(params, `unlink/${encodeURIComponent(p.id)}/${encodeURIComponent(p.providerAccountId)}`, i18n.t('account.unlink'), `unlink-${p.id}`)}</li>`
      : html`<li${attr('data-provider', p.id)}><span>${p.name}<br><small class="muted">${i18n.t('account.notLinked')}</small></span>${post(params, `link/${encodeURIComponent(p.id)}`, i18n.t('account.link'), `link-${p.id}`)}</li>`,
  );
  const devices = params.devices.map((d) => {
    const device = d.userAgent ?? i18n.t('account.unknownDevice');
    return html`<li><span>${d.current ? i18n.t('account.thisDevice', { device }) : device}<br><small class="muted">${i18n.t('account.lastSeen', { date: i18n.date(d.lastSeen) })}</small></span></li>`;
  });
  const factors = safeUrl(`${params.authUrl}/factors`);
  const title = i18n.t('account.title');
  const notice = params.notice === undefined ? undefined : i18n.t(Object.hasOwn(notices, params.notice) ? notices[params.notice]! : 'account.error.default');
  const body = html`<h1>${title}</h1>
<p class="muted center">${rich(i18n, 'account.signedInAs', { who: params.who ?? i18n.t('account.you') })}</p>
${notice ? html`<p class="alert" role="alert">${notice}</p>` : ''}
<h2>${i18n.t('account.linked')}</h2>
${accounts.length ? html`<ul class="rows" data-linked-accounts>${accounts}</ul>` : html`<p class="muted">${i18n.t('account.noProviders')}</p>`}
<h2>${i18n.t('account.passkeys')}</h2>
<p class="muted" data-passkeys>${i18n.t('account.passkeyCount', { count: params.passkeys })}</p>
${params.passkeyProvider ? addPasskey(params, params.passkeyProvider, i18n) : ''}
${params.factors && factors ? html`<h2>${i18n.t('account.factors')}</h2><p><a${attr('href', factors)}>${i18n.t('account.manageFactors')}</a></p>` : ''}
<h2>${i18n.t('account.devices')}</h2>
${devices.length ? html`<ul class="rows" data-devices>${devices}</ul>` : html`<p class="muted">${i18n.t('account.noDevices')}</p>`}`;
  return layout({ title, theme: params.theme, body, css, nonce: params.nonce, i18n });
}
