// Enters a provider's flow from an HTTP route and turns what the flow settled into a response: seal and answer
// while it waits (rendering a built-in page the flow asks for), or clear the provider's flow cookie and apply the
// outcome when it ends.
import { messagesFor } from '../core/messages/request.js';
import { InvalidCheck, InvalidProvider, publicErrorType, UnknownAction } from '../core/errors.js';
import { assuranceStage, flowFor, linkStages, signInStages } from '../flows/registry.js';
import { clearFlow, openFlow, sealFlow, slotCookieName, type FlowSlot } from '../flows/runtime/cookie.js';
import type { AuthError } from '../core/errors.js';
import type { FlowDefinition, FlowDeps, FlowResponse, FlowRoute } from '../flows/runtime/contract.js';
import { flowDeps } from '../flows/runtime/deps.js';
import { recordRejectedFlow } from '../flows/runtime/log.js';
import type { PausedFlow } from '../flows/runtime/run.js';
import type { FlowResult } from '../flows/runtime/flow.js';
import type { ResolvedProvider } from '../core/provider.js';
import { accountErrorUrl } from './account-url.js';
import { resolveCallbackUrl } from './callback-url.js';
import { csrf, requireCsrf } from './csrf.js';
import { flowBrowser, rememberFailedFlow } from './inspect-trace.js';
import { loadPages } from './pages/load.js';
import { pageNonce, type AuthRequest } from './request.js';
import { errorRedirect, html, json, redirect, redirectsAsData } from './response.js';
import { forgetReturnAddress, rememberSentTo, rememberTypedIdentifier } from './signin-memory.js';
import { sweepIfDue } from './sweep.js';
import { lazy } from '../core/lazy.js';
import { isOutage } from '../core/store-deadline.js';

/** Drops any session cookie a failed flow may have queued: a failure never grants a session. */
function withoutSessionCookies(req: AuthRequest): void {
  const name = req.cookieOptions.sessionToken.name;
  req.setCookies = req.setCookies.filter((c) => !(c.name === name || c.name.startsWith(`${name}.`)) || c.options.maxAge === 0);
}

// The runtime (and with it xstate and the sign-in tail) loads on the first sign-in or callback: a server that is
// only checking sessions never needs it. Later requests get the cached module.
const loadRuntime = lazy(() => import('../flows/runtime/flow.js'));

// The throttle loads on the first sign-in request of a configuration that throttles.
const loadThrottle = lazy(() => import('./throttle.js'));

