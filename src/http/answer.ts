// The one function that turns what the runtime's door answered into an HTTP response: a paused flow's page (or its
// `{ url }` for a client that reads redirects as data), a session's redirect, the error page or a JSON error, the
// sign-in page for someone signed out. Every route that steps through the door answers through here.
import { messagesFor } from '../core/messages/request.js';
import { publicErrorType, UnknownAction, type AuthError } from '../core/errors.js';
import type { DoorAnswer } from '../flows/registry.js';
import type { FlowResponse } from '../flows/runtime/contract.js';
import { accountErrorUrl } from './account-url.js';
import { csrf } from './csrf.js';
import { rememberFailedFlow } from './inspect-trace.js';
import { loadPages } from './pages/load.js';
import { pageNonce, type AuthRequest } from './request.js';
import { errorRedirect, html, json, redirect, redirectsAsData } from './response.js';
import { forgetReturnAddress } from './signin-memory.js';

/** Whether the client asked for JSON (fetch with `Accept: application/json`, the client library) rather than a page. */
export function wantsJson(req: AuthRequest): boolean {
  const accept = req.request.headers.get('accept') ?? '';
  return Boolean(req.request.headers.get('x-auth-return-redirect')) || (accept.includes('application/json') && !accept.includes('text/html'));
}

/** Drops any session cookie a failed flow may have queued: a failure never grants a session. */
function withoutSessionCookies(req: AuthRequest): void {
  const name = req.cookieOptions.sessionToken.name;
  req.setCookies = req.setCookies.filter((c) => !(c.name === name || c.name.startsWith(`${name}.`)) || c.options.maxAge === 0);
}

/** The sign-in page, coming back to `back` afterwards. */
export function signInUrl(req: AuthRequest, back: string): string {
  const url = new URL(req.config.pages.signIn ?? `${req.config.basePath}/signin`, req.origin);
  url.searchParams.set('callbackUrl', back);
  return url.href;
}

/** Where a session below a route's level goes: the factor check (with second factors), else a new sign-in. */
export function stepUpUrl(req: AuthRequest, back: string): string {
  if (!req.config.secondFactor) return signInUrl(req, back);
  const url = new URL(`${req.config.basePath}/factors/verify`, req.origin);
  url.searchParams.set('callbackUrl', back);
  return url.href;
}

/** What a paused flow answers: its redirect, JSON or HTML, or a built-in page (confirm e-mail, a form) rendered here. */
export async function pausedResponse(req: AuthRequest, formAction: string, response: FlowResponse): Promise<Response> {
  switch (response.kind) {
    case 'redirect':
      return redirect(req, response.url);
    case 'json':
      return json(req, response.body, response.status ?? 200, { noCache: true });
    case 'html':
      return html(req, response.body, response.status ?? 200);
    case 'page': {
      // The pages (and their theme) load with the first flow that shows one: a credentials or OAuth sign-in never does.
      const { renderConfirmEmail, renderFormPage } = await loadPages();
      if (response.page === 'form') {
        const page = renderFormPage({
          theme: req.config.theme,
          actionUrl: formAction,
          hiddenFields: { csrfToken: csrf(req).token },
          page: response.data,
          nonce: pageNonce(req),
          i18n: await messagesFor(req),
          passkeyScript: `${req.authUrl}/webauthn-script.js`,
          authUrl: req.authUrl,
        });
        return html(req, page, response.status ?? 200);
      }
      return html(
        req,
        renderConfirmEmail({
          theme: req.config.theme,
          actionUrl: `${req.authUrl}/callback/${encodeURIComponent(response.data.provider)}`,
          hiddenFields: { csrfToken: csrf(req).token },
          email: response.data.email || undefined,
          nonce: pageNonce(req),
          i18n: await messagesFor(req),
        }),
        response.status ?? 200,
      );
    }
  }
}

/**
 * The answer to a request the paused flow does not take: 400 `{ error: 'InvalidRequest' }` for JSON, the error page
 * (InvalidRequest, 400) for a browser. The paused flow is left as it was.
 */
