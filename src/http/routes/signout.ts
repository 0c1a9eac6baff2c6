// GET {basePath}/signout asks for confirmation; POST {basePath}/signout (CSRF required) ends the session.
import { messagesFor } from '../../core/messages/request.js';
import { resolveCallbackUrl } from '../callback-url.js';
import { csrf, requireCsrf } from '../csrf.js';
import { loadSignOutPage } from '../pages/load.js';
import { pageNonce, type AuthRequest } from '../request.js';
import { html, redirect } from '../response.js';
import { strategyFor } from '../../session/strategy.js';
import { readVisitor } from '../visitor.js';
import { lazy } from '../../core/lazy.js';

export async function signOutPage(req: AuthRequest): Promise<Response> {
  const callbackUrl = await resolveCallbackUrl(req);
  if (req.config.pages.signOut) {
    const url = new URL(req.config.pages.signOut, req.origin);
    url.searchParams.set('callbackUrl', callbackUrl);
    return redirect(req, url.href);
  }
  const { token } = csrf(req);
  const visitor = await readVisitor(req);
  return html(
    req,
    (await loadSignOutPage()).renderSignOut({ csrfToken: token, callbackUrl, theme: req.config.theme, basePath: req.config.basePath, signoutUrl: `${req.authUrl}/signout`, signinUrl: `${req.authUrl}/signin`, nonce: pageNonce(req), i18n: await messagesFor(req), signedInAs: visitor.signedIn ? visitor.who ?? '' : null }),
  );
}

// RP-initiated logout's code (the OAuth client, the logout machine) loads only for a configuration that opts into it.
const loadProviderLogout = lazy(() => import('./provider-logout.js'));
const optsIntoProviderLogout = (req: AuthRequest) => req.config.providers.some((p) => p.rpInitiatedLogout === true && (p.type === 'oidc' || p.type === 'oauth'));

export async function signOutAction(req: AuthRequest): Promise<Response> {
  requireCsrf(req);
  const callbackUrl = await resolveCallbackUrl(req);
  // RP-initiated logout (opt-in per provider): read before the local session ends, then the provider ends its own.
  const atProvider = optsIntoProviderLogout(req) ? await (await loadProviderLogout()).startProviderLogout(req, callbackUrl) : undefined;
  await strategyFor(req).signOut(req);
  return redirect(req, atProvider ?? callbackUrl);
}
