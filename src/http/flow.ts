// The routes that step through the runtime's door (a provider's flow, a paused flow's page, an app's signed-in
// flows) and the one function that turns what the door answered into a response, which the second-factor routes
// answer through too. The routes check what HTTP owns (CSRF, the throttle, the callback URL); the door runs the
// machine and keeps its cookie slot. Loaded with the first sign-in request: a server that only checks sessions never
// loads the flow layer or the pages a paused flow renders.
import { messagesFor } from '../core/messages/request.js';
import { InvalidProvider, publicErrorType, UnknownAction, type AuthError } from '../core/errors.js';
import { lazy } from '../core/lazy.js';
import type { ResolvedProvider } from '../core/provider.js';
import { accountFlow, flowFor, signedInFlowFor, step, type AccountRoute, type DoorAnswer } from '../flows/registry.js';
import type { FlowResponse, FlowRoute } from '../flows/runtime/contract.js';
import { tracesKept } from '../flows/runtime/log.js';
import type { SignedInRoute } from '../flows/runtime/signed-in.js';
import { accountErrorUrl } from './account-url.js';
import { signUpOpen } from './providers.js';
import { resolveCallbackUrl } from './callback-url.js';
import { csrf, requireCsrf } from './csrf.js';
import { flowBrowser, rememberFailedFlow } from './inspect-trace.js';
import { loadConfirmEmailPage, loadFormPage, loadSignUpPage } from './pages/load.js';
import { pageNonce, type AuthRequest } from './request.js';
import { errorRedirect, html, json, redirect, redirectsAsData, wantsJson } from './response.js';

export { wantsJson };
import { forgetReturnAddress, rememberSentTo, rememberTypedIdentifier } from './signin-memory.js';
import { signInPageResponse, typedValue, wantsPage } from './signin-page.js';
import { sweepIfDue } from './sweep.js';

// The throttle loads on the first sign-in request of a configuration that throttles.
const loadThrottle = lazy(() => import('./throttle.js'));

/** Development only: the inspector's id for this browser, minted when a run starts a flow (no call at all in production). */
export const inspectorBrowser = (req: AuthRequest) => (tracesKept(req.config) ? (fresh: boolean) => flowBrowser(req, { mint: fresh }) : undefined);

/**
 * Runs a provider's flow for a route. `link` (from `POST {basePath}/link/:provider`) names the signed-in user the flow
 * is bound to: what the flow proves is added to that user instead of signing anyone in.
 */
export async function handleFlow(req: AuthRequest, provider: ResolvedProvider, route: FlowRoute, start?: { link: { userId: string } }): Promise<Response> {
  const flow = await flowFor(provider);
  // Checked before anything else, so a forged request leaves no trace (not even a callback-url cookie).
  if (req.method === 'POST' && (flow.csrf ?? ['signin']).includes(route)) requireCsrf(req);
  // Now and then, expired tokens, challenges, sessions and counters go (in the background).
  void sweepIfDue(req.config);
  // Counted before anything runs: a request over a limit sends, stores and sets nothing.
  const gate = req.config.throttle ? await (await loadThrottle()).throttleSignIn(req, provider, route) : undefined;
  if (gate instanceof Response) return gate;
  const callbackUrl = await resolveCallbackUrl(req);
  const door = { kind: 'signIn' as const, provider, route, callbackUrl, ...(start ? { link: start.link.userId } : {}) };
  const answer = await step(req, door, undefined, { browser: inspectorBrowser(req) });
  // The throttle gives a proven first factor its point back (signed in, or on to the second-factor check).
  await gate?.settle(answer.status === 'signedIn' || (answer.status === 'paused' && answer.slot === 'second-factor'), answer.status === 'failed' ? answer.error : undefined);
  if (answer.status === 'failed' && answer.typed) rememberTypedIdentifier(req, provider);
  if (answer.status === 'redirected' && provider.type === 'email' && route === 'signin') rememberSentTo(req);
  if (answer.status === 'failed' && provider.type === 'email' && route === 'signin' && failedIn(answer.error, 'invalidAddress') && wantsPage(req)) {
    // A browser's form with something that is not an address: the page again, the error under the field, the typing kept.
    req.config.logger.debug('email: not an address', { provider: provider.id });
    if (answer.record) rememberFailedFlow(req, answer.record);
    return signInPageResponse(req, { fieldErrors: { email: 'signin.field.badAddress' }, email: typedValue(req.body.email) });
  }
  return respond(req, answer, { providerId: provider.id, notTaken: route === 'signin' ? 'signInPage' : 'unknownAction' });
}

/** Whether a flow failed in the final state named `state` (the evidence the runtime puts on every failure). */
function failedIn(error: AuthError, state: string): boolean {
  const at = (error.cause as { state?: unknown } | undefined)?.state;
  return typeof at === 'string' && at.split('.').at(-1) === state;
}

