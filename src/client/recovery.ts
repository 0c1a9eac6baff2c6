// Password recovery from a page of the app's own: ask for the mail, then set the new password with the link's token.
// Both go through the built-in recovery flow (`{basePath}/recover/:provider`), which answers the same whatever the
// address; a step it cannot take says why on its own page, whose URL comes back.
import { basePath, postForm, type SignInResult } from './core.js';

/** Options of {@link requestPasswordReset} and {@link resetPassword}. */
export interface PasswordResetOptions {
  /** The Password provider's id (default `password`). */
  providerId?: string;
}

const recoverUrl = (providerId = 'password') => `${basePath()}/recover/${encodeURIComponent(providerId)}`;

/**
 * Asks for a reset mail for `email`. Resolves alike for every address (nothing tells whether an account exists):
 * `url` is the page where the code from the mail is typed, in this browser.
 *
 * @example
 * const { url } = await requestPasswordReset(form.email.value)
 * show('If an account exists, we sent it a link and a code.'); codeLink.href = url
 */
export async function requestPasswordReset(email: string, options: PasswordResetOptions = {}): Promise<SignInResult> {
  const { result, to } = await postForm(recoverUrl(options.providerId), { email });
  return { ...result, url: to };
}

/**
 * Sets a new password with the token of a reset link (its `token` query parameter). `ok`: the password is changed,
 * every session of the account ended, and `url` is the sign-in page; there is no sign-in here. Otherwise `error` is
 * `PasswordNotReset` and `url` the page that says why (a password the rules refuse, a link used or expired).
 *
 * @example
 * const result = await resetPassword(new URL(location.href).searchParams.get('token')!, form.password.value)
 * location.assign(result.url!)
 */
export async function resetPassword(token: string, password: string, options: PasswordResetOptions = {}): Promise<SignInResult> {
  const url = recoverUrl(options.providerId);
  // Opening the link seals the reset in this browser's cookie; the password goes to it.
  const opened = await fetch(`${url}?${new URLSearchParams({ token })}`, { headers: { 'x-auth-return-redirect': '1' } });
  await opened.body?.cancel();
  const { result, to } = await postForm(url, { password });
  const done = to !== null && new URL(to).searchParams.get('notice') === 'passwordReset';
  return done ? { ...result, ok: true, error: null, url: to } : { ...result, ok: false, error: 'PasswordNotReset', url: to };
}
