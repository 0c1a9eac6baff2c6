// `{basePath}/factors`: a signed-in user's second factors. GET lists them (JSON, or the built-in page); the POSTs
// (CSRF-checked) start the factor flow (flows/factors/manage.ts): an authenticator app, new backup codes, removing
// one; GET /factors/verify is the step-up check requireRecentSignIn sends the browser to; POST /factors/code
// carries the typed code back to the paused flow. Signed out: 401 (JSON) or the sign-in page (browsers).
import { InvalidRequest } from '../core/errors.js';
import { applyRedirectCallback } from '../core/redirect.js';
import { loadFactorAccount } from '../flows/factors/account.js';
import type { FactorOperation } from '../flows/factors/manage.js';
import { clearFactors, openFactors, sealFactors } from '../flows/runtime/cookie.js';
import type { FactorsResult } from '../flows/runtime/factors-run.js';
import type { PausedFlow } from '../flows/runtime/run.js';
import { strategyFor } from '../session/strategy.js';
import { csrf, requireCsrf } from './csrf.js';
import { pausedResponse } from './flow.js';
import { flowBrowser } from './inspect-trace.js';
import { renderBackupCodesPage, renderFactorsPage } from './pages/factors.js';
import { bodyString, pageNonce, type AuthRequest } from './request.js';
import { errorRedirect, html, json, redirect } from './response.js';
import { lazy } from '../core/lazy.js';

// The runtime (xstate and the machines) loads on the first factor request, as for sign-ins.
const loadRuntime = lazy(() => import('../flows/runtime/factors-run.js'));

/** A client that asked for JSON (fetch, the browser client) rather than a page. */
function wantsJson(req: AuthRequest): boolean {
  const accept = req.request.headers.get('accept') ?? '';
  return Boolean(req.request.headers.get('x-auth-return-redirect')) || (accept.includes('application/json') && !accept.includes('text/html'));
}

/** Where an action returns to: the form's or the query's callbackUrl (through the redirect callback), else the list. */
async function returnUrl(req: AuthRequest): Promise<string> {
  const requested = bodyString(req, 'callbackUrl') ?? req.query.callbackUrl;
  return requested ? applyRedirectCallback(req, requested) : `${req.authUrl}/factors`;
}

/** The sign-in page, coming back to `back` afterwards. */
function signInUrl(req: AuthRequest, back: string): string {
  const url = new URL(req.config.pages.signIn ?? `${req.config.basePath}/signin`, req.origin);
  url.searchParams.set('callbackUrl', back);
  return url.href;
}

/** The answer to a request nobody signed in made: 401 for JSON, the sign-in page for a browser. */
function signedOut(req: AuthRequest, back: string): Response {
  if (wantsJson(req)) return json(req, { error: 'Unauthorized', message: 'Sign-in required.' }, 401, { noCache: true });
  return redirect(req, signInUrl(req, back));
}

/** `GET {basePath}/factors`: the signed-in user's factors (never their secrets). */
export async function listFactorsRoute(req: AuthRequest): Promise<Response> {
  const session = await strategyFor(req).verification(req);
  if (!session) return signedOut(req, `${req.authUrl}/factors`);
  const { factors } = await loadFactorAccount({ req }, session.userId);
  const verifiedAt = session.verification?.authTime.toISOString() ?? null;
  if (wantsJson(req)) return json(req, { factors, verifiedAt, amr: session.verification?.amr ?? [] }, 200, { noCache: true });
  const callbackUrl = await returnUrl(req);
  return html(req, renderFactorsPage({ theme: req.config.theme, authUrl: req.authUrl, csrfToken: csrf(req).token, factors, callbackUrl, nonce: pageNonce(req) }));
}

const operations: Record<string, FactorOperation> = { totp: 'enrolTotp', 'backup-codes': 'backupCodes', remove: 'remove', verify: 'verify' };

/**
 * Starts the factor flow: `POST /factors/totp | backup-codes | remove` (CSRF-checked; remove takes `id`), or
 * `GET /factors/verify?callbackUrl=...` (step-up).
 */
export async function startFactorsRoute(req: AuthRequest, action: string): Promise<Response> {
  const op = operations[action];
  if (!op || (op === 'verify') !== (req.method === 'GET')) throw new InvalidRequest(`Unknown factor action: ${req.method} ${action}.`);
  if (req.method === 'POST') requireCsrf(req);
  const callbackUrl = await returnUrl(req);
  const session = await strategyFor(req).verification(req);
  if (!session) return signedOut(req, op === 'verify' ? callbackUrl : `${req.authUrl}/factors`);
  const factorId = bodyString(req, 'id');
  if (op === 'remove' && !factorId) throw new InvalidRequest('Removing a factor needs its id.');
  const { runFactorsFlow } = await loadRuntime();
  const event = { type: 'START', op, userId: session.userId, verifiedAt: session.verification?.authTime.getTime(), ...(factorId ? { factorId } : {}) };
  return answer(req, await runFactorsFlow({ req, callbackUrl }, event, undefined, { browser: flowBrowser(req, { mint: true }) }));
}

/** `POST {basePath}/factors/code`: the code typed into a paused factor flow (single-use cookie, like a sign-in's). */
export async function factorCodeRoute(req: AuthRequest): Promise<Response> {
  requireCsrf(req);
  const { runFactorsFlow, factorsFlow } = await loadRuntime();
  let paused: PausedFlow;
  try {
    paused = openFactors(req, factorsFlow);
  } catch (err) {
    clearFactors(req);
    return errorRedirect(req, err);
  }
  clearFactors(req);
  const session = await strategyFor(req).verification(req);
  const sealed = paused.context.callbackUrl;
  const callbackUrl = typeof sealed === 'string' ? sealed : `${req.authUrl}/factors`;
  if (!session) return signedOut(req, callbackUrl);
  // The machine refuses a code from any session but the one that started the flow.
  const event = { type: 'SUBMIT_CODE', code: bodyString(req, 'code') ?? '', userId: session.userId };
  return answer(req, await runFactorsFlow({ req, callbackUrl }, event, paused, { browser: flowBrowser(req, { mint: false }) }));
}

/** Seals a paused flow and shows its form, or applies how it ended. */
async function answer(req: AuthRequest, result: FactorsResult): Promise<Response> {
  const { factorsFlow } = await loadRuntime();
  switch (result.status) {
    case 'paused':
      sealFactors(req, factorsFlow, result.paused);
      return pausedResponse(req, `${req.authUrl}/factors/code`, result.response);
    case 'failed':
      if (wantsJson(req)) {
        req.config.logger.error(result.error);
        return json(req, { error: result.error.type === 'SecondFactorFailed' || result.error.type === 'InvalidRequest' ? result.error.type : 'AccessDenied' }, result.error.type === 'InvalidRequest' ? 400 : 403, { noCache: true });
      }
      return errorRedirect(req, result.error);
    case 'done': {
      const out = result.output;
      if (out.outcome === 'signIn') return redirect(req, signInUrl(req, out.redirect));
      if (out.outcome === 'codes') {
        if (wantsJson(req)) return json(req, { codes: out.codes }, 200, { noCache: true });
        return html(req, renderBackupCodesPage({ theme: req.config.theme, codes: out.codes, continueUrl: out.redirect, nonce: pageNonce(req) }));
      }
      return redirect(req, out.redirect);
    }
  }
}
