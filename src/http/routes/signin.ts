// GET {basePath}/signin shows the sign-in page (or redirects to pages.signIn);
// POST {basePath}/signin/:provider starts the provider's flow.
import { InvalidProvider } from '../../core/errors.js';
import { requireCsrf } from '../csrf.js';
import { lazy } from '../../core/lazy.js';
import type { AuthRequest } from '../request.js';
import { signInPageResponse } from '../signin-page.js';

export { readVisitor } from '../visitor.js';

// The flow routes (and the door behind them) load with the first sign-in request.
const flowRoutes = lazy(() => import('../flow.js'));

export function signInPage(req: AuthRequest): Promise<Response> {
  return signInPageResponse(req);
}

export async function signInAction(req: AuthRequest, providerId: string): Promise<Response> {
  // Every POST signin is state-changing (a flow starts, cookies are set), whatever the provider does with it.
  requireCsrf(req);
  const provider = req.config.providersById.get(providerId);
  if (!provider) throw new InvalidProvider(`No provider with id "${providerId}".`, { actual: providerId });
  return (await flowRoutes()).handleFlow(req, provider, 'signin');
}
