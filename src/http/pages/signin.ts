// The built-in sign-in page: provider buttons first, then the password form with the one primary button, then the
// ways without a password, all on one address field (an e-mail link, an e-mail code and passkeys share it, and so
// does a password form that asks for an address), and a friendly message when a previous attempt failed or the
// visitor is already signed in. An error about one field stands under that field, with what was typed kept.

import type { ProviderType } from '../../core/types.js';
import { readableTextOn, safeColor } from '../../core/color.js';
import { attr, html, safeUrl, type SafeHtml } from '../../core/html-escape.js';
import type { MessageId } from '../../core/messages/en.js';
import { english } from '../../core/messages/english.js';
import { type Translator } from '../../core/messages/translator.js';
import { passkeyTexts } from './passkey-texts.js';
import { signInErrorIds } from './signin-errors.js';
import { rich } from './text.js';
import { breakable, layout, type Theme } from './theme.js';

/** An input a custom provider asks for on the sign-in page (posted to signin/:id with the form). */
export interface PageFormField {
  label?: string;
  type?: string;
  placeholder?: string;
  autocomplete?: string;
  required?: boolean;
}

/** What the sign-in page needs to know about a provider. */
export interface PageProvider {
  id: string;
  name: string;
  /** A built-in type, or a custom provider's own (rendered as a form that POSTs signin/:id). */
  type: ProviderType | (string & {});
  signinUrl: string;
  callbackUrl: string;
  style?: { brandColor?: string; logo?: string; bg?: string; text?: string };
  credentials?: Record<string, { label?: string; type?: string; placeholder?: string; autocomplete?: string; required?: boolean }>;
  enableConditionalUI?: boolean;
  /** A Password provider's recovery page: its form links there ("Forgot your password?"). */
  recoverUrl?: string;
  /** A custom provider's inputs, in order. */
  formFields?: Record<string, PageFormField>;
  /** A Password provider that allows sign-up: its sign-up page, linked under its form. */
  signUpUrl?: string;
}

/** Input of {@link renderSignIn}. */
export interface SignInPageParams {
  providers: PageProvider[];
  csrfToken: string;
  /** Where to go after signing in; posted back with every form. */
  callbackUrl: string;
  /** Error type from `?error=`; shown as a friendly sentence, never as given. */
  error?: string;
  theme: Theme;
  basePath: string;
  /** Prefills e-mail inputs. */
  email?: string;
  /** The response's Content-Security-Policy nonce, put on the page's style and passkey script. */
  nonce?: string;
  /** Code sent with the error (`?code=`): `access_denied` on an OAuth callback means the sign-in was cancelled. */
  errorCode?: string;
  /** The provider an error came from (`?provider=`); named in the message only when the page lists it. */
  errorProvider?: string;
  /** The identifier typed into a password form that just failed: put back so only the wrong field is retyped. */
  typedIdentifier?: string;
  /** Who is signed in already (address or name): the page says so and offers to continue or switch. */
  signedInAs?: string;
  /** The page the visitor was sent here from (a path, when not the home page): the page says why they are here. */
  requestedPage?: string;
  /** The page's language; English when absent. */
  i18n?: Translator;
  /**
   * Errors about single fields of a form the server refused (field name -> sentence), each shown under its field;
   * `email` and `typedIdentifier` put back what was typed.
   */
  fieldErrors?: Readonly<Record<string, string>>;
  /** A notice from `?notice=` that a flow sent the visitor here with (`passwordReset`), said in words, never as given. */
  notice?: string;
  /** "Continue with SSO": where its form posts (`{basePath}/sso`), when the configuration has enterprise SSO. */
  ssoAction?: string;
}

/** The English sentence of each error type on the sign-in page. */
export const signInErrorMessages: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(signInErrorIds).map(([type, id]) => [type, english.text(id)]));

