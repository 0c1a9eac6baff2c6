// The built-in account page: the signed-in user's linked accounts (unlink, link another), passkeys (rename, remove,
// add), second factors and devices (sign one out, or every other). One section per concern, each its own function.
// Optional: `pages.account` names an app's own page instead.
import type { ActivityKind } from '../../activity/types.js';
import { attr, html, safeUrl, type SafeHtml } from '../../core/html-escape.js';
import type { MessageId } from '../../core/messages/en.js';
import { english } from '../../core/messages/english.js';
import { type Translator } from '../../core/messages/translator.js';
import { dangerCss } from './confirm.js';
import { passkeyTexts } from './passkey-texts.js';
import { rich } from './text.js';
import { layout, type Theme } from './theme.js';

/** One provider the page offers: linked (with its account id) or not. */
export interface AccountProviderRow {
  id: string;
  name: string;
  /** The linked account's id at the provider; absent: not linked (a link button). */
  providerAccountId?: string;
  /** When it was linked (ISO); null or absent: not known. */
  linkedAt?: string | null;
}

/** One passkey row: its credential id, the name its owner gave it, and its dates (ISO; null: not known). */
export interface AccountPasskeyRow {
  id: string;
  name: string | null;
  createdAt: string | null;
  lastUsedAt: string | null;
  /** The passkey provider ("iCloud Keychain"), by the AAGUID reported at registration; null or absent: not known. */
  authenticator?: string | null;
}

/** One signed-in device: its session id, a readable name ("Chrome on Linux"), and its dates. */
export interface AccountDeviceRow {
  /** The session's id (not its cookie); absent for a JWT session, which has none. */
  id?: string;
  name: string;
  current: boolean;
  createdAt: string | null;
  lastSeenAt: string | null;
  /** The address it signed in from (shown as "from 203.0.113.7"); null or absent: not known. */
  place?: string | null;
}

/**
 * How this site's sessions can be ended from the page: each one (database sessions), the others at their next
 * check (JWT with "sessions valid after"), or only this one (JWT without).
 */
export type SessionControl = 'each' | 'othersLater' | 'thisOnly';

/** "Change password": starts the built-in change-password flow, which asks for a recent sign-in first. */
function passwordSection(params: AccountPageParams, i18n: Translator): SafeHtml | '' {
  if (!params.changePassword && !params.changeEmail) return '';
  const start = (flow: 'change-password' | 'change-email', label: string) =>
    html`<form method="post"${attr('action', `${params.authUrl}/flows/${flow}/start`)}><input type="hidden" name="csrfToken"${attr('value', params.csrfToken)}><input type="hidden" name="callbackUrl"${attr('value', `${params.authUrl}/account`)}><button type="submit" class="button secondary" data-account-action="${flow}">${label}</button></form>`;
  return html`<section data-section="password">${params.changePassword ? start('change-password', i18n.t('account.changePassword')) : ''}${params.changeEmail ? start('change-email', i18n.t('account.changeEmail')) : ''}</section>`;
}

/** Input of {@link renderAccountPage}. */
/** One record of the user's recent security activity, as the page shows it: what, when, which device, from where. */
export interface AccountActivityRow {
  kind: ActivityKind;
  /** ISO time. */
  at: string;
  /** The device's readable name ("Firefox on Linux"), never the raw user agent. */
  device: string;
  /** The client address, when known. */
  place: string | null;
}

