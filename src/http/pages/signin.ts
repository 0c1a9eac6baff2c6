// The built-in sign-in page: one section per way to sign in (provider buttons, e-mail, credentials,
// passkey, custom providers) and a friendly message when a previous attempt failed.

import type { ProviderType } from '../../core/types.js';
import { readableTextOn, safeColor } from '../../core/color.js';
import { attr, html, safeUrl, type SafeHtml } from '../../core/html-escape.js';
import { layout, type Theme } from './theme.js';

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
  credentials?: Record<string, { label?: string; type?: string; placeholder?: string; autocomplete?: string }>;
  enableConditionalUI?: boolean;
  /** A custom provider's inputs, in order. */
  formFields?: Record<string, PageFormField>;
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
}

const defaultMessage = 'Unable to sign in. Try again, or choose a different way to sign in.';

/** Sentence shown on the sign-in page per error type (including the legacy codes older apps still send). */
export const signInErrorMessages: Readonly<Record<string, string>> = {
  CredentialsSignin: 'Sign in failed. Check the details you provided are correct.',
  OAuthAccountNotLinked: 'To confirm your identity, sign in with the same account you used originally.',
  AccountNotLinked: 'This account is already linked to another user. Sign in with the account you used originally.',
  MissingCSRF: 'This sign-in form has expired. Reload the page and try again.',
  OAuthCallbackError: 'The sign-in provider reported a problem. Try again, or choose a different way to sign in.',
  OAuthSignInError: 'Sign in with that provider could not be started. Try again, or choose a different way to sign in.',
  AccessDenied: 'You do not have permission to sign in.',
  Verification: 'That sign-in link is no longer valid. It may have been used already or it may have expired. Request a new one below.',
  EmailSignInError: 'The sign-in e-mail could not be sent. Check your address and try again.',
  RateLimited: 'Too many sign-in attempts. Wait a few minutes, then try again.',
  WebAuthnVerificationError: 'Your passkey could not be verified. Try again, or choose a different way to sign in.',
  Configuration: 'Sign in is unavailable right now because of a server problem. Please try again later.',
  SessionRequired: 'Please sign in to view this page.',
  OAuthSignin: 'Sign in with that provider could not be started. Try again, or choose a different way to sign in.',
  OAuthCallback: 'The sign-in provider reported a problem. Try again, or choose a different way to sign in.',
  OAuthCreateAccount: 'Your account could not be created. Try again, or choose a different way to sign in.',
  EmailCreateAccount: 'Your account could not be created. Try again, or choose a different way to sign in.',
  Callback: defaultMessage,
  EmailSignin: 'The sign-in e-mail could not be sent. Check your address and try again.',
};

// Only identifier-like codes are shown for unknown types, so a crafted `?error=` cannot put a sentence on the page.
const codeLike = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

function errorBox(error: string): SafeHtml {
  const known = Object.hasOwn(signInErrorMessages, error);
  const message = known ? signInErrorMessages[error] : defaultMessage;
  const code = !known && codeLike.test(error) ? html` <code>(${error})</code>` : '';
  return html`<div class="alert" role="alert">${message}${code}</div>`;
}

function hiddenFields(csrfToken: string, callbackUrl: string): SafeHtml {
  return html`<input type="hidden" name="csrfToken" value="${csrfToken}"><input type="hidden" name="callbackUrl" value="${callbackUrl}">`;
}

/** Per-provider button colours go in the page's <style> (keyed by index) so no inline style attribute is needed. */
function providerCss(provider: PageProvider, index: number): string {
  const bg = safeColor(provider.style?.bg) ?? safeColor(provider.style?.brandColor);
  const text = safeColor(provider.style?.text) ?? (bg ? readableTextOn(bg) : undefined);
  // A light button keeps the neutral border, or it would vanish into a light card.
  const border = bg && readableTextOn(bg) === '#ffffff' ? bg : undefined;
  const decls = [bg && `--p-bg:${bg}`, border && `--p-border:${border}`, text && `--p-text:${text}`].filter(Boolean);
  return decls.length ? `.p-${index}{${decls.join(';')}}` : '';
}

interface Ctx {
  csrfToken: string;
  callbackUrl: string;
  basePath: string;
  email?: string;
}

function oauthButton(p: PageProvider, index: number, ctx: Ctx): SafeHtml | undefined {
  const action = safeUrl(p.signinUrl);
  if (!action) return undefined;
  const logo = safeUrl(p.style?.logo, { allowSvgData: true });
  return html`<form method="post"${attr('action', action)}>${hiddenFields(ctx.csrfToken, ctx.callbackUrl)}<button type="submit" class="button provider p-${index}">${logo ? html`<img${attr('src', logo)} alt="" width="20" height="20">` : ''}<span>Sign in with ${p.name}</span></button></form>`;
}

function emailForm(p: PageProvider, index: number, ctx: Ctx): SafeHtml | undefined {
  const action = safeUrl(p.signinUrl);
  if (!action) return undefined;
  const id = `email-${index}`;
  return html`<form method="post"${attr('action', action)}>${hiddenFields(ctx.csrfToken, ctx.callbackUrl)}
<div><label for="${id}">Email</label><input id="${id}" type="email" name="email" autocomplete="email" required placeholder="you@example.com"${attr('value', ctx.email)}></div>
<button type="submit" class="button">Sign in with ${p.name}</button></form>`;
}

