// GET {basePath}/signin shows the sign-in page (or redirects to pages.signIn);
// POST {basePath}/signin/:provider starts the provider's flow.
import { messagesFor } from '../../core/messages/request.js';
import { InvalidProvider } from '../../core/errors.js';
import { resolveCallbackUrl } from '../callback-url.js';
import { csrf, requireCsrf } from '../csrf.js';
import { lazy } from '../../core/lazy.js';
import { loadPages } from '../pages/load.js';
import { publicProviders } from '../providers.js';
import { pageNonce, type AuthRequest } from '../request.js';
import { html, redirect } from '../response.js';
import { takeTypedIdentifier } from '../signin-memory.js';
import { strategyFor } from '../../session/strategy.js';

// The flow routes (and the door behind them) load with the first sign-in request.
const flowRoutes = lazy(() => import('../flow.js'));

/**
 * Whether the visitor is signed in and as whom (address, else name), read only when the request carries a session
 * cookie: a page view without one costs no lookup.
 */
export async function readVisitor(req: AuthRequest): Promise<{ signedIn: boolean; who?: string }> {
  const name = req.cookieOptions.sessionToken.name;
  if (!Object.keys(req.cookies).some((c) => c === name || c.startsWith(`${name}.`))) return { signedIn: false };
  const session = await Promise.resolve(strategyFor(req).read(req)).catch(() => null);
  const who = session?.user?.email ?? session?.user?.name;
  return { signedIn: Boolean(session), who: typeof who === 'string' && who ? who : undefined };
}

/** The page an app sent the visitor from (`?callbackUrl=` on our origin, other than the home page), as a path. */
function requestedPage(req: AuthRequest, callbackUrl: string): string | undefined {
  if (!req.query.callbackUrl) return undefined;
  const url = URL.parse(callbackUrl);
  if (!url || url.origin !== new URL(req.origin).origin || (url.pathname === '/' && !url.search)) return undefined;
  return `${url.pathname}${url.search}`;
}

export async function signInPage(req: AuthRequest): Promise<Response> {
  const callbackUrl = await resolveCallbackUrl(req);
  const error = req.query.error;
  if (req.config.pages.signIn) {
    const url = new URL(req.config.pages.signIn, req.origin);
    url.searchParams.set('callbackUrl', callbackUrl);
    if (error) url.searchParams.set('error', error);
    if (req.query.notice === 'passwordReset') url.searchParams.set('notice', 'passwordReset');
    return redirect(req, url.href);
  }
  const { token } = csrf(req);
  const page = (await loadPages()).renderSignIn({
    providers: publicProviders(req),
    csrfToken: token,
    callbackUrl,
    error,
    theme: req.config.theme,
    basePath: req.config.basePath,
    email: req.query.email,
    nonce: pageNonce(req), i18n: await messagesFor(req),
    errorCode: req.query.code,
    errorProvider: req.query.provider,
    typedIdentifier: takeTypedIdentifier(req),
    signedInAs: (await readVisitor(req)).who,
    requestedPage: requestedPage(req, callbackUrl),
    notice: req.query.notice,
  });
  return html(req, page);
}

export async function signInAction(req: AuthRequest, providerId: string): Promise<Response> {
  // Every POST signin is state-changing (a flow starts, cookies are set), whatever the provider does with it.
  requireCsrf(req);
  const provider = req.config.providersById.get(providerId);
  if (!provider) throw new InvalidProvider(`No provider with id "${providerId}".`, { actual: providerId });
  return (await flowRoutes()).handleFlow(req, provider, 'signin');
}
