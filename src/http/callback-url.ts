// Where the browser goes after sign-in or sign-out: the body's, the query's or the cookie's
// callbackUrl, always passed through the `redirect` callback, which keeps it on our origin by default.
import { bodyString, type AuthRequest } from './request.js';
import { setCookie } from './response.js';
import { applyRedirectCallback } from '../core/redirect.js';

/** Resolves the callback URL for this request and remembers it in a cookie when it changed. */
export async function resolveCallbackUrl(req: AuthRequest): Promise<string> {
  const cookieName = req.cookieOptions.callbackUrl.name;
  const fromCookie = req.cookies[cookieName];
  const requested = bodyString(req, 'callbackUrl') ?? req.query.callbackUrl ?? bodyString(req, 'redirectTo') ?? fromCookie;
  const url = requested ? await applyRedirectCallback(req, requested) : req.origin;
  if (requested && url !== fromCookie) setCookie(req, { name: cookieName, value: url, options: req.cookieOptions.callbackUrl.options });
  return url;
}
