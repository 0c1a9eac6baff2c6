// Enters a provider's flow from an HTTP route and turns what the flow settled into a response: seal and answer
// while it waits (rendering a built-in page the flow asks for), or clear the provider's flow cookie and apply the
// outcome when it ends.
import { InvalidCheck, UnknownAction } from '../core/errors.js';
import { flowFor } from '../flows/registry.js';
import { clearFlow, clearSignIn, flowCookieName, openFlow, openSignIn, sealFlow, sealSignIn } from '../flows/runtime/cookie.js';
import type { FlowDeps, FlowResponse, FlowRoute } from '../flows/runtime/contract.js';
import { recordRejectedFlow } from '../flows/runtime/log.js';
import type { PausedFlow } from '../flows/runtime/run.js';
import type { FlowResult } from '../flows/runtime/flow.js';
import type { ResolvedProvider } from '../core/provider.js';
import { resolveCallbackUrl } from './callback-url.js';
import { csrf, requireCsrf } from './csrf.js';
import { flowBrowser, rememberFailedFlow } from './inspect-trace.js';
import { renderConfirmEmail } from './pages/confirm-email.js';
import { renderFormPage } from './pages/form.js';
import { pageNonce, type AuthRequest } from './request.js';
import { errorRedirect, html, json, redirect } from './response.js';
import { forgetReturnAddress, rememberSentTo, rememberTypedIdentifier } from './signin-memory.js';
import { sweepIfDue } from './sweep.js';
import { lazy } from '../core/lazy.js';

/** Drops any session cookie a failed flow may have queued: a failure never grants a session. */
function withoutSessionCookies(req: AuthRequest): void {
  const name = req.cookieOptions.sessionToken.name;
  req.setCookies = req.setCookies.filter((c) => !(c.name === name || c.name.startsWith(`${name}.`)) || c.options.maxAge === 0);
}

// The runtime (and with it xstate and the sign-in tail) loads on the first sign-in or callback: a server that is
// only checking sessions never needs it. Later requests get the cached module.
const loadRuntime = lazy(() => import('../flows/runtime/flow.js'));

// The throttle (and rate-limiter-flexible) loads on the first sign-in request of a configuration that throttles.
const loadThrottle = lazy(() => import('./throttle.js'));

function newUserUrl(req: AuthRequest, callbackUrl: string): string {
  const url = new URL(req.config.pages.newUser!, req.origin);
  url.searchParams.set('callbackUrl', callbackUrl);
  return url.href;
}

/** What a paused flow answers: its redirect, JSON or HTML, or a built-in page (confirm e-mail, a form) rendered here. */
export function pausedResponse(req: AuthRequest, formAction: string, response: FlowResponse): Response {
  switch (response.kind) {
    case 'redirect':
      return redirect(req, response.url);
    case 'json':
      return json(req, response.body, response.status ?? 200, { noCache: true });
    case 'html':
      return html(req, response.body, response.status ?? 200);
    case 'page':
      if (response.page === 'form') {
        const page = renderFormPage({
          theme: req.config.theme,
          actionUrl: formAction,
          hiddenFields: { csrfToken: csrf(req).token },
          page: response.data,
          nonce: pageNonce(req),
          passkeyScript: `${req.authUrl}/webauthn-script.js`,
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
        }),
        response.status ?? 200,
      );
  }
}

