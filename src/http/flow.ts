// Enters a provider's flow from an HTTP route and turns what the flow settled into a response:
// seal and answer while it waits, or clear the provider's flow cookie and apply the outcome when it ends.
import { UnknownAction } from '../core/errors.js';
import type { FlowRoute } from '../machines/contract.js';
import { flowFor } from '../machines/flows.js';
import { runFlow, type PausedFlow } from '../machines/runtime.js';
import { recordRejectedFlow } from '../machines/trace-log.js';
import type { ResolvedProvider } from '../providers/types.js';
import { resolveCallbackUrl } from './callback-url.js';
import { requireCsrf } from './csrf.js';
import { clearFlow, openFlow, sealFlow } from './flow-cookie.js';
import { flowBrowser, rememberFailedFlow } from './inspect-trace.js';
import type { AuthRequest } from './request.js';
import { errorRedirect, html, json, redirect } from './response.js';

/** Drops any session cookie a failed flow may have queued: a failure never grants a session. */
function withoutSessionCookies(req: AuthRequest): void {
  const name = req.cookieOptions.sessionToken.name;
  req.setCookies = req.setCookies.filter((c) => !(c.name === name || c.name.startsWith(`${name}.`)) || c.options.maxAge === 0);
}

function newUserUrl(req: AuthRequest, callbackUrl: string): string {
  const url = new URL(req.config.pages.newUser!, req.origin);
  url.searchParams.set('callbackUrl', callbackUrl);
  return url.href;
}

export async function handleFlow(req: AuthRequest, provider: ResolvedProvider, route: FlowRoute): Promise<Response> {
  const flow = flowFor(provider);
  // Checked before anything else, so a forged request leaves no trace (not even a callback-url cookie).
  if (req.method === 'POST' && (flow.csrf ?? ['signin']).includes(route)) requireCsrf(req);
  const callbackUrl = await resolveCallbackUrl(req);
  const services = { req, provider, callbackUrl };
  const entry = flow.entry(route, services);
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
      rememberFailedFlow(req, recordRejectedFlow(req.config, provider.id, flow.machine, err, browser));
      return errorRedirect(req, err);
    }
  }
  const result = await runFlow(flow, services, entry, paused, { browser });
  // A flow cookie is single-use: whatever happened, the paused state it held is spent. Only this provider's
  // cookie is cleared; another provider's paused flow (another tab) is left alone.
  clearFlow(req, provider.id);
  switch (result.status) {
    case 'paused':
      sealFlow(req, provider.id, flow, result.paused, { crossSitePost: result.response.kind === 'redirect' && result.response.crossSitePost === true });
      if (result.response.kind === 'redirect') return redirect(req, result.response.url);
      if (result.response.kind === 'json') return json(req, result.response.body, result.response.status ?? 200, { noCache: true });
      return html(req, result.response.body, result.response.status ?? 200);
    case 'signedIn':
      return redirect(req, result.isNewUser && req.config.pages.newUser ? newUserUrl(req, result.redirect) : result.redirect);
    case 'redirected':
      withoutSessionCookies(req);
      return redirect(req, result.url);
    case 'failed':
      withoutSessionCookies(req);
      rememberFailedFlow(req, result.record);
      return errorRedirect(req, result.error);
  }
}