export interface AccountPageParams {
  theme: Theme;
  /** `{origin}{basePath}`: the forms post under it. */
  authUrl: string;
  csrfToken: string;
  /** The user's address or name; absent: "you" in the page's language. */
  who?: string;
  providers: AccountProviderRow[];
  passkeys: AccountPasskeyRow[];
  /** The adapter can rename and remove passkeys. */
  managePasskeys: boolean;
  /** A passkey provider's id: an "add a passkey" button (POST link/:id, through the link stage). */
  passkeyProvider?: string;
  /** Second factors: the factors page link, when the configuration has them. */
  factors: boolean;
  /** A Password provider: a "Change password" button (POST flows/change-password/start, the built-in signed-in flow). */
  changePassword?: boolean;
  /** Offer "Change e-mail address" (the built-in change-email flow: an adapter and an e-mail provider). */
  changeEmail?: boolean;
  /** Organizations are configured: a link to the organizations page. */
  organizations?: boolean;
  devices: AccountDeviceRow[];
  /** The user's recent security activity, newest first; absent when the activity log is off. */
  activity?: AccountActivityRow[];
  sessionControl: SessionControl;
  /** A refusal to show (`?error=`): its error type. */
  notice?: string;
  /** A change that went through (`?done=`). */
  done?: string;
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

/** What the page says after a change, by `?done=`. */
const dones: Readonly<Record<string, MessageId>> = {
  passkeyAdded: 'manage.passkeyAdded',
  passkeyRenamed: 'manage.passkeyRenamed',
  passkeyRemoved: 'manage.passkeyRemoved',
  signedOutOne: 'manage.signedOutOne',
  signedOutOthers: 'manage.signedOutOthers',
};

const css = `.card{max-width:32rem}
.rows{list-style:none;padding:0;margin:0 0 1rem}
.rows li{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:.5rem .75rem;padding:.75rem 0;border-bottom:1px solid var(--border)}
.rows li>span{flex:1 1 12rem;min-width:0;overflow-wrap:anywhere}
.rows form{margin:0}
.acts{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-start}
.acts .button,.rows .button{width:auto;min-height:2.5rem;padding:.45rem .9rem}
.rename{margin:0;font-size:inherit}
.rename[open]{flex-basis:100%}
.rename summary{list-style:none;display:inline-flex;color:var(--text)}
.rename summary::-webkit-details-marker{display:none}
.rename form{margin-top:.5rem;grid-template-columns:1fr auto;align-items:end}
.rename label{grid-column:1/-1;margin:0}
.badge{display:inline-block;font-size:.75rem;font-weight:600;padding:.05rem .5rem;border-radius:999px;background:var(--notice-bg);border:1px solid var(--notice-border);margin-inline-start:.35rem}
.done{background:var(--notice-bg);border:1px solid var(--notice-border);border-radius:8px;padding:.7rem .9rem;margin:0 0 1.25rem}
h2{font-size:1.05rem;margin:1.5rem 0 .5rem}
${dangerCss}`;

function hidden(fields: Record<string, string>): SafeHtml {
  return html`${Object.entries(fields).map(([n, v]) => html`<input type="hidden"${attr('name', n)}${attr('value', v)}>`)}`;
}

/** A one-button form posting under the auth URL with the CSRF token (and a way back to this page). */
function post(params: AccountPageParams, path: string, label: string, name: string, options: { fields?: Record<string, string>; style?: 'primary' | 'secondary' | 'danger' } = {}): SafeHtml {
  const style = options.style === 'danger' ? ' danger' : options.style === 'secondary' ? ' secondary' : '';
  return html`<form method="post"${attr('action', safeUrl(`${params.authUrl}/${path}`))}>${hidden({ csrfToken: params.csrfToken, callbackUrl: `${params.authUrl}/account`, ...options.fields })}<button type="submit"${attr('class', `button${style}`)}${attr('data-account-action', name)}>${label}</button></form>`;
}

/** Two dates on one line ("signed in 2 Nov 2026 · last seen 28 Nov 2026"), each only when known. */
function dates(i18n: Translator, parts: [MessageId, string | null][], fallback?: string): SafeHtml {
  const shown = parts.filter((p): p is [MessageId, string] => p[1] !== null).map(([id, date]) => i18n.t(id, { date: i18n.date(date) }));
  if (fallback) shown.push(fallback);
  return shown.length ? html`<br><small class="muted">${shown.join(' · ')}</small>` : html``;
}

// Linked accounts: one row per OAuth/OIDC provider, link or unlink.
function linkedSection(params: AccountPageParams, i18n: Translator): SafeHtml {
  const rows = params.providers.map((p) =>
    p.providerAccountId
      ? html`<li${attr('data-provider', p.id)}><span>${p.name}<br><small class="muted" data-linked>${p.linkedAt ? i18n.t('account.linkedOn', { date: i18n.date(p.linkedAt) }) : i18n.t('account.isLinked')}</small></span>${post(params, `unlink/${encodeURIComponent(p.id)}/${encodeURIComponent(p.providerAccountId)}`, i18n.t('account.unlink'), `unlink-${p.id}`, { style: 'secondary' })}</li>`
      : html`<li${attr('data-provider', p.id)}><span>${p.name}<br><small class="muted">${i18n.t('account.notLinked')}</small></span>${post(params, `link/${encodeURIComponent(p.id)}`, i18n.t('account.link'), `link-${p.id}`, { style: 'secondary' })}</li>`,
  );
  return html`<section data-section="linked"><h2>${i18n.t('account.linked')}</h2>
${rows.length ? html`<ul class="rows" data-linked-accounts>${rows}</ul>` : html`<p class="muted">${i18n.t('account.noProviders')}</p>`}</section>`;
}

/**
 * The "add a passkey" button: the passkey script asks `POST link/:id` for registration options (CSRF token, recent
 * sign-in), runs the ceremony and posts the credential to the provider's callback; the link stage stores it and the
 * browser comes back here with `?done=passkeyAdded`.
 */
function addPasskey(params: AccountPageParams, providerId: string, i18n: Translator): SafeHtml {
  const id = encodeURIComponent(providerId);
  const hook = html`data-webauthn data-signed-in data-options-method="post"${attr('data-provider-id', providerId)}${attr('data-options-url', safeUrl(`${params.authUrl}/link/${id}`))}${attr('data-callback-url', safeUrl(`${params.authUrl}/callback/${id}`))}${attr('data-csrf-token', params.csrfToken)}${attr('data-callback-url-after', `${params.authUrl}/account?done=passkeyAdded`)}${passkeyTexts(i18n)}`;
  const script = safeUrl(`${params.authUrl}/webauthn-script.js`);
  return html`<div ${hook}><button type="button" class="button secondary" data-action="register" data-account-action="add-passkey">${i18n.t('account.addPasskey')}</button>
<noscript><p class="muted center">${i18n.t('common.passkeysNeedScript')}</p></noscript></div>
${script ? html`<script${attr('src', script)}${attr('nonce', params.nonce)} defer></script>` : ''}`;
}

// Passkeys: each with its name and dates, rename (a form behind a disclosure, no script needed) and remove (confirmed).
function passkeysSection(params: AccountPageParams, i18n: Translator): SafeHtml {
  const rows = params.passkeys.map((p, i) => {
    // Unnamed, a passkey goes by its provider's name when the AAGUID told it; named, the provider is said beside.
    const name = p.name ?? p.authenticator ?? i18n.t('manage.passkeyUnnamed');
    const provider = p.name && p.authenticator ? html`<br><small class="muted" data-passkey-authenticator>${p.authenticator}</small>` : html``;
    const field = `passkey-name-${i}`;
    const manage = params.managePasskeys
      ? html`<div class="acts"><details class="rename"><summary class="button secondary" data-account-action="rename-passkey">${i18n.t('manage.rename')}</summary><form method="post"${attr('action', safeUrl(`${params.authUrl}/account/passkeys/rename`))}>${hidden({ csrfToken: params.csrfToken, id: p.id })}<label${attr('for', field)}>${i18n.t('manage.nameLabel')}</label><input${attr('id', field)} name="name" required maxlength="64"${attr('value', p.name ?? '')}><button type="submit" class="button" data-account-action="save-passkey-name">${i18n.t('manage.save')}</button></form></details>
${post(params, 'account/passkeys/remove', i18n.t('manage.remove'), 'remove-passkey', { fields: { id: p.id, step: 'confirm' }, style: 'danger' })}</div>`
      : html``;
    return html`<li${attr('data-passkey', p.id)}><span><strong data-passkey-name>${name}</strong>${provider}${dates(i18n, [['manage.created', p.createdAt], ['manage.lastUsed', p.lastUsedAt]], p.lastUsedAt ? undefined : i18n.t('manage.neverUsed'))}</span>${manage}</li>`;
  });
  return html`<section data-section="passkeys"><h2>${i18n.t('account.passkeys')}</h2>
${rows.length ? html`<ul class="rows" data-passkeys>${rows}</ul>` : html`<p class="muted" data-passkeys>${i18n.t('manage.noPasskeys')}</p>`}
${params.passkeyProvider ? addPasskey(params, params.passkeyProvider, i18n) : ''}</section>`;
}

// Second factors: they are managed on their own page.
function factorsSection(params: AccountPageParams, i18n: Translator): SafeHtml {
  const factors = safeUrl(`${params.authUrl}/factors`);
  if (!params.factors || !factors) return html``;
  return html`<section data-section="factors"><h2>${i18n.t('account.factors')}</h2><p><a class="button secondary"${attr('href', factors)} data-account-action="factors">${i18n.t('account.manageFactors')}</a></p></section>`;
}

// Devices: each session by a readable name, this one marked; sign one out, or every other one.
function devicesSection(params: AccountPageParams, i18n: Translator): SafeHtml {
  const each = params.sessionControl === 'each';
  const rows = params.devices.map((d) => {
    const badge = d.current ? html` <span class="badge" data-this-device>${i18n.t('manage.thisDevice')}</span>` : '';
    const action = each && !d.current && d.id ? post(params, 'account/sessions', i18n.t('manage.signOut'), 'sign-out-session', { fields: { id: d.id, step: 'confirm' }, style: 'secondary' }) : '';
    const place = d.place ? html`<br><small class="muted" data-device-place>${i18n.t('account.activityPlace', { place: d.place })}</small>` : html``;
    return html`<li data-session${d.current ? html` data-current` : ''}><span><strong data-device-name>${d.name}</strong>${badge}${place}${dates(i18n, [['manage.signedIn', d.createdAt], ['account.lastSeen', d.lastSeenAt]])}</span>${action}</li>`;
  });
  const others = params.sessionControl === 'othersLater' || params.devices.some((d) => !d.current);
  const note = params.sessionControl === 'othersLater' ? i18n.t('manage.jwtControl') : params.sessionControl === 'thisOnly' ? i18n.t('manage.jwtNoControl') : undefined;
  return html`<section data-section="devices"><h2>${i18n.t('account.devices')}</h2>
${rows.length ? html`<ul class="rows" data-devices>${rows}</ul>` : html`<p class="muted">${i18n.t('account.unknownDevice')}</p>`}
${note ? html`<p class="muted" data-sessions-note>${note}</p>` : ''}
${params.sessionControl !== 'thisOnly' && others ? post(params, 'account/sessions', i18n.t('manage.signOutOthers'), 'sign-out-others', { fields: { scope: 'others', step: 'confirm' }, style: 'danger' }) : ''}</section>`;
}

// Recent security activity: the newest records of the user's own (present when the activity log is on).
function activitySection(params: AccountPageParams, i18n: Translator): SafeHtml | '' {
  if (!params.activity) return '';
  const rows = params.activity.map((a) => {
    const place = a.place ? i18n.t('account.activityPlace', { place: a.place }) : i18n.t('account.activityUnknownPlace');
    return html`<li${attr('data-activity', a.kind)}><span><strong>${i18n.t(`activity.${a.kind}` as MessageId)}</strong><br><small class="muted"><time${attr('datetime', a.at)}>${i18n.date(a.at)}</time> · <span data-activity-device>${a.device}</span> · <span data-activity-place>${place}</span></small></span></li>`;
  });
  return html`<section data-section="activity"><h2>${i18n.t('account.activity')}</h2>
${rows.length ? html`<ul class="rows" data-activity-list>${rows}</ul>` : html`<p class="muted">${i18n.t('account.activityNone')}</p>`}</section>`;
}

/**
 * Renders the account page.
 *
 * @example
 * renderAccountPage({ theme: {}, authUrl: 'https://example.com/auth', csrfToken, who: 'ada@example.com', providers, passkeys: [], managePasskeys: true, factors: true, devices: [], sessionControl: 'each' })
 */
export function renderAccountPage(params: AccountPageParams): string {
  const i18n = params.i18n ?? english;
  const title = i18n.t('account.title');
  const notice = params.notice === undefined ? undefined : i18n.t(Object.hasOwn(notices, params.notice) ? notices[params.notice]! : 'account.error.default');
  const done = params.done !== undefined && Object.hasOwn(dones, params.done) ? i18n.t(dones[params.done]!) : undefined;
  const body = html`<h1>${title}</h1>
<p class="muted center">${rich(i18n, 'account.signedInAs', { who: params.who ?? i18n.t('account.you') })}</p>
${notice ? html`<p class="alert" role="alert">${notice}</p>` : ''}
${done ? html`<p class="done" role="status" data-done>${done}</p>` : ''}
${linkedSection(params, i18n)}
${passkeysSection(params, i18n)}
${passwordSection(params, i18n)}
${params.organizations ? html`<section data-section="organizations"><p><a class="button secondary"${attr('href', safeUrl(`${params.authUrl}/account/organizations`))} data-account-action="organizations">${i18n.t('account.organizations')}</a></p></section>` : ''}
${factorsSection(params, i18n)}
${devicesSection(params, i18n)}
${activitySection(params, i18n)}`;
  return layout({ title, theme: params.theme, body, css, nonce: params.nonce, i18n });
}