const inputTypes = new Set(['text', 'password', 'email', 'tel', 'number', 'url', 'search']);

/** One labelled input per field; unknown input types become text, ids are unique per provider (`prefix-index-i`). */
function inputFields(fields: Record<string, PageFormField>, prefix: string, index: number, ctx: Ctx): SafeHtml[] {
  return Object.entries(fields).map(([name, field], i) => {
    const id = `${prefix}-${index}-${i}`;
    const type = field.type && inputTypes.has(field.type) ? field.type : 'text';
    const autocomplete = field.autocomplete ?? (type === 'password' ? 'current-password' : undefined);
    // Only an e-mail input is prefilled (`?email=`), as on the e-mail provider's form.
    const value = type === 'email' ? ctx.email : undefined;
    return html`<div><label for="${id}">${field.label ?? name}</label><input id="${id}" name="${name}" type="${type}"${attr('placeholder', field.placeholder)}${attr('autocomplete', autocomplete)}${field.required ? html` required` : ''}${attr('value', value)}></div>`;
  });
}

function credentialsForm(p: PageProvider, index: number, ctx: Ctx): SafeHtml | undefined {
  // Credentials are checked by the callback route, so the form posts there, not to signinUrl.
  const action = safeUrl(p.callbackUrl);
  if (!action) return undefined;
  const fields = inputFields(p.credentials ?? {}, 'cred', index, { ...ctx, email: undefined });
  return html`<form method="post"${attr('action', action)}>${hiddenFields(ctx.csrfToken, ctx.callbackUrl)}
${fields}
<button type="submit" class="button">Sign in with ${p.name}</button></form>`;
}

/** A custom provider: its flow starts at POST signin/:id, with the CSRF token and whatever fields it declares. */
function customForm(p: PageProvider, index: number, ctx: Ctx): SafeHtml | undefined {
  const action = safeUrl(p.signinUrl);
  if (!action) return undefined;
  return html`<form method="post"${attr('action', action)}>${hiddenFields(ctx.csrfToken, ctx.callbackUrl)}
${inputFields(p.formFields ?? {}, 'custom', index, ctx)}
<button type="submit" class="button">Sign in with ${p.name}</button></form>`;
}

function webauthnSection(p: PageProvider, index: number, ctx: Ctx): SafeHtml | undefined {
  const callback = safeUrl(p.callbackUrl);
  const options = safeUrl(`${ctx.basePath}/webauthn-options/${encodeURIComponent(p.id)}`);
  if (!callback || !options) return undefined;
  const id = `passkey-${index}`;
  // Buttons are type="button": the passkey ceremony needs the script, and without it nothing should submit.
  return html`<div class="section" data-webauthn${attr('data-provider-id', p.id)}${attr('data-options-url', options)}${attr('data-callback-url', callback)}${attr('data-csrf-token', ctx.csrfToken)}${attr('data-callback-url-after', ctx.callbackUrl)}>
<div><label for="${id}">Email</label><input id="${id}" type="email" name="email" autocomplete="${p.enableConditionalUI ? 'username webauthn' : 'email'}" placeholder="you@example.com"${attr('value', ctx.email)}></div>
<button type="button" class="button" data-action="authenticate">Sign in with a passkey</button>
<button type="button" class="button secondary" data-action="register">Register a passkey</button>
<noscript><p class="muted center">Passkeys need JavaScript to be enabled.</p></noscript>
</div>`;
}

const divider = html`<div class="divider" role="separator" aria-label="or">or</div>`;

/**
 * Renders the sign-in page listing every provider. Consecutive OAuth/OIDC providers share one group of
 * buttons; every other provider gets its own section, separated by an "or" divider.
 *
 * @example
 * renderSignIn({ providers, csrfToken, callbackUrl: '/', theme: {}, basePath: '/auth', error: 'CredentialsSignin' })
 */
export function renderSignIn(params: SignInPageParams): string {
  const ctx: Ctx = { csrfToken: params.csrfToken, callbackUrl: params.callbackUrl, basePath: params.basePath, email: params.email };
  const sections: SafeHtml[] = [];
  let buttons: SafeHtml[] = [];
  const flush = () => {
    if (buttons.length) sections.push(html`<div class="providers">${buttons}</div>`);
    buttons = [];
  };
  let css = '';
  params.providers.forEach((p, i) => {
    if (p.type === 'oauth' || p.type === 'oidc') {
      const button = oauthButton(p, i, ctx);
      if (button) {
        buttons.push(button);
        css += providerCss(p, i);
      }
      return;
    }
    flush();
    const render = p.type === 'email' ? emailForm : p.type === 'credentials' ? credentialsForm : p.type === 'webauthn' ? webauthnSection : customForm;
    const section = render?.(p, i, ctx);
    if (section) sections.push(section);
  });
  flush();

  const script = params.providers.some((p) => p.type === 'webauthn') ? safeUrl(`${params.basePath}/webauthn-script.js`) : undefined;
  const body = html`<h1>Sign in</h1>
${params.error ? errorBox(params.error) : ''}
${sections.length ? sections.map((s, i) => (i ? html`${divider}${s}` : s)) : html`<p class="muted center">No sign-in methods are configured.</p>`}
${script ? html`<script${attr('src', script)}${attr('nonce', params.nonce)} defer></script>` : ''}`;
  return layout({ title: 'Sign in', theme: params.theme, body, css, nonce: params.nonce });
}
