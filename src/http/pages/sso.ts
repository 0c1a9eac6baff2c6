// The built-in SSO page of an organization's admin: its connections (add an OIDC or a SAML one, delete) and its
// domains (claim, the TXT record to publish, verify, route to a connection). Plain forms, as the account page.
import { attr, html, type SafeHtml } from '../../core/html-escape.js';
import { english } from '../../core/messages/english.js';
import { type Translator } from '../../core/messages/translator.js';
import { layout, type Theme } from './theme.js';

/** One connection row as the page shows it (never its secret). */
export interface SsoPageConnection {
  id: string;
  name: string;
  kind: string;
  enabled: boolean;
  defaultRole: string;
  issuer?: string;
  /** OIDC: the redirect URI. SAML: the ACS URL. */
  redirectUri: string;
  /** SAML: the SP entity id, where its metadata is served too. */
  spMetadataUrl?: string;
}

/** One claimed domain. */
export interface SsoPageDomain {
  domain: string;
  verified: boolean;
  txtHost: string;
  txtValue: string;
  connectionId: string | null;
}

export interface SsoPageParams {
  theme: Theme;
  /** `{origin}{basePath}`: the forms post under it. */
  authUrl: string;
  csrfToken: string;
  connections: SsoPageConnection[];
  domains: SsoPageDomain[];
  /** The roles a new member may get (every role but owner). */
  roles: string[];
  notice?: 'saved';
  /** An error type a form came back with. */
  error?: string;
  nonce?: string;
  i18n?: Translator;
}

const css = `.card{max-width:40rem}.rows{list-style:none;padding:0;margin:0 0 1rem}.rows li{border-bottom:1px solid var(--border);padding:.75rem 0}
.rows form{margin:.4rem .4rem 0 0}.inline{display:inline-block}.rows .button{width:auto;min-height:2.25rem;padding:.4rem .9rem}
.rows select{margin:0 .4rem}.muted{overflow-wrap:anywhere}h2{font-size:1.05rem;margin:1.5rem 0 .5rem}h3{font-size:.95rem;margin:1rem 0 .5rem}
textarea{width:100%;font:.8rem/1.3 ui-monospace,monospace;color:var(--text);background:var(--input);border:1px solid var(--input-border);border-radius:8px;padding:.6rem .75rem;resize:vertical}
select{font:inherit;color:var(--text);background:var(--input);border:1px solid var(--input-border);border-radius:8px;padding:.45rem .6rem;min-height:2.25rem}`;

function hidden(p: SsoPageParams): SafeHtml {
  return html`<input type="hidden" name="csrfToken"${attr('value', p.csrfToken)}><input type="hidden" name="page" value="1">`;
}

function field(id: string, name: string, label: string, type = 'text', required = true): SafeHtml {
  return html`<div class="field"><label for="${id}">${label}</label><input id="${id}" name="${name}" type="${type}"${required ? html` required` : ''}></div>`;
}

