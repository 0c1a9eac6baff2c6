// Changing the password of the signed-in user from a page of the app's own: the built-in signed-in flow
// (`{basePath}/flows/change-password`) started and answered by `fetch`, read as data.
import { basePath, postForm, settle, type SignInResult } from './core.js';

/** Whether `url` is the page of a paused flow (`{basePath}/flow/:slot`), rather than a sign-in or the way back. */
const isFlowPage = (url: string | null): boolean => url !== null && /\/flow\/[^/]+$/.test(new URL(url).pathname);

/** What {@link changePassword} sends. */
export interface ChangePasswordOptions {
  /** The password the user has now; leave it out for a user who has none yet (signed in with OAuth, a link, a passkey). */
  currentPassword?: string;
  newPassword: string;
  /** Where the flow's pages lead back to (default: the current page). */
  callbackUrl?: string;
}

/**
 * Changes (or sets) the signed-in user's password. `ok`: stored, every other session of the user ended (this one
 * stays), a notice mailed. Otherwise `error` says why and `url` where to go:
 * - `RecentSignInRequired`: the sign-in is older than the flow allows (or there is none); `url` signs in again.
 * - `InvalidRequest`: the form was refused (a wrong current password, a new one the rules refuse, too many tries);
 *   `url` is the flow's page that shows the problem beside its field.
 * - anything else: the error page's type, with `url` the error page.
 *
 * @example
 * const result = await changePassword({ currentPassword: form.current.value, newPassword: form.next.value })
 * if (result.error === 'RecentSignInRequired') location.assign(result.url!)
 * else if (!result.ok) show('That did not work: check the current password and use a longer new one.')
 */
export async function changePassword(options: ChangePasswordOptions): Promise<SignInResult> {
  const { currentPassword, newPassword, callbackUrl = window.location.href } = options;
  const flow = `${basePath()}/flows/change-password`;
  const started = await postForm(`${flow}/start`, { callbackUrl });
  // Below the flow's level the start answers the sign-in (or factor check) page instead of the flow's own.
  if (!started.result.ok) return started.result;
  if (!isFlowPage(started.to)) {
    return { ...started.result, ok: false, error: 'RecentSignInRequired', url: started.to };
  }
  const posted = await postForm(flow, { ...(currentPassword !== undefined ? { current: currentPassword } : {}), next: newPassword });
  const { result, to } = posted;
  if (!result.ok) return { ...result, url: to };
  // The flow paused again (it never should on success): its page, not a change.
  if (isFlowPage(to)) return { ...result, ok: false, error: 'InvalidRequest', url: to };
  return settle(posted, false, 'update');
}
