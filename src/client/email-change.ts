// Changing the signed-in user's e-mail address from a page of the app's own: the built-in signed-in flow
// (`{basePath}/flows/change-email`) started and answered by `fetch`, read as data. Two calls, as a person takes two
// steps: the new address (a code goes to it), then the code from that mail.
import { basePath, postForm, settle, type SignInResult } from './core.js';

const isFlowPage = (url: string | null): boolean => url !== null && /\/flow\/[^/]+$/.test(new URL(url).pathname);
const flow = () => `${basePath()}/flows/change-email`;

/** What {@link changeEmail} sends. */
export interface ChangeEmailOptions {
  /** The new address. */
  email: string;
  /** Where the flow's pages lead back to (default: the current page). */
  callbackUrl?: string;
}

/**
 * Asks to change the signed-in user's address to `email`. `ok`: a code is on its way to the new address (for an
 * address of another account nothing is sent, and the answer is the same); answer it with {@link confirmEmailChange}.
 * Otherwise `error` says why and `url` where to go:
 * - `RecentSignInRequired`: the sign-in is older than the flow allows (or there is none); `url` signs in again.
 * - `InvalidRequest`: the address was refused (not an address, or already the user's); `url` is the flow's page
 *   that says so beside the field.
 *
 * @example
 * const asked = await changeEmail({ email: form.email.value })
 * if (asked.ok) showCodeField()
 */
export async function changeEmail(options: ChangeEmailOptions): Promise<SignInResult> {
  const { email, callbackUrl = window.location.href } = options;
  const started = await postForm(`${flow()}/start`, { callbackUrl });
  if (!started.result.ok) return started.result;
  if (!isFlowPage(started.to)) return { ...started.result, ok: false, error: 'RecentSignInRequired', url: started.to };
  const posted = await postForm(flow(), { email });
  if (!posted.result.ok) return { ...posted.result, url: posted.to };
  return isFlowPage(posted.to) ? { ...posted.result, ok: true, url: posted.to } : { ...posted.result, ok: false, error: 'InvalidRequest', url: posted.to };
}

/**
 * Answers the code mailed to the new address. `ok`: the address is the user's now (verified), and the old address was
 * told, with a way back. `InvalidRequest`: a wrong code (`url`: the page with the tries left), or the code is dead
 * (the address form again).
 *
 * @example
 * const done = await confirmEmailChange({ code: form.code.value })
 */
export async function confirmEmailChange(options: { code: string }): Promise<SignInResult> {
  const posted = await postForm(flow(), { code: options.code });
  const { result, to } = posted;
  if (!result.ok) return { ...result, url: to };
  if (isFlowPage(to)) return { ...result, ok: false, error: 'InvalidRequest', url: to };
  return settle(posted, false, 'update');
}