function newUserUrl(req: AuthRequest, callbackUrl: string): string {
  const url = new URL(req.config.pages.newUser!, req.origin);
  url.searchParams.set('callbackUrl', callbackUrl);
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

/** The name of the second-factor check's slot in `GET {basePath}/flow/:slot` (a provider's slot is its id). */
const ASSURANCE_SLOT = 'second-factor';

// The carried page rides in the flow cookie, and a browser drops a cookie above 4096 bytes, losing the flow with
// it. A page above this size in bytes (the enrolment page's QR code is ~3 kB) is not carried: its flow goes on as before, and
// `GET {basePath}/flow/:slot` answers that this flow shows no page.
const CARRIED_PAGE_LIMIT = 1024;
const utf8 = new TextEncoder();

/** A paused flow that shows a small built-in page keeps that page sealed beside it, for `GET {basePath}/flow/:slot`. */
export function withPage(paused: PausedFlow, response: FlowResponse): PausedFlow {
  if (response.kind === 'page' && utf8.encode(JSON.stringify(response)).length <= CARRIED_PAGE_LIMIT) paused.carry = { ...paused.carry, page: response };
  return paused;
}

/**
 * What a paused flow answers. A client that reads redirects as data (next-auth's and authchart's browser clients)
 * cannot show a page: it gets `{ url }` of the route that shows the sealed page from the flow cookie.
 */
function pausedAnswer(req: AuthRequest, slotName: string, formAction: string, response: FlowResponse): Promise<Response> | Response {
  if (response.kind === 'page' && redirectsAsData(req)) return redirect(req, `${req.authUrl}/flow/${encodeURIComponent(slotName)}`);
  return pausedResponse(req, formAction, response);
}

/**
 * `GET {basePath}/flow/:slot`: the page a paused flow shows (the e-mail code page, the second-factor check), read
 * from its flow cookie. It only reads: the flow is neither run nor resealed, so showing the page again and again
 * advances nothing, spends nothing and sends nothing.
 */
export async function pausedPageRoute(req: AuthRequest, slotName: string): Promise<Response> {
  let slot: FlowSlot;
  let flow: FlowDefinition;
  let formAction: string;
  if (slotName === ASSURANCE_SLOT) {
    slot = { stage: 'assurance' };
    flow = await assuranceStage();
    formAction = `${req.authUrl}/second-factor`;
  } else {
    const provider = req.config.providersById.get(slotName);
    if (!provider) throw new InvalidProvider(`No provider with id "${slotName}".`, { actual: slotName });
    slot = { provider: provider.id };
    flow = await flowFor(provider);
    formAction = `${req.authUrl}/callback/${encodeURIComponent(provider.id)}`;
  }
  let paused: PausedFlow;
  try {
    paused = openFlow(req, slot, flow);
  } catch (err) {
    return errorRedirect(req, err);
  }
  const page = (paused.carry as { page?: FlowResponse } | undefined)?.page;
  if (!page || page.kind !== 'page') return errorRedirect(req, new InvalidCheck('This paused flow shows no page.', { expected: 'a paused page', actual: paused.value }));
  return pausedResponse(req, formAction, page);
}

/** A link the paused flow was started for, from its sealed carry (absent, or not this shape: a sign-in). */
function carriedLink(paused: PausedFlow | undefined): { userId: string } | undefined {
  const link = (paused?.carry as { link?: { userId?: unknown } } | undefined)?.link;
  return link && typeof link.userId === 'string' && link.userId ? { userId: link.userId } : undefined;
}

/**
 * Runs a provider's flow for a route. `link` (from `POST {basePath}/link/:provider`) names the signed-in user the flow
 * is bound to: it rides sealed with the paused flow, and when the flow proves an account the link stage adds it to
 * that user instead of signing anyone in.
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
  const deps: FlowDeps = flowDeps(req, provider, callbackUrl);
  const slot: FlowSlot = { provider: provider.id };
  const pausedHere = req.cookies[slotCookieName(req, slot)] !== undefined;
  // A flow with no entry of its own for a link is entered as at sign-in: what it proves goes to the link stage.
  const entry = flow.entry(route, deps, pausedHere) ?? (route === 'link' ? flow.entry('signin', deps, pausedHere) : null);
  if (!entry) {
    if (route === 'signin') return redirect(req, `${req.authUrl}/signin`);
    throw new UnknownAction(`Provider "${provider.id}" does not take ${req.method} ${route}.`);
  }

  // Development only: which browser ran this request, so the inspector shows each browser its own flows.
  const browser = flowBrowser(req, { mint: !entry.resume });
  let paused: PausedFlow | undefined;
  if (entry.resume) {
    try {
      paused = openFlow(req, slot, flow);
    } catch (err) {
      clearFlow(req, slot);
      rememberFailedFlow(req, await recordRejectedFlow(req.config, provider.id, flow.machine, err, browser));
      return errorRedirect(req, err);
    }
  }
  const link = start?.link ?? carriedLink(paused);
  const { runFlow } = await loadRuntime();
  const stages = link ? await linkStages(link.userId) : await signInStages(req.config);
  const result = await runFlow(flow, deps, entry, paused, { browser, stages });
  // The throttle gives a proven first factor its point back (signed in, or on to the second-factor check).
  await gate?.settle(result.status === 'signedIn' || (result.status === 'paused' && result.slot === 'assurance'), result.status === 'failed' ? result.error : undefined);
  // An event the paused machine does not take ran nothing: the paused flow stands, its cookie kept.
  if (result.status === 'refused') return refusedAnswer(req, result.error, provider.id);
  // A flow cookie is single-use: whatever happened, the paused state it held is spent. Only this provider's
  // cookie is cleared; another provider's paused flow (another tab) is left alone. Two failures spent nothing, so
  // the flow already paused here stands: a fresh start that failed (a "send a new code" refused by the cooldown
  // keeps the first code), and an outage (the store rolled back: the browser can send the same code again).
  const spentNothing = result.status === 'failed' && (!entry.resume || isOutage(result.error));
  if (!spentNothing) clearFlow(req, slot);
  if (result.status === 'paused' && result.slot === 'assurance') {
    // Proven, and now at the second-factor check: it waits in its own cookie for the code.
    sealFlow(req, { stage: 'assurance' }, await assuranceStage(), withPage(result.paused, result.response));
    return pausedAnswer(req, ASSURANCE_SLOT, `${req.authUrl}/second-factor`, result.response);
  }
  if (result.status === 'paused') {
    if (link) result.paused.carry = { ...result.paused.carry, link };
    sealFlow(req, slot, flow, withPage(result.paused, result.response), { crossSitePost: result.response.kind === 'redirect' && result.response.crossSitePost === true });
    return pausedAnswer(req, provider.id, `${req.authUrl}/callback/${encodeURIComponent(provider.id)}`, result.response);
  }
  // A link that failed (an account another user owns, a passkey not made for this user) goes back to the account page.
  if (result.status === 'failed' && link) return linkFailed(req, result);
  if (result.status === 'failed') rememberTypedIdentifier(req, provider);
  if (result.status === 'redirected' && provider.type === 'email' && route === 'signin') rememberSentTo(req);
  if (result.status === 'assured') throw new UnknownAction('A sign-in ended as a signed-in user\'s factor check.');
  return finished(req, result, provider.id);
}

/** A failed link: the account page saying why (`?error=`), the signed-in user's session untouched. */
function linkFailed(req: AuthRequest, result: Extract<FlowResult, { status: 'failed' }>): Response {
  withoutSessionCookies(req);
  rememberFailedFlow(req, result.record);
  req.config.logger.error(result.error);
  return redirect(req, accountErrorUrl(req, publicErrorType(result.error)));
}

/** Whether the client asked for JSON (fetch with `Accept: application/json`, the client library) rather than a page. */
export function wantsJson(req: AuthRequest): boolean {
  const accept = req.request.headers.get('accept') ?? '';
  return Boolean(req.request.headers.get('x-auth-return-redirect')) || (accept.includes('application/json') && !accept.includes('text/html'));
}

/**
 * The answer to a request the paused flow does not take: 400 `{ error: 'InvalidRequest' }` for JSON, the error page
 * (InvalidRequest, 400) for a browser. The paused flow is left as it was.
 */
export function refusedAnswer(req: AuthRequest, error: AuthError, providerId?: string): Response {
  if (!wantsJson(req)) return errorRedirect(req, error, providerId);
  req.config.logger.error(error);
  return json(req, { error: 'InvalidRequest', message: error.message }, 400, { noCache: true });
}

/** The answer to a run that ended: the session's redirect (or the new-user page), a redirect, or the error page. */
export function finished(req: AuthRequest, result: Exclude<FlowResult, { status: 'paused' | 'assured' | 'refused' }>, providerId?: string): Response {
  switch (result.status) {
    case 'signedIn':
      forgetReturnAddress(req);
      return redirect(req, result.isNewUser && req.config.pages.newUser ? newUserUrl(req, result.redirect) : result.redirect);
    case 'redirected':
      withoutSessionCookies(req);
      return redirect(req, result.url);
    case 'failed':
      withoutSessionCookies(req);
      rememberFailedFlow(req, result.record);
      return errorRedirect(req, result.error, providerId);
  }
}
