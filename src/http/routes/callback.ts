// GET|POST {basePath}/callback/:provider: where providers (and the credentials form) come back to. On the
// deployment a redirect proxy names, a provider's answer to a sign-in started elsewhere is forwarded there first.
import { identifierField } from '../../core/credentials-identifier.js';
import { InvalidPassword, InvalidProvider, InvalidRequest } from '../../core/errors.js';
import type { ResolvedProvider } from '../../core/provider.js';
import { lazy } from '../../core/lazy.js';
import { requireCsrf } from '../csrf.js';
import type { AuthRequest } from '../request.js';
import { errorRedirect, json, redirect } from '../response.js';
import { signInPageResponse, typedValue, wantsPage, type RefusedForm } from '../signin-page.js';

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

type Fields = Record<string, { type?: string; required?: boolean } | undefined>;

/** The declared fields of a credentials provider (its `credentials`), as the page draws them. */
function fieldsOf(provider: ResolvedProvider): Fields {
  const fields = (provider as { credentials?: unknown }).credentials;
  return fields && typeof fields === 'object' ? (fields as Fields) : {};
}

/** The page's answer to a credentials form: the error under `field`, the identifier typed kept (never a password). */
function refusedCredentials(req: AuthRequest, provider: ResolvedProvider, field: string, error: RefusedForm['fieldErrors'][string]): Promise<Response> {
  const identifier = identifierField(provider as Parameters<typeof identifierField>[0]);
  const typed = identifier ? typedValue(req.body[identifier]) : undefined;
  return signInPageResponse(req, { fieldErrors: { [field]: error }, identifier: typed });
}

/**
 * A browser's credentials form with a field the page marks required left empty: the page again, the error under that
 * field. Checked after CSRF and before anything is counted or `authorize` runs: an empty form is no attempt.
 */
function missingField(req: AuthRequest, provider: ResolvedProvider): string | undefined {
  for (const [name, field] of Object.entries(fieldsOf(provider))) {
    if (field?.required === false) continue;
    const value = Object.hasOwn(req.body, name) ? req.body[name] : undefined;
    if (typeof value !== 'string' || (field?.type === 'password' ? value === '' : value.trim() === '')) return name;
  }
  return undefined;
}

// An organization's SSO connection comes back to `callback/sso-<id>` (loaded only with the `sso` option).
const ssoRoutes = lazy(() => import('./sso.js'));

export async function callbackRoute(req: AuthRequest, providerId: string): Promise<Response> {
  const provider = req.config.providersById.get(providerId);
  if (!provider && req.config.sso) {
    const sso = await (await ssoRoutes()).ssoCallbackRoute(req, providerId);
    if (sso) return sso;
  }
  if (!provider) throw new InvalidProvider(`No provider with id "${providerId}".`, { actual: providerId });
  const forwarded = await forwardedByProxy(req, provider);
  if (forwarded) return forwarded;
  const page = provider.type === 'credentials' && req.method === 'POST' && wantsPage(req);
  if (page) {
    requireCsrf(req);
    const missing = missingField(req, provider);
    if (missing) return refusedCredentials(req, provider, missing, 'signin.field.missing');
  }
  try {
    return await (await flowRoutes()).handleFlow(req, provider, 'callback');
  } catch (err) {
    // A credentials form without one usable identifier (see core/credentials-identifier.ts) or with a password no
    // one could have (InvalidPassword), refused after the CSRF check and before anything is counted or `authorize`
    // runs: a 400, as the page again for a browser (the error under the field), else as JSON.
    if (provider.type === 'credentials' && err instanceof InvalidRequest) {
      if (page) {
        const password = Object.entries(fieldsOf(provider)).find(([, f]) => f?.type === 'password')?.[0];
        const field = err instanceof InvalidPassword && password ? password : identifierField(provider as Parameters<typeof identifierField>[0]);
        if (field) {
          req.config.logger.debug('credentials: a form refused', { provider: provider.id, field });
          return refusedCredentials(req, provider, field, 'signin.field.invalid');
        }
      }
      return json(req, { error: InvalidRequest.type, message: err.message }, 400, { noCache: true });
    }
    throw err;
  }
}