function connectionsSection(p: SsoPageParams, i18n: Translator): SafeHtml {
  const base = `${p.authUrl}/organizations/sso/connections`;
  const rows = p.connections.map(
    (c) => html`<li data-connection="${c.id}"><strong>${c.name}</strong> <span class="muted">${c.kind.toUpperCase()} · ${c.enabled ? i18n.t('sso.enabled') : '—'} · ${c.defaultRole}</span>
${c.issuer ? html`<div class="muted"><code>${c.issuer}</code></div>` : ''}<div class="muted">${c.spMetadataUrl ? i18n.t('sso.samlEndpoints', { acs: c.redirectUri, metadata: c.spMetadataUrl }) : i18n.t('sso.redirectUri', { uri: c.redirectUri })}</div>
<form method="post" class="inline"${attr('action', `${base}/${encodeURIComponent(c.id)}/delete`)}>${hidden(p)}<button type="submit" class="button secondary">${i18n.t('sso.delete')}</button></form></li>`,
  );
  const roles = p.roles.map((r) => html`<option${attr('value', r)}${r === 'member' ? html` selected` : ''}>${r}</option>`);
  return html`<section data-section="connections"><h2>${i18n.t('sso.connections')}</h2>
${rows.length ? html`<ul class="rows">${rows}</ul>` : html`<p class="muted">${i18n.t('sso.noConnections')}</p>`}
<h3>${i18n.t('sso.addConnection')}</h3>
<form method="post"${attr('action', base)} data-form="add-connection">${hidden(p)}<input type="hidden" name="kind" value="oidc">
${field('c-name', 'name', i18n.t('sso.name'))}${field('c-issuer', 'issuer', i18n.t('sso.issuer'), 'url')}${field('c-client', 'clientId', i18n.t('sso.clientId'))}${field('c-secret', 'clientSecret', i18n.t('sso.clientSecret'), 'password')}
<div class="field"><label for="c-scopes">${i18n.t('sso.scopes')}</label><input id="c-scopes" name="scopes" value="openid email profile"></div>
<div class="field"><label for="c-role">${i18n.t('sso.defaultRole')}</label><select id="c-role" name="defaultRole">${roles}</select></div>
<button type="submit" class="button">${i18n.t('sso.save')}</button></form>
<h3>${i18n.t('sso.addSamlConnection')}</h3>
<form method="post"${attr('action', base)} data-form="add-saml-connection">${hidden(p)}<input type="hidden" name="kind" value="saml">
${field('s-name', 'name', i18n.t('sso.name'))}${field('s-entity', 'idpEntityId', i18n.t('sso.idpEntityId'))}${field('s-sso', 'idpSsoUrl', i18n.t('sso.idpSsoUrl'), 'url')}
<div class="field"><label for="s-cert">${i18n.t('sso.idpCertificate')}</label><textarea id="s-cert" name="idpCertificates" rows="6" required spellcheck="false"></textarea></div>
<div class="field"><label for="s-role">${i18n.t('sso.defaultRole')}</label><select id="s-role" name="defaultRole">${roles}</select></div>
<button type="submit" class="button">${i18n.t('sso.save')}</button></form></section>`;
}

function domainsSection(p: SsoPageParams, i18n: Translator): SafeHtml {
  const base = `${p.authUrl}/organizations/sso/domains`;
  const rows = p.domains.map((d) => {
    const options = [html`<option value="">${i18n.t('sso.nowhere')}</option>`, ...p.connections.map((c) => html`<option${attr('value', c.id)}${c.id === d.connectionId ? html` selected` : ''}>${c.name}</option>`)];
    const domain = html`<input type="hidden" name="domain"${attr('value', d.domain)}>`;
    return html`<li data-domain="${d.domain}"><strong>${d.domain}</strong> <span class="muted">${d.verified ? i18n.t('sso.verified') : i18n.t('sso.unverified')}</span>
${d.verified ? '' : html`<p class="muted">${i18n.t('sso.txt', { host: d.txtHost, value: d.txtValue })}</p><form method="post" class="inline"${attr('action', `${base}/verify`)}>${hidden(p)}${domain}<button type="submit" class="button">${i18n.t('sso.verify')}</button></form>`}
<form method="post" class="inline"${attr('action', `${base}/route`)}>${hidden(p)}${domain}<label>${i18n.t('sso.routeTo')} <select name="connectionId">${options}</select></label> <button type="submit" class="button secondary">${i18n.t('sso.save')}</button></form>
<form method="post" class="inline"${attr('action', `${base}/delete`)}>${hidden(p)}${domain}<button type="submit" class="button secondary">${i18n.t('sso.delete')}</button></form></li>`;
  });
  return html`<section data-section="domains"><h2>${i18n.t('sso.domains')}</h2>
${rows.length ? html`<ul class="rows">${rows}</ul>` : html`<p class="muted">${i18n.t('sso.noDomains')}</p>`}
<form method="post"${attr('action', base)} data-form="claim-domain">${hidden(p)}${field('d-domain', 'domain', i18n.t('sso.domain'))}<button type="submit" class="button">${i18n.t('sso.claim')}</button></form></section>`;
}

/** The page, as HTML. */
export function renderSsoPage(p: SsoPageParams): string {
  const i18n = p.i18n ?? english;
  const title = i18n.t('sso.title');
  const codeLike = /^[A-Za-z]{1,40}$/;
  const body = html`<h1>${title}</h1>
${p.error && codeLike.test(p.error) ? html`<p class="alert" role="alert">${i18n.t('sso.error', { type: p.error })}</p>` : ''}
${p.notice === 'saved' ? html`<p class="done" role="status">${i18n.t('sso.saved')}</p>` : ''}
${connectionsSection(p, i18n)}
${domainsSection(p, i18n)}`;
  return layout({ title, theme: p.theme, body, css, nonce: p.nonce, i18n });
}
