// GET|POST {basePath}/callback/:provider: where providers (and the credentials form) come back to. On the
// deployment a redirect proxy names, a provider's answer to a sign-in started elsewhere is forwarded there first.
import { InvalidProvider, InvalidRequest } from '../../core/errors.js';
import type { ResolvedProvider } from '../../core/provider.js';
import { lazy } from '../../core/lazy.js';
import type { AuthRequest } from '../request.js';
import { errorRedirect, json, redirect } from '../response.js';

// The flow routes (and the door behind them) load with the first sign-in request.
const flowRoutes = lazy(() => import('../flow.js'));

/** The redirect proxy an OAuth provider uses (its own, else the global one), if any. */
function redirectProxyOf(req: AuthRequest, provider: ResolvedProvider): string | undefined {
  if (provider.type !== 'oauth' && provider.type !== 'oidc') return undefined;
  if (provider.flow !== undefined) return undefined;
  return (typeof provider.redirectProxyUrl === 'string' ? provider.redirectProxyUrl : undefined) ?? req.config.redirectProxyUrl;
}

/**
 * The proxy side runs no flow (the sign-in's flow cookie is on the other deployment): it only opens the sealed
 * state and forwards the answer, unchanged, to the callback the state names. Loaded only by proxied providers.
 */
async function forwardedByProxy(req: AuthRequest, provider: ResolvedProvider): Promise<Response | undefined> {
  const proxyUrl = redirectProxyOf(req, provider);
  if (proxyUrl === undefined) return undefined;
  const { isOnRedirectProxy, proxyTarget } = await (await import('../../flows/registry.js')).redirectProxy();
  if (!isOnRedirectProxy(req, proxyUrl)) return undefined;
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(req.method === 'POST' ? req.body : req.query)) if (typeof value === 'string') params[key] = value;
  let target: string | undefined;
  try {
    target = proxyTarget(req, provider.id, params);
  } catch (err) {
    return errorRedirect(req, err);
  }
  if (target === undefined) return undefined;
  req.config.logger.debug('redirect proxy: forwarding the callback', { provider: provider.id, target: new URL(target).origin });
  return redirect(req, target);
}

export async function callbackRoute(req: AuthRequest, providerId: string): Promise<Response> {
  const provider = req.config.providersById.get(providerId);
  if (!provider) throw new InvalidProvider(`No provider with id "${providerId}".`, { actual: providerId });
  const forwarded = await forwardedByProxy(req, provider);
  if (forwarded) return forwarded;
  try {
    return await (await flowRoutes()).handleFlow(req, provider, 'callback');
  } catch (err) {
    // A credentials form without one usable identifier (see core/credentials-identifier.ts), refused after the
    // CSRF check and before anything is counted or `authorize` runs: a 400, not the error page.
    if (provider.type === 'credentials' && err instanceof InvalidRequest) return json(req, { error: InvalidRequest.type, message: err.message }, 400, { noCache: true });
    throw err;
  }
}