// Only identifier-like codes are shown for unknown types, so a crafted `?error=` cannot put a sentence on the page.
const codeLike = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** A message only this error, code and provider have: a cancelled provider sign-in names the provider (one the page lists, never a name from the URL). */
function specificMessage(params: SignInPageParams, i18n: Translator): string | undefined {
  // A passkey refused for the account signed in: only an account's owner, signed in to it, adds a passkey to it.
  if (params.error === 'AccountNotLinked' && params.providers.some((p) => p.type === 'webauthn' && p.id === params.errorProvider)) return i18n.t('signin.error.passkeyNotLinked');
  if (params.errorCode !== 'access_denied' || !['OAuthCallbackError', 'OAuthCallback', 'AccessDenied'].includes(params.error ?? '')) return undefined;
  const provider = params.providers.find((p) => p.id === params.errorProvider);
  return provider ? i18n.t('signin.error.cancelledWith', { provider: provider.name }) : i18n.t('signin.error.cancelled');
}

function errorBox(error: string, params: SignInPageParams, i18n: Translator): SafeHtml {
  const known = Object.hasOwn(signInErrorIds, error);
  const message = specificMessage(params, i18n) ?? i18n.t(known ? signInErrorIds[error]! : 'signin.error.default');
  const code = !known && codeLike.test(error) ? html` <code>(${error})</code>` : '';
  return html`<div class="alert" role="alert">${message}${code}</div>`;
}

function hiddenFields(csrfToken: string, callbackUrl: string): SafeHtml {
  return html`<input type="hidden" name="csrfToken" value="${csrfToken}"><input type="hidden" name="callbackUrl" value="${callbackUrl}">`;
}

/**
 * A provider's brand colour goes in the page's <style> (keyed by index) so no inline style attribute is needed. It
 * marks the button's leading edge; a light brand colour, which would vanish into a light card, keeps the neutral one.
 */
function providerCss(provider: PageProvider, index: number): string {
  const brand = safeColor(provider.style?.brandColor) ?? safeColor(provider.style?.bg);
  return brand && readableTextOn(brand) === '#ffffff' ? `.p-${index}{--p-brand:${brand}}` : '';
}

interface Ctx {
  csrfToken: string;
  callbackUrl: string;
  basePath: string;
  email?: string;
  /** Put back into the first text field of a password form after it failed, with focus on the next field. */
  typedIdentifier?: string;
  /** The class of the next password/custom form's button: the first one is the page's primary action. */
  primary: boolean;
  /** Someone is signed in: a passkey created here is added to their account. */
  signedIn: boolean;
  i18n: Translator;
  fieldErrors: Readonly<Record<string, string>>;
}

/** The sentence under a field the server refused, tied to the input by `aria-describedby`. */
function fieldError(name: string, id: string, ctx: Ctx): { attrs: SafeHtml | string; note: SafeHtml | string } {
  const message = Object.hasOwn(ctx.fieldErrors, name) ? ctx.fieldErrors[name] : undefined;
  if (message === undefined) return { attrs: '', note: '' };
  return { attrs: html` aria-invalid="true" aria-describedby="${id}-error" autofocus`, note: html`<p class="field-error" id="${id}-error">${message}</p>` };
}

/** The label of a field the app did not name: the address and password in the page's language, else the field's name. */
function fieldLabel(name: string, field: PageFormField, ctx: Ctx): string {
  if (field.label !== undefined) return field.label;
  if (field.type === 'password') return ctx.i18n.t('signin.passwordLabel');
  if (field.type === 'email' || name === 'email') return ctx.i18n.t('signin.emailLabel');
  return name;
}

/** The first password form's button is the page's one primary action; every other form's is outlined. */
function buttonClass(ctx: Ctx): string {
  const cls = ctx.primary ? 'button primary' : 'button secondary';
  ctx.primary = false;
  return cls;
}

/** A provider button is outlined: the brand colour marks its edge, so the page keeps one solid (primary) button. */
function oauthButton(p: PageProvider, index: number, ctx: Ctx): SafeHtml | undefined {
  const action = safeUrl(p.signinUrl);
  if (!action) return undefined;
  const logo = safeUrl(p.style?.logo, { allowSvgData: true });
  return html`<form method="post"${attr('action', action)}>${hiddenFields(ctx.csrfToken, ctx.callbackUrl)}<button type="submit" class="button provider p-${index}">${logo ? html`<img${attr('src', logo)} alt="" width="20" height="20">` : ''}<span>${ctx.i18n.t('signin.with', { provider: p.name })}</span></button></form>`;
}

