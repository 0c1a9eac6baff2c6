// Where the account page is: the app's own (`pages.account`) or the built-in one. The account routes send the browser
// back there, and so does a link that failed (with the reason as `?error=`).
import type { AuthRequest } from './request.js';

/** The account page's absolute URL. */
export function accountUrl(req: AuthRequest): string {
  return new URL(req.config.pages.account ?? `${req.config.basePath}/account`, req.origin).href;
}

/** The account page saying why a link or unlink was refused (`?error=<public error type>`). */
export function accountErrorUrl(req: AuthRequest, type: string): string {
  const url = new URL(accountUrl(req));
  url.searchParams.set('error', type);
  return url.href;
}

/** The account page saying what just changed (`?done=<what>`: a passkey added, a device signed out, ...). */
export function accountDoneUrl(req: AuthRequest, done: string): string {
  const url = new URL(accountUrl(req));
  url.searchParams.set('done', done);
  return url.href;
}