/**
 * `GET {basePath}/flow/:slot`: the page a paused flow shows (the e-mail code page, the second-factor check, a
 * signed-in flow's step), read from its flow cookie. It only reads: the flow is neither run nor resealed, so showing
 * the page again and again advances nothing, spends nothing and sends nothing.
 */
export async function pausedPageRoute(req: AuthRequest, slot: string): Promise<Response> {
  return respond(req, await step(req, { kind: 'page', slot }));
}

/**
 * An app's signed-in flow: `POST {basePath}/flows/:id/start` (CSRF-checked) and `GET|POST {basePath}/flows/:id`
 * (a POST CSRF-checked). Signed out, or below the flow's level: the sign-in page or the factor check, coming back.
 */
export async function signedInFlowRoute(req: AuthRequest, id: string, route: SignedInRoute): Promise<Response> {
  const flow = await signedInFlowFor(req.config, id);
  if (!flow) throw new InvalidProvider(`No signed-in flow with id "${id}".`, { actual: id });
  if (route === 'start' && req.method !== 'POST') throw new UnknownAction(`Signed-in flow "${id}" starts with a POST.`);
  if (req.method === 'POST') requireCsrf(req);
  void sweepIfDue(req.config);
  const callbackUrl = await resolveCallbackUrl(req);
  return respond(req, await step(req, { kind: 'signedIn', flow, route, callbackUrl }, undefined, { browser: inspectorBrowser(req) }));
}

/**
 * An account flow of a provider (sign-up): `POST {basePath}/{id}/:provider` (CSRF-checked) and `GET` the same path
 * (a link from a mail, any browser). A request the flow does not take (a GET without a link's query) shows `page`.
 */
export async function accountFlowRoute(req: AuthRequest, id: string, providerId: string): Promise<Response> {
  const provider = req.config.providersById.get(providerId);
  const flow = provider && (id !== 'signup' || signUpOpen(req, provider)) ? await accountFlow(id, provider) : undefined;
  if (!provider || !flow) throw new InvalidProvider(`Provider "${providerId}" has no ${id} flow.`, { actual: providerId });
  if (req.method === 'POST') requireCsrf(req);
  void sweepIfDue(req.config);
  const route: AccountRoute = req.method === 'POST' ? 'submit' : 'link';
  const gate = req.config.throttle ? await (await loadThrottle()).throttleAccountFlow(req, provider, route) : undefined;
  if (gate instanceof Response) return gate;
  const callbackUrl = await resolveCallbackUrl(req);
  const answer = await step(req, { kind: 'account', flow, provider, route, callbackUrl }, undefined, { browser: inspectorBrowser(req) });
  await gate?.settle(answer.status === 'signedIn' || (answer.status === 'paused' && answer.slot === 'second-factor'), answer.status === 'failed' ? answer.error : undefined);
  // A GET the flow does not take (no link's query): its form, empty (sign-up is the one account flow with a page).
  if (answer.status === 'notTaken' && route === 'link' && id === 'signup') {
    return pausedResponse(req, `${req.authUrl}/${id}/${encodeURIComponent(provider.id)}`, { kind: 'page', page: 'signUp', data: { provider: provider.id, email: '', name: '', errors: {} } });
  }
  return respond(req, answer, { providerId: provider.id, jsonFailures: true });
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
      // Each page (and its theme) loads with the first flow that shows it: a credentials or OAuth sign-in never does.
      if (response.page === 'signUp') {
        const { renderSignUp } = await loadSignUpPage();
        const provider = req.config.providersById.get(response.data.provider) as { password?: { signUp?: { minLength?: number } | false } } | undefined;
        const signUp = provider?.password?.signUp;
        const page = renderSignUp({
          theme: req.config.theme,
          authUrl: req.authUrl,
          csrfToken: csrf(req).token,
          page: response.data,
          ...(signUp ? { minLength: signUp.minLength } : {}),
          nonce: pageNonce(req),
          i18n: await messagesFor(req),
        });
        return html(req, page, response.status ?? 200);
      }
      if (response.page === 'form') {
        const { renderFormPage } = await loadFormPage();
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
      const { renderConfirmEmail } = await loadConfirmEmailPage();
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
      if (answer.response.kind === 'page' && redirectsAsData(req)) {
        const url = `${req.authUrl}/flow/${encodeURIComponent(answer.slot)}`;
        // A page that answers a refused form (the sign-up form with a problem beside a field) is no success.
        if ((answer.response.status ?? 200) >= 400) return json(req, { url, error: 'InvalidRequest' }, answer.response.status ?? 400, { noCache: true });
        return redirect(req, url);
      }
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
      // Only a signed-in flow's outcome may rewrite the user's own session (a JWT reissued to outlive the sessions it ended).
      if (answer.session !== 'rewritten') withoutSessionCookies(req);
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