/** The address field the e-mail link and passkeys share; `webauthn` in autocomplete offers passkeys in autofill. */
function addressField(id: string, ctx: Ctx, options: { webauthn: boolean; required: boolean }): SafeHtml {
  const error = fieldError('email', id, ctx);
  return html`<div class="field"><label for="${id}">${ctx.i18n.t('signin.emailLabel')}</label><input id="${id}" type="email" name="email" inputmode="email" autocomplete="${options.webauthn ? 'email webauthn' : 'email'}" spellcheck="false" autocapitalize="none"${options.required ? html` required` : ''} placeholder="${ctx.i18n.t('signin.emailPlaceholder')}"${attr('value', ctx.email)}${error.attrs}>${error.note}</div>`;
}

/** "Continue with SSO": a work address, sent to the connection its verified domain routes to (field `ssoEmail`'s errors). */
function ssoForm(action: string, ctx: Ctx): SafeHtml | undefined {
  const url = safeUrl(action);
  if (!url) return undefined;
  const error = fieldError('ssoEmail', 'sso-email', ctx);
  return html`<form method="post" class="sso"${attr('action', url)}>${hiddenFields(ctx.csrfToken, ctx.callbackUrl)}
<div class="field"><label for="sso-email">${ctx.i18n.t('signin.sso.email')}</label><input id="sso-email" type="email" name="email" inputmode="email" autocomplete="email" spellcheck="false" autocapitalize="none" required${attr('value', ctx.fieldErrors.ssoEmail ? ctx.email : undefined)}${error.attrs}>${error.note}</div>
<button type="submit" class="button secondary">${ctx.i18n.t('signin.sso.submit')}</button></form>`;
}

function emailForm(p: PageProvider, index: number, ctx: Ctx): SafeHtml | undefined {
  const action = safeUrl(p.signinUrl);
  if (!action) return undefined;
  return html`<form method="post"${attr('action', action)}>${hiddenFields(ctx.csrfToken, ctx.callbackUrl)}
${addressField(`email-${index}`, ctx, { webauthn: false, required: true })}
<button type="submit" class="button secondary">${ctx.i18n.t('signin.emailLink')}</button></form>`;
}

const inputTypes = new Set(['text', 'password', 'email', 'tel', 'number', 'url', 'search']);

const inputModes: Readonly<Record<string, string>> = { email: 'email', tel: 'tel', number: 'numeric', url: 'url' };

/**
 * One labelled input per field; unknown input types become text, ids are unique per provider (`prefix-index-i`).
 * In a password form (`identify`), the first non-password field is the username a password manager fills in, every
 * field is required unless it says `required: false`, and after a failure the typed identifier comes back with focus
 * on the field after it.
 */
function inputFields(fields: Record<string, PageFormField>, prefix: string, index: number, ctx: Ctx, identify = false): SafeHtml[] {
  const entries = Object.entries(fields);
  const identifier = identify ? entries.findIndex(([, f]) => f.type !== 'password') : -1;
  const refill = identifier >= 0 && ctx.typedIdentifier !== undefined;
  const anyError = entries.some(([name]) => Object.hasOwn(ctx.fieldErrors, name));
  return entries.map(([name, field], i) => {
    const id = `${prefix}-${index}-${i}`;
    const type = field.type && inputTypes.has(field.type) ? field.type : 'text';
    const autocomplete = field.autocomplete ?? (type === 'password' ? 'current-password' : i === identifier ? 'username' : undefined);
    // An e-mail input is prefilled (`?email=`), as on the e-mail provider's form; a failed form's identifier comes back.
    const value = refill && i === identifier ? ctx.typedIdentifier : type === 'email' ? ctx.email : undefined;
    const required = identify ? field.required !== false : field.required;
    // Focus goes to the field an error is about, else (after a wrong password) to the one after the identifier.
    const focus = !anyError && refill && i === identifier + 1;
    const error = fieldError(name, id, ctx);
    return html`<div class="field"><label for="${id}">${fieldLabel(name, field, ctx)}</label><input id="${id}" name="${name}" type="${type}"${attr('inputmode', inputModes[type])}${attr('placeholder', field.placeholder)}${attr('autocomplete', autocomplete)}${type === 'email' || i === identifier ? html` spellcheck="false" autocapitalize="none"` : ''}${required ? html` required` : ''}${focus ? html` autofocus` : ''}${attr('value', value)}${error.attrs}>${error.note}</div>`;
  });
}

