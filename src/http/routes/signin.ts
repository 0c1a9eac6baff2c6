// GET {basePath}/signin shows the sign-in page (or redirects to pages.signIn);
// POST {basePath}/signin/:provider starts the provider's flow.
import { InvalidProvider } from '../../core/errors.js';
import { resolveCallbackUrl } from '../callback-url.js';
import { csrf, requireCsrf } from '../csrf.js';
import { handleFlow } from '../flow.js';
import { renderSignIn } from '../pages/index.js';
import { publicProviders } from '../providers.js';
import { pageNonce, type AuthRequest } from '../request.js';
import { html, redirect } from '../response.js';

export async function signInPage(req: AuthRequest): Promise<Response> {
  const callbackUrl = await resolveCallbackUrl(req);
  const error = req.query.error;
  if (req.config.pages.signIn) {
    const url = new URL(req.config.pages.signIn, req.origin);
    url.searchParams.set('callbackUrl', callbackUrl);
    if (error) url.searchParams.set('error', error);
    return redirect(req, url.href);
  }
  const { token } = csrf(req);
  const page = renderSignIn({
    providers: publicProviders(req),
    csrfToken: token,
    callbackUrl,
    error,
    theme: req.config.theme,
    basePath: req.config.basePath,
    email: req.query.email,
    nonce: pageNonce(req),
  });
  return html(req, page);
}

export async function signInAction(req: AuthRequest, providerId: string): Promise<Response> {
  // Every POST signin is state-changing (a flow starts, cookies are set), whatever the provider does with it.
  requireCsrf(req);
  const provider = req.config.providersById.get(providerId);
  if (!provider) throw new InvalidProvider(`No provider with id "${providerId}".`, { actual: providerId });
  return handleFlow(req, provider, 'signin');
}
