// Every redirect target passes through the user's `redirect` callback; what comes back must be an http(s) URL.
import type { RequestContext } from './request-context.js';

/** Passes a URL through the `redirect` callback; a result that is not an http(s) URL falls back to the origin. */
export async function applyRedirectCallback(req: RequestContext, url: string): Promise<string> {
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