/** The ways without a password that a form holding the address field offers under its own button. */
interface Passwordless {
  email?: PageProvider;
  passkey?: PageProvider;
}

/** The Password provider's default name (`Password()` with no `name`). */
const DEFAULT_PASSWORD_NAME = 'Password';

/** The first field a person types who they are into (not a password): a password form's identifier. */
function identifierOf(p: PageProvider): [string, PageFormField] | undefined {
  return Object.entries(p.credentials ?? {}).find(([, f]) => f.type !== 'password');
}

/** A password form asks for an address the e-mail link and passkeys can share: its identifier is `email`, typed as one. */
function asksForAddress(p: PageProvider): boolean {
  const identifier = identifierOf(p);
  return identifier !== undefined && identifier[0] === 'email' && identifier[1].type === 'email';
}

/**
 * A password form. With `passwordless`, it holds the page's one address field and offers, under its primary button,
 * the e-mail link (a submit to the e-mail provider, checked by the server so a bad address comes back beside its
 * field) and the passkey buttons.
 */
function credentialsForm(p: PageProvider, index: number, ctx: Ctx, passwordless?: Passwordless): SafeHtml | undefined {
  // Credentials are checked by the callback route, so the form posts there, not to signinUrl.
  const action = safeUrl(p.callbackUrl);
  if (!action) return undefined;
  let credentials = p.credentials ?? {};
  if (passwordless?.passkey?.enableConditionalUI) credentials = { ...credentials, email: { ...credentials.email, autocomplete: 'username webauthn' } };
  const fields = inputFields(credentials, 'cred', index, passwordless ? ctx : { ...ctx, email: undefined }, true);
  // Links of this password form ("Forgot your password?", "Create an account") go in `links`: under its button,
  // stacked with room to tap, before the ways without a password.
  const links: SafeHtml[] = [];
  const recover = p.recoverUrl ? safeUrl(p.recoverUrl) : undefined;
  if (recover) links.push(html`<a${attr('href', recover)} data-recover>${ctx.i18n.t('recovery.forgot')}</a>`);
  const signUp = p.signUpUrl ? safeUrl(p.signUpUrl) : undefined;
  if (signUp) links.push(html`<a${attr('href', signUp)} data-signup>${ctx.i18n.t('signup.link')}</a>`);
  const hook = passwordless?.passkey ? passkeyHook(passwordless.passkey, ctx) : undefined;
  // A Password provider under its default (English) name says "Sign in" in the reader's language, not "Sign in with
  // Password"; a name the app gave it stays.
  const submitText = recover && p.name === DEFAULT_PASSWORD_NAME ? ctx.i18n.t('common.signIn') : ctx.i18n.t('signin.with', { provider: p.name });
  return html`<form method="post" data-credentials${attr('action', action)}${hook ? html` ${hook}` : ''}>${hiddenFields(ctx.csrfToken, ctx.callbackUrl)}
${fields}
<button type="submit" class="${buttonClass(ctx)}">${submitText}</button>
${links.length ? html`<p class="links">${links}</p>` : ''}
${passwordless ? passwordlessChoices(passwordless, ctx) : ''}
</form>`;
}

/**
 * The e-mail link and passkey buttons inside the password form. The e-mail link is an `<input type="submit">` posting
 * the same form to the e-mail provider (`formaction`), unchecked by the browser (`formnovalidate`: the password
 * field's `required` is not for it); the password form's own submit stays its one `<button type="submit">`.
 */
function passwordlessChoices(passwordless: Passwordless, ctx: Ctx): SafeHtml {
  const emailAction = passwordless.email ? safeUrl(passwordless.email.signinUrl) : undefined;
  return html`<h2 class="section-title">${ctx.i18n.t('signin.withoutPassword')}</h2>
${emailAction ? html`<input type="submit" class="button secondary" data-email-link${attr('formaction', emailAction)} formnovalidate${attr('value', ctx.i18n.t('signin.emailLink'))}>` : ''}
${passwordless.passkey ? passkeyButtons(ctx) : ''}`;
}

