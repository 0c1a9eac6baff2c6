// GET {basePath}/error and GET {basePath}/verify-request: built-in pages, or redirects to custom ones.
import { messagesFor } from '../../core/messages/request.js';
import { failedFlowTrace } from '../inspect-trace.js';
import { OUTAGE_RETRY_AFTER } from '../../core/store-deadline.js';
import { loadErrorPage, loadVerifyRequestPage } from '../pages/load.js';
import { resolveCallbackUrl } from '../callback-url.js';
import { csrf } from '../csrf.js';
import { pageNonce, type AuthRequest } from '../request.js';
import { sentTo } from '../signin-memory.js';
import { html, redirect } from '../response.js';

/** Error types are identifiers; anything else in `?error=` is shown as the default error. */
function errorParam(value: string | undefined): string {
  return value && /^[A-Za-z]{1,64}$/.test(value) ? value : 'Default';
}

export async function errorPage(req: AuthRequest): Promise<Response> {
  const error = errorParam(req.query.error);
  if (req.config.pages.error) {
    const url = new URL(req.config.pages.error, req.origin);
    url.searchParams.set('error', error);
    return redirect(req, url.href);
  }
  const page = (await loadErrorPage()).renderError({ error, theme: req.config.theme, basePath: req.config.basePath, signinUrl: `${req.authUrl}/signin`, homeUrl: req.origin, trace: await failedFlowTrace(req, error), nonce: pageNonce(req), i18n: await messagesFor(req) });
  if (page.status === 503) req.headers.set('retry-after', String(OUTAGE_RETRY_AFTER));
  return html(req, page.html, page.status);
}

export async function verifyRequestPage(req: AuthRequest): Promise<Response> {
  if (req.config.pages.verifyRequest) {
    const url = new URL(req.config.pages.verifyRequest, req.origin);
    for (const [k, v] of Object.entries(req.query)) url.searchParams.set(k, v);
    return redirect(req, url.href);
  }
  // The address comes from this browser's own request (a short-lived cookie), not from the URL.
  const email = req.query.email ?? sentTo(req);
  const provider = req.query.provider ? req.config.providersById.get(req.query.provider) : undefined;
  const resend =
    email && provider?.type === 'email'
      ? { actionUrl: `${req.authUrl}/signin/${encodeURIComponent(provider.id)}`, csrfToken: csrf(req).token, callbackUrl: await resolveCallbackUrl(req) }
      : undefined;
  const changeUrl = `${req.authUrl}/signin${email ? `?${new URLSearchParams({ email })}` : ''}`;
  return html(req, (await loadVerifyRequestPage()).renderVerifyRequest({ theme: req.config.theme, basePath: req.config.basePath, homeUrl: req.origin, email, resend, changeUrl, nonce: pageNonce(req), i18n: await messagesFor(req) }));
}
