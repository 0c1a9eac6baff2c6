// The Password provider's sign-up page: name, address and password, each problem shown beside its field (linked with
// aria-describedby), the values a person typed kept (never the password), and a way back to sign in.
import { attr, html, safeUrl } from '../../core/html-escape.js';
import { english } from '../../core/messages/english.js';
import { type Translator } from '../../core/messages/translator.js';
import type { FlowText, SignUpPage } from '../../flows/runtime/contract.js';
import { MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH } from '../../providers/password/rules.js';
import { layout, type Theme } from './theme.js';

/** Input of {@link renderSignUp}. */
export interface SignUpPageParams {
  theme: Theme;
  /** `{origin}{basePath}`: the form posts to `signup/<provider>`, the way back is `signin`. */
  authUrl: string;
  csrfToken: string;
  page: SignUpPage;
  /** The provider's shortest password (its `signUp.minLength`). */
  minLength?: number;
  nonce?: string;
  i18n?: Translator;
}

const say = (text: FlowText, i18n: Translator) => (typeof text === 'string' ? text : i18n.t(text.message, text.values));

/**
 * Renders the sign-up page.
 *
 * @example
 * renderSignUp({ theme: {}, authUrl: 'https://app.example/auth', csrfToken, page: { provider: 'password', email: '', name: '', errors: {} } })
 */
export function renderSignUp(params: SignUpPageParams): string {
  const i18n = params.i18n ?? english;
  const { page } = params;
  const title = i18n.t('signup.title');
  const action = safeUrl(`${params.authUrl}/signup/${encodeURIComponent(page.provider)}`);
  const signIn = safeUrl(`${params.authUrl}/signin`);
  const min = params.minLength ?? MIN_PASSWORD_LENGTH;
  const { email: emailError, password: passwordError } = page.errors;
  const problem = (id: string, text: FlowText | undefined) => (text ? html`<p class="field-error" id="${id}" role="alert">${say(text, i18n)}</p>` : '');
  const body = html`<h1>${title}</h1>
<form method="post"${attr('action', action)} novalidate>
<input type="hidden" name="csrfToken" value="${params.csrfToken}">
<div><label for="signup-name">${i18n.t('signup.name')}</label><input id="signup-name" name="name" type="text" autocomplete="name" maxlength="200" value="${page.name}"></div>
<div><label for="signup-email">${i18n.t('signup.email')}</label><input id="signup-email" name="email" type="email" autocomplete="username" required value="${page.email}"${emailError ? html` aria-invalid="true" aria-describedby="signup-email-error" autofocus` : ''}>${problem('signup-email-error', emailError)}</div>
<div><label for="signup-password">${i18n.t('signup.password')}</label><input id="signup-password" name="password" type="password" autocomplete="new-password" required minlength="${String(min)}" maxlength="${String(MAX_PASSWORD_LENGTH)}" aria-describedby="signup-password-hint${passwordError ? ' signup-password-error' : ''}"${passwordError ? html` aria-invalid="true" autofocus` : ''}><p class="muted hint" id="signup-password-hint">${i18n.t('signup.passwordHint', { min })}</p>${problem('signup-password-error', passwordError)}</div>
<button type="submit" class="button">${i18n.t('signup.submit')}</button>
</form>
${signIn ? html`<p class="center"><a${attr('href', signIn)}>${i18n.t('signup.haveAccount')}</a></p>` : ''}`;
  return layout({ title, i18n, theme: params.theme, body, css: '.field-error{margin:.25rem 0 0;font-size:.875rem}.hint{margin:.25rem 0 0;font-size:.8rem}', nonce: params.nonce });
}