/** A custom provider: its flow starts at POST signin/:id, with the CSRF token and whatever fields it declares. */
function customForm(p: PageProvider, index: number, ctx: Ctx): SafeHtml | undefined {
  const action = safeUrl(p.signinUrl);
  if (!action) return undefined;
  return html`<form method="post"${attr('action', action)}>${hiddenFields(ctx.csrfToken, ctx.callbackUrl)}
${inputFields(p.formFields ?? {}, 'custom', index, ctx)}
<button type="submit" class="${buttonClass(ctx)}">${ctx.i18n.t('signin.with', { provider: p.name })}</button></form>`;
}

/** The attributes the passkey script reads from the element around a passkey section's address and buttons. */
function passkeyHook(p: PageProvider, ctx: Ctx): SafeHtml | undefined {
  const callback = safeUrl(p.callbackUrl);
  const options = safeUrl(`${ctx.basePath}/webauthn-options/${encodeURIComponent(p.id)}`);
  if (!callback || !options) return undefined;
  return html`data-webauthn${attr('data-provider-id', p.id)}${attr('data-options-url', options)}${attr('data-callback-url', callback)}${attr('data-csrf-token', ctx.csrfToken)}${attr('data-callback-url-after', ctx.callbackUrl)}${passkeyTexts(ctx.i18n)}`;
}

/** "Sign in with a passkey", and the note offering to create one (or add one to the account signed in). */
function passkeyButtons(ctx: Ctx): SafeHtml {
  // Passkey buttons are type="button": the ceremony needs the script, and without it they must submit nothing.
  const { i18n } = ctx;
  const register = (id: MessageId) => html`<button type="button" class="link" data-action="register">${i18n.t(id)}</button>`;
  return html`<button type="button" class="button secondary" data-action="authenticate">${i18n.t('signin.passkey')}</button>
${
    ctx.signedIn
      ? html`<p class="muted small center">${rich(i18n, 'signin.passkeyAddNote', { button: register('signin.passkeyAdd') })}</p>`
      : html`<p class="muted small center">${rich(i18n, 'signin.passkeyCreateNote', { button: register('signin.passkeyCreate') })}</p>`
  }
<noscript><p class="muted center">${i18n.t('common.passkeysNeedScript')}</p></noscript>`;
}

/**
 * A passkey provider's section. With an e-mail provider (`email`) it is that provider's form too: one address field,
 * "Email me a sign-in link" submitting it, and the passkey buttons beside it.
 */
function webauthnSection(p: PageProvider, index: number, ctx: Ctx, email?: PageProvider): SafeHtml | undefined {
  const hook = passkeyHook(p, ctx);
  if (!hook) return undefined;
  const emailAction = email ? safeUrl(email.signinUrl) : undefined;
  const field = addressField(`passkey-${index}`, ctx, { webauthn: p.enableConditionalUI === true, required: Boolean(emailAction) });
  if (emailAction) {
    return html`<form method="post" class="section"${attr('action', emailAction)} ${hook}>${hiddenFields(ctx.csrfToken, ctx.callbackUrl)}
<h2 class="section-title">${ctx.i18n.t('signin.withoutPassword')}</h2>
${field}
<button type="submit" class="button secondary">${ctx.i18n.t('signin.emailLink')}</button>
${passkeyButtons(ctx)}
</form>`;
  }
  return html`<div class="section" ${hook}>
${field}
${passkeyButtons(ctx)}
</div>`;
}

const divider = (i18n: Translator) => html`<div class="divider" role="separator"${attr('aria-label', i18n.t('common.or'))}>${i18n.t('common.or')}</div>`;

/** "You are signed in as ...": continue where they were going, or pick another account below. */
function signedInBox(who: string, callbackUrl: string, i18n: Translator): SafeHtml {
  const next = safeUrl(callbackUrl) ?? '/';
  return html`<div class="notice" role="status"><p>${rich(i18n, 'signin.signedInAs', { who: html`<strong>${breakable(who)}</strong>` })}</p>
<a class="button primary"${attr('href', next)}>${i18n.t('common.continue')}</a>
<p class="muted small">${i18n.t('signin.otherAccount')}</p></div>`;
}