export async function handleFlow(req: AuthRequest, provider: ResolvedProvider, route: FlowRoute): Promise<Response> {
  const flow = await flowFor(provider);
  // Checked before anything else, so a forged request leaves no trace (not even a callback-url cookie).
  if (req.method === 'POST' && (flow.csrf ?? ['signin']).includes(route)) requireCsrf(req);
  // Now and then, expired tokens, challenges, sessions and counters go (in the background).
  void sweepIfDue(req.config);
  // Counted before anything runs: a request over a limit sends, stores and sets nothing.
  const gate = req.config.throttle ? await (await loadThrottle()).throttleSignIn(req, provider, route) : undefined;
  if (gate instanceof Response) return gate;
  const callbackUrl = await resolveCallbackUrl(req);
  const deps: FlowDeps = { req, provider, callbackUrl };
  const entry = flow.entry(route, deps, req.cookies[flowCookieName(req, provider.id)] !== undefined);
  if (!entry) {
    if (route === 'signin') return redirect(req, `${req.authUrl}/signin`);
    throw new UnknownAction(`Provider "${provider.id}" does not take ${req.method} ${route}.`);
  }

  // Development only: which browser ran this request, so the inspector shows each browser its own flows.
  const browser = flowBrowser(req, { mint: !entry.resume });
  let paused: PausedFlow | undefined;
  if (entry.resume) {
    try {
      paused = openFlow(req, provider.id, flow);
    } catch (err) {
      clearFlow(req, provider.id);
      rememberFailedFlow(req, await recordRejectedFlow(req.config, provider.id, flow.machine, err, browser));
      return errorRedirect(req, err);
    }
  }
  const { runFlow, signInTail } = await loadRuntime();
  const result = await runFlow(flow, deps, entry, paused, { browser });
  // The throttle gives a proven first factor its point back (signed in, or on to the second-factor stage).
  await gate?.settle(result.status === 'signedIn' || (result.status === 'paused' && result.atSignIn === true));
  // A flow cookie is single-use: whatever happened, the paused state it held is spent. Only this provider's
  // cookie is cleared; another provider's paused flow (another tab) is left alone.
  clearFlow(req, provider.id);
  if (result.status === 'paused' && result.atSignIn) {
    // Proven, and now at the second-factor stage: the tail waits in its own cookie for the code.
    sealSignIn(req, provider.id, signInTail, result.paused);
    return pausedResponse(req, `${req.authUrl}/second-factor`, result.response);
  }
  if (result.status === 'paused') {
    sealFlow(req, provider.id, flow, result.paused, { crossSitePost: result.response.kind === 'redirect' && result.response.crossSitePost === true });
    return pausedResponse(req, `${req.authUrl}/callback/${encodeURIComponent(provider.id)}`, result.response);
  }
  if (result.status === 'failed') rememberTypedIdentifier(req, provider);
  if (result.status === 'redirected' && provider.type === 'email' && route === 'signin') rememberSentTo(req);
  return finished(req, result, provider.id);
}

/** The answer to a run that ended: the session's redirect (or the new-user page), a redirect, or the error page. */
function finished(req: AuthRequest, result: Exclude<FlowResult, { status: 'paused' }>, providerId?: string): Response {
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

/**
 * `POST {basePath}/second-factor`: the code typed (or the passkey assertion) at the second-factor stage, and
 * `GET {basePath}/second-factor?action=authenticate`: passkey options for it. Resumes the sign-in tail sealed in
 * its cookie (single-use like any flow cookie: spent whatever happens, re-sealed when the stage asks again).
 */
export async function handleSecondFactor(req: AuthRequest): Promise<Response> {
  // A GET only asks for passkey options (a new challenge sealed with the pending sign-in); every answer is a POST.
  if (req.method !== 'GET') requireCsrf(req);
  const { resumeSignIn, signInTail } = await loadRuntime();
  const browser = flowBrowser(req, { mint: false });
  let opened: { providerId: string; paused: PausedFlow };
  try {
    opened = openSignIn(req, signInTail);
  } catch (err) {
    clearSignIn(req);
    return errorRedirect(req, err);
  }
  const provider = req.config.providersById.get(opened.providerId);
  if (!provider) {
    clearSignIn(req);
    return errorRedirect(req, new InvalidCheck('The pending sign-in names a provider this configuration does not have.', { actual: opened.providerId }));
  }
  const sealed = opened.paused.context.callbackUrl;
  const deps: FlowDeps = { req, provider, callbackUrl: typeof sealed === 'string' ? sealed : await resolveCallbackUrl(req) };
  const entry = signInTail.entry('callback', deps, true);
  // Not a request the stage takes (a GET without `action=authenticate`): the pending sign-in is left as it was.
  if (!entry) throw new UnknownAction('The second-factor stage takes the code form, or a request for passkey options.');
  // Answers count against the user across all their pending sign-ins; a passkey options request is no answer.
  const userId = (opened.paused.context.user as { id?: unknown } | undefined)?.id;
  const answers = req.method === 'POST' && req.config.throttle && userId !== undefined;
  const gate = answers ? await (await loadThrottle()).throttleSecondFactor(req, provider, String(userId)) : undefined;
  if (gate instanceof Response) return gate;
  clearSignIn(req);
  const result = await resumeSignIn(deps, opened.paused, entry.event, { browser });
  await gate?.settle(result.status === 'signedIn');
  if (result.status === 'paused') {
    sealSignIn(req, provider.id, signInTail, result.paused);
    return pausedResponse(req, `${req.authUrl}/second-factor`, result.response);
  }
  return finished(req, result, provider.id);
}
