// Where the browser goes after sign-in or sign-out: the body's, the query's or the cookie's
// callbackUrl, always passed through the `redirect` callback, which keeps it on our origin by default.
import { bodyString, type AuthRequest } from './request.js';
import { setCookie } from './response.js';

/** Passes a URL through the `redirect` callback; a result that is not an http(s) URL falls back to the origin. */
export async function applyRedirectCallback(req: AuthRequest, url: string): Promise<string> {
  const baseUrl = req.origin;
  let result: string;
  try {
    result = await req.config.callbacks.redirect({ url, baseUrl });
  } catch (err) {
    req.config.logger.error(err instanceof Error ? err : new Error(String(err)));
    return baseUrl;
  }
  try {
    const parsed = new URL(result, baseUrl);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : baseUrl;
  } catch {
    return baseUrl;
  }
}

/** Resolves the callback URL for this request and remembers it in a cookie when it changed. */
export async function resolveCallbackUrl(req: AuthRequest): Promise<string> {
  const cookieName = req.cookieOptions.callbackUrl.name;
  const fromCookie = req.cookies[cookieName];
  const requested = bodyString(req, 'callbackUrl') ?? req.query.callbackUrl ?? bodyString(req, 'redirectTo') ?? fromCookie;
  const url = requested ? await applyRedirectCallback(req, requested) : req.origin;
  if (requested && url !== fromCookie) setCookie(req, { name: cookieName, value: url, options: req.cookieOptions.callbackUrl.options });
  return url;
}
