// Sign-up with a Password provider from a page of the app's own: the address and password posted by `fetch`,
// answered as data (the "check your e-mail" page to show, or a problem with the form).
import { basePath, postForm, settle, type SignInResult } from './core.js';

/** Options of {@link signUp}. */
export interface SignUpOptions {
  email: string;
  password: string;
  name?: string;
  /** Default true: the browser goes to the page the server answers (check your e-mail, or the form with its problem). */
  redirect?: boolean;
  /** Where to land once the address is proven and the user signed in (default: the current page). */
  redirectTo?: string;
}

/**
 * Starts a sign-up (`POST {basePath}/signup/:provider`). `ok` is true when a mail went out (or, with `createAccount:
 * 'at-once'`, the user is signed in); `url` is the page that asks for the mailed code. A form the server refuses
 * (a password too short, breached, an address that is none) is `ok: false` with `error: 'InvalidRequest'`, and its
 * page (`redirect: true`) shows the problem beside its field.
 *
 * @example
 * const result = await signUp('password', { email, password, redirect: false })
 * if (result.ok) location.href = result.url!
 */
export async function signUp(providerId: string, options: SignUpOptions): Promise<SignInResult> {
  const { redirect = true, redirectTo = window.location.href, email, password, name } = options;
  const posted = await postForm(`${basePath()}/signup/${encodeURIComponent(providerId)}`, { email, password, ...(name ? { name } : {}), callbackUrl: redirectTo });
  return settle(posted, redirect, 'signin');
}