function refusedAnswer(req: AuthRequest, error: AuthError, providerId?: string): Response {
  if (!wantsJson(req)) return errorRedirect(req, error, providerId);
  req.config.logger.error(error);
  return json(req, { error: 'InvalidRequest', message: error.message }, 400, { noCache: true });
}

/** How the route that stepped through the door answers what is not the same for every route. */
export interface RespondOptions {
  /** The provider of a sign-in route, for the error page (`?provider=`). */
  providerId?: string;
  /** A client that asks for JSON gets a failure as `{ error }` with a status, rather than the error page. */
  jsonFailures?: boolean;
  /** A sign-in route whose flow takes no such request goes to the sign-in page; any other is UnknownAction. */
  notTaken?: 'signInPage' | 'unknownAction';
  /** A signed-in user's second-factor check that ended: its page (backup codes) and its redirect, rendered by the route. */
  assured?: (output: Extract<DoorAnswer, { status: 'assured' }>['output']) => Promise<Response>;
}

/**
 * The response to what the door answered.
 *
 * @example
 * return respond(req, await step(req, { kind: 'signIn', provider, route: 'callback', callbackUrl }), { providerId: provider.id })
 */
export async function respond(req: AuthRequest, answer: DoorAnswer, options: RespondOptions = {}): Promise<Response> {
  switch (answer.status) {
    case 'paused':
      // A client that reads redirects as data (next-auth's and authchart's browser clients) cannot show a page: it
      // gets `{ url }` of the route that shows the sealed page from the flow cookie.
      if (answer.response.kind === 'page' && redirectsAsData(req)) return redirect(req, `${req.authUrl}/flow/${encodeURIComponent(answer.slot)}`);
      return pausedResponse(req, `${req.authUrl}/${answer.action}`, answer.response);
    case 'signedIn': {
      forgetReturnAddress(req);
      const { newUser } = req.config.pages;
      if (!answer.isNewUser || !newUser) return redirect(req, answer.redirect);
      const url = new URL(newUser, req.origin);
      url.searchParams.set('callbackUrl', answer.redirect);
      return redirect(req, url.href);
    }
    case 'redirected':
      withoutSessionCookies(req);
      return redirect(req, answer.url);
    case 'refused':
      return refusedAnswer(req, answer.error, options.providerId);
    case 'failed':
      withoutSessionCookies(req);
      if (answer.record) rememberFailedFlow(req, answer.record);
      // A link that failed (an account another user owns, a passkey not made for this user) goes back to the account page.
      if (answer.link) {
        req.config.logger.error(answer.error);
        return redirect(req, accountErrorUrl(req, publicErrorType(answer.error)));
      }
      if (options.jsonFailures && wantsJson(req)) {
        req.config.logger.error(answer.error);
        // The client's own failures by name; anything else is the server's, said no more precisely than elsewhere.
        const type = publicErrorType(answer.error);
        return json(req, { error: type }, type === 'InvalidRequest' ? 400 : type === 'Configuration' ? 500 : 403, { noCache: true });
      }
      return errorRedirect(req, answer.error, options.providerId);
    case 'signedOut':
    case 'stale':
      if (wantsJson(req) && !redirectsAsData(req)) {
        const signedOut = answer.status === 'signedOut';
        return json(req, signedOut ? { error: 'Unauthorized', message: 'Sign-in required.' } : { error: 'RecentSignInRequired' }, signedOut ? 401 : 403, { noCache: true });
      }
      return redirect(req, answer.status === 'signedOut' ? signInUrl(req, answer.callbackUrl) : stepUpUrl(req, answer.callbackUrl));
    case 'assured':
      if (!options.assured) throw new UnknownAction('This route has no second-factor outcome to show.');
      return options.assured(answer.output);
    case 'notTaken':
      if (options.notTaken === 'signInPage') return redirect(req, `${req.authUrl}/signin`);
      throw new UnknownAction(`${req.method} ${new URL(req.request.url).pathname} is not a request this flow takes.`);
    case 'limited':
      return answer.reply as Response;
    case 'done':
      throw new UnknownAction('A job answered a route.');
  }
}
