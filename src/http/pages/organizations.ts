// The organizations page: the user's organizations with a switch, a new one; in the active one, its members with
// their roles (change, remove) and its pending invitations (invite, revoke), each shown only to a role that may.
// Plain forms posting to the page's own route: it works without script.
import { attr, html, safeUrl, type SafeHtml } from '../../core/html-escape.js';
import { english } from '../../core/messages/english.js';
import { type Translator } from '../../core/messages/translator.js';
import { dangerCss } from './confirm.js';
import { layout, type Theme } from './theme.js';

/** Input of {@link renderOrganizationsPage}. */
export interface OrganizationsPageParams {
  theme: Theme;
  authUrl: string;
  csrfToken: string;
  organizations: { id: string; name: string; role: string }[];
  /** The active organization with what this member may do in it, or undefined. */
  active?: { id: string; role: string; canRead: boolean; canInvite: boolean; canChangeRoles: boolean; canRemove: boolean };
  /** The members (when the role may read them), each with a name to show. */
  members: { userId: string; label: string; role: string; you: boolean }[];
  invitations: { id: string; email: string; role: string; expires: string }[];
  /** The role names the member may hand out. */
  roles: string[];
  /** An error message already in the reader's language. */
  error?: string;
  nonce?: string;
  i18n?: Translator;
}

const css = `.card{max-width:36rem}
.rows{list-style:none;padding:0;margin:0 0 1rem}
.rows li{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:.5rem .75rem;padding:.75rem 0;border-bottom:1px solid var(--border)}
.rows li>span{flex:1 1 12rem;min-width:0;overflow-wrap:anywhere}
.rows form,.inline{margin:0;display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.rows .button,.inline .button{width:auto;min-height:2.5rem;padding:.45rem .9rem}
.rows select,.inline select{width:auto;min-height:2.5rem;padding:.3rem .5rem;border:1px solid var(--border);border-radius:8px;background:var(--input);color:var(--text);font:inherit}
.acts{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.back{margin-top:1.5rem}
.badge{display:inline-block;font-size:.75rem;font-weight:600;padding:.05rem .5rem;border-radius:999px;background:var(--notice-bg);border:1px solid var(--notice-border);margin-inline-start:.35rem}
h2{font-size:1.05rem;margin:1.5rem 0 .5rem}
${dangerCss}`;

function form(params: OrganizationsPageParams, action: string, fields: Record<string, string>, inner: SafeHtml | SafeHtml[], name: string): SafeHtml {
  return html`<form method="post" class="inline"${attr('action', safeUrl(`${params.authUrl}/account/organizations`))}${attr('data-org-action', name)}><input type="hidden" name="csrfToken"${attr('value', params.csrfToken)}><input type="hidden" name="action"${attr('value', action)}>${Object.entries(fields).map(([n, v]) => html`<input type="hidden"${attr('name', n)}${attr('value', v)}>`)}${inner}</form>`;
}

function roleSelect(roles: string[], selected: string, i18n: Translator): SafeHtml {
  return html`<select name="role"${attr('aria-label', i18n.t('organizations.role'))}>${roles.map((r) => html`<option${attr('value', r)}${r === selected ? html` selected` : ''}>${r}</option>`)}</select>`;
}

/**
 * Renders the organizations page.
 *
 * @example
 * renderOrganizationsPage({ theme: {}, authUrl: '/auth', csrfToken, organizations: [], members: [], invitations: [], roles: [] })
 */
export function renderOrganizationsPage(params: OrganizationsPageParams): string {
  const i18n = params.i18n ?? english;
  const title = i18n.t('organizations.title');
  const { active } = params;
  const switcher = params.organizations.length
    ? html`<ul class="rows" data-section="organizations">${params.organizations.map((o) =>
        html`<li${attr('data-organization', o.id)}><span>${o.name} <small class="muted">${o.role}</small>${o.id === active?.id ? html`<span class="badge">${i18n.t('organizations.active')}</span>` : ''}</span>${o.id === active?.id ? '' : form(params, 'switch', { organizationId: o.id }, html`<button type="submit" class="button secondary">${i18n.t('organizations.switch')}</button>`, 'switch')}</li>`,
      )}</ul>`
    : html`<p class="muted">${i18n.t('organizations.none')}</p>`;
  const create = form(params, 'create', {}, html`<input name="name" required maxlength="200"${attr('aria-label', i18n.t('organizations.name'))}${attr('placeholder', i18n.t('organizations.name'))}><button type="submit" class="button secondary">${i18n.t('organizations.create')}</button>`, 'create');
  const members = active?.canRead
    ? html`<h2>${i18n.t('organizations.members')}</h2><ul class="rows" data-section="members">${params.members.map((m) =>
        html`<li${attr('data-member', m.userId)}><span>${m.label}${m.you ? html` <small class="muted">(${i18n.t('organizations.you')})</small>` : ''}<br><small class="muted" data-role>${m.role}</small></span><div class="acts">${
          active.canChangeRoles && params.roles.includes(m.role) && !m.you
            ? form(params, 'role', { userId: m.userId }, html`${roleSelect(params.roles, m.role, i18n)}<button type="submit" class="button secondary">${i18n.t('organizations.changeRole')}</button>`, 'role')
            : ''
        }${active.canRemove && params.roles.includes(m.role) && !m.you ? form(params, 'remove', { userId: m.userId }, html`<button type="submit" class="button danger">${i18n.t('organizations.remove')}</button>`, 'remove') : ''}</div></li>`,
      )}</ul>`
    : '';
  const invitations = active?.canInvite
    ? html`<h2>${i18n.t('organizations.invitations')}</h2>${
        params.invitations.length
          ? html`<ul class="rows" data-section="invitations">${params.invitations.map((inv) =>
              html`<li${attr('data-invitation', inv.id)}><span>${inv.email} <small class="muted">${inv.role}</small><br><small class="muted">${i18n.t('organizations.expires', { date: i18n.date(inv.expires) })}</small></span>${form(params, 'revoke', { id: inv.id }, html`<button type="submit" class="button danger">${i18n.t('organizations.revoke')}</button>`, 'revoke')}</li>`,
            )}</ul>`
          : html`<p class="muted">${i18n.t('organizations.noInvitations')}</p>`
      }${form(params, 'invite', {}, html`<input type="email" name="email" required${attr('aria-label', i18n.t('organizations.inviteEmail'))}${attr('placeholder', i18n.t('organizations.inviteEmail'))}>${roleSelect(params.roles, 'member', i18n)}<button type="submit" class="button">${i18n.t('organizations.invite')}</button>`, 'invite')}`
    : '';
  const body = html`<h1>${title}</h1>
${params.error ? html`<p class="alert" role="alert">${params.error}</p>` : ''}
${switcher}
${create}
${members}
${invitations}
<p class="center back"><a${attr('href', safeUrl(`${params.authUrl}/account`))}>${i18n.t('changePassword.back')}</a></p>`;
  return layout({ title, theme: params.theme, body, css, nonce: params.nonce, i18n });
}