/**
 * Renders the sign-in page. All OAuth/OIDC buttons come first, in one group; then one "or"; then the password and
 * custom forms (the first one's button is the page's primary action); then the ways without a password: the first
 * e-mail provider and the first passkey provider share one address field, the password form's when it asks for an
 * address.
 *
 * @example
 * renderSignIn({ providers, csrfToken, callbackUrl: '/', theme: {}, basePath: '/auth', error: 'CredentialsSignin' })
 */
export function renderSignIn(params: SignInPageParams): string {
  const i18n = params.i18n ?? english;
  const ctx: Ctx = {
    i18n,
    csrfToken: params.csrfToken,
    callbackUrl: params.callbackUrl,
    basePath: params.basePath,
    email: params.email,
    typedIdentifier: params.error === 'CredentialsSignin' || params.fieldErrors ? params.typedIdentifier : undefined,
    primary: !params.signedInAs,
    signedIn: Boolean(params.signedInAs),
    fieldErrors: params.fieldErrors ?? {},
  };
  let css = '';
  const buttons: SafeHtml[] = [];
  const forms: SafeHtml[] = [];
  const passwordless: SafeHtml[] = [];
  const email = params.providers.find((p) => p.type === 'email' && safeUrl(p.signinUrl));
  const passkey = params.providers.find((p) => p.type === 'webauthn' && passkeyHook(p, ctx));
  // One address field on the page: a password form that asks for an address holds it for the e-mail link and
  // passkeys too; else the e-mail form joins the passkey section.
  const host = email || passkey ? params.providers.find((p) => p.type === 'credentials' && asksForAddress(p) && safeUrl(p.callbackUrl)) : undefined;
  const joined = !host && email && passkey ? email : undefined;
  params.providers.forEach((p, i) => {
    if (p.type === 'oauth' || p.type === 'oidc') {
      const button = oauthButton(p, i, ctx);
      if (button) {
        buttons.push(button);
        css += providerCss(p, i);
      }
      return;
    }
    if (p.type === 'email') {
      const section = p === joined || (host && p === email) ? undefined : emailForm(p, i, ctx);
      if (section) passwordless.push(section);
      return;
    }
    if (p.type === 'webauthn') {
      const section = host && p === passkey ? undefined : webauthnSection(p, i, ctx, p === passkey ? joined : undefined);
      if (section) passwordless.push(section);
      return;
    }
    const section = p.type === 'credentials' ? credentialsForm(p, i, ctx, p === host ? { email, passkey } : undefined) : customForm(p, i, ctx);
    if (section) forms.push(section);
  });
  // At most one "or": between the provider buttons and the forms, which follow one another without another.
  const sso = params.ssoAction ? ssoForm(params.ssoAction, ctx) : undefined;
  const rest = [...forms, ...passwordless, ...(sso ? [sso] : [])];
  const sections = [
    ...(buttons.length ? [html`<div class="providers">${buttons}</div>`] : []),
    ...(rest.length ? [html`<div class="forms">${rest}</div>`] : []),
  ];

  const script = params.providers.some((p) => p.type === 'webauthn') ? safeUrl(`${params.basePath}/webauthn-script.js`) : undefined;
  const why = params.requestedPage && !params.signedInAs && !params.error ? html`<p class="notice" role="status">${rich(i18n, 'signin.why', { page: breakable(params.requestedPage) })}</p>` : '';
  const body = html`<h1>${i18n.t('signin.title')}</h1>
${params.signedInAs ? signedInBox(params.signedInAs, params.callbackUrl, i18n) : ''}
${why}
${params.notice === 'passwordReset' && !params.error ? html`<p class="notice" role="status" data-notice="passwordReset">${i18n.t('recovery.done')}</p>` : ''}
${params.notice === 'emailRestored' && !params.error ? html`<p class="notice" role="status" data-notice="emailRestored">${i18n.t('changeEmail.restored')}</p>` : ''}
${params.error ? errorBox(params.error, params, i18n) : ''}
${sections.length ? sections.map((s, i) => (i ? html`${divider(i18n)}${s}` : s)) : html`<p class="muted center">${i18n.t('signin.none')}</p>`}
${script ? html`<script${attr('src', script)}${attr('nonce', params.nonce)} defer></script>` : ''}`;
  return layout({ title: i18n.t('signin.title'), theme: params.theme, body, css, nonce: params.nonce, i18n });
}
