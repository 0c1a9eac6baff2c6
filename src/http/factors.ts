// `{basePath}/factors` and `{basePath}/second-factor`: the doors into the second-factor machine. GET /factors lists a
// signed-in user's factors (JSON, or the built-in page); the POSTs (CSRF-checked) start the machine for them: an
// authenticator app, new backup codes, removing one; GET /factors/verify is the step-up check requireRecentSignIn
// sends the browser to. `/second-factor` (and its older name `/factors/code`) carries the browser's answer (a code, a
// passkey) back to a paused check, a sign-in's or a signed-in user's. Signed out: 401 (JSON) or the sign-in page.
import { messagesFor } from '../core/messages/request.js';
import { InvalidRequest, publicErrorType, UnknownAction } from '../core/errors.js';
import { applyRedirectCallback } from '../core/redirect.js';
import { lazy } from '../core/lazy.js';
import { loadFactorAccount } from '../flows/second-factor/account.js';
import type { AssuranceOutput, AssurancePurpose } from '../flows/second-factor/machine.js';
import { assuranceStage } from '../flows/registry.js';
import { clearFlow, keepFlow, openFlow, sealFlow, type FlowSlot } from '../flows/runtime/cookie.js';
import type { FlowDeps } from '../flows/runtime/contract.js';
import type { FlowResult } from '../flows/runtime/flow.js';
import type { PausedFlow } from '../flows/runtime/run.js';
import { recordFactorCheck } from '../session/factor-check.js';
import { sessionGate } from '../session/gate.js';
import { csrf, requireCsrf } from './csrf.js';
import { finished, pausedResponse, refusedAnswer, withPage } from './flow.js';
import { flowBrowser } from './inspect-trace.js';
import { renderBackupCodesPage, renderFactorsPage } from './pages/factors.js';
import { bodyString, pageNonce, type AuthRequest } from './request.js';
import { errorRedirect, html, json, redirect } from './response.js';

// The runtime (xstate and the machines) loads on the first factor request, as for sign-ins.
const loadRuntime = lazy(() => import('../flows/runtime/flow.js'));
const loadThrottle = lazy(() => import('./throttle.js'));

/** Where the second-factor machine waits, whatever it is for. */
const SLOT: FlowSlot = { stage: 'assurance' };

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
  const gate = await sessionGate(req);
  if (!gate.ok) return signedOut(req, `${req.authUrl}/factors`);
  const { factors } = await loadFactorAccount({ req }, gate.userId);
  const verifiedAt = gate.verification?.authTime.toISOString() ?? null;
  if (wantsJson(req)) return json(req, { factors, verifiedAt, amr: gate.verification?.amr ?? [] }, 200, { noCache: true });
  const callbackUrl = await returnUrl(req);
  return html(req, renderFactorsPage({ theme: req.config.theme, authUrl: req.authUrl, csrfToken: csrf(req).token, factors, callbackUrl, nonce: pageNonce(req), i18n: await messagesFor(req) }));
}

const purposes: Record<string, AssurancePurpose> = { totp: 'enrolTotp', 'backup-codes': 'backupCodes', remove: 'remove', verify: 'stepUp' };

/**
 * Starts the second-factor machine for the signed-in user: `POST /factors/totp | backup-codes | remove`
 * (CSRF-checked; remove takes `id`), or `GET /factors/verify?callbackUrl=...` (step-up).
 */
export async function startFactorsRoute(req: AuthRequest, action: string): Promise<Response> {
  const purpose = purposes[action];
  if (!purpose || (purpose === 'stepUp') !== (req.method === 'GET')) throw new InvalidRequest(`Unknown factor action: ${req.method} ${action}.`);
  if (req.method === 'POST') requireCsrf(req);
  const callbackUrl = await returnUrl(req);
  const gate = await sessionGate(req);
  if (!gate.ok) return signedOut(req, purpose === 'stepUp' ? callbackUrl : `${req.authUrl}/factors`);
  const factorId = bodyString(req, 'id');
  if (purpose === 'remove' && !factorId) throw new InvalidRequest('Removing a factor needs its id.');
  const event = { type: 'START', purpose, userId: gate.userId, verifiedAt: gate.verification?.authTime.getTime(), ...(factorId ? { factorId } : {}) };
  const { runAssurance } = await loadRuntime();
  return answer(req, await runAssurance(await assuranceStage(), { req, callbackUrl }, event, undefined, { browser: flowBrowser(req, { mint: true }) }));
}

/**
 * `POST {basePath}/second-factor`: the code typed (or the passkey assertion) for a paused check, and
 * `GET {basePath}/second-factor?action=authenticate`: passkey options for it. The cookie is single-use like any flow
 * cookie: spent whatever happens, sealed again when the check asks again. A signed-in user's check is answered only
 * from a live session of the same user (the machine compares them); a sign-in's has no session yet.
 */
export async function secondFactorRoute(req: AuthRequest): Promise<Response> {
  // A GET only asks for passkey options (a new challenge sealed with the pending check); every answer is a POST.
  if (req.method !== 'GET') requireCsrf(req);
  const flow = await assuranceStage();
  let paused: PausedFlow;
  try {
    paused = openFlow(req, SLOT, flow);
  } catch (err) {
    clearFlow(req, SLOT);
    return errorRedirect(req, err);
  }
  const signIn = paused.context.purpose === 'signIn';
  const sealed = paused.context.callbackUrl;
  const callbackUrl = typeof sealed === 'string' ? sealed : `${req.authUrl}/factors`;
  // The flow's entry reads only the request: a paused check belongs to no provider's route.
  const entry = flow.entry('callback', { req, callbackUrl } as FlowDeps, true);
  // Not a request the check takes (a GET without `action=authenticate`): the paused check is left as it was.
  if (!entry) throw new UnknownAction('The second-factor check takes the code form, or a request for passkey options.');
  let event: { type: string; userId?: string } = entry.event;
  if (!signIn) {
    const gate = await sessionGate(req);
    if (!gate.ok) {
      clearFlow(req, SLOT);
      return signedOut(req, callbackUrl);
    }
    event = { ...event, userId: gate.userId };
  }
  // Answers count against the user across all their pending checks; a passkey options request is no answer.
  const userId = paused.context.userId;
  const answers = req.method === 'POST' && req.config.throttle && typeof userId === 'string' && userId !== '';
  const throttled = answers ? await (await loadThrottle()).throttleSecondFactor(req, flow.machine.id, userId) : undefined;
  if (throttled instanceof Response) return throttled;
  clearFlow(req, SLOT);
  const { runAssurance } = await loadRuntime();
  const result = await runAssurance(flow, { req, callbackUrl }, event, paused, { browser: flowBrowser(req, { mint: false }) });
  await throttled?.settle(result.status === 'signedIn' || result.status === 'assured', result.status === 'failed' ? result.error : undefined);
  if (result.status === 'refused') {
    // Nothing ran: the pending check stands, its cookie kept.
    keepFlow(req, SLOT);
    return refusedAnswer(req, result.error);
  }
  return answer(req, result);
}

/** Seals a paused check and shows its form, or applies how it ended. */
async function answer(req: AuthRequest, result: FlowResult): Promise<Response> {
  switch (result.status) {
    case 'paused':
      sealFlow(req, SLOT, await assuranceStage(), withPage(result.paused, result.response));
      return pausedResponse(req, `${req.authUrl}/second-factor`, result.response);
    case 'failed':
      if (wantsJson(req)) {
        req.config.logger.error(result.error);
        // The client's own failures by name; anything else is the server's, said no more precisely than elsewhere.
        const type = publicErrorType(result.error);
        const status = type === 'InvalidRequest' ? 400 : type === 'Configuration' ? 500 : 403;
        return json(req, { error: type }, status, { noCache: true });
      }
      return errorRedirect(req, result.error);
    case 'assured':
      return applied(req, result.output as AssuranceOutput);
    case 'refused':
      return refusedAnswer(req, result.error);
    default:
      return finished(req, result);
  }
}

/** A signed-in user's check that ended: recorded in their session, then back, new codes shown, or a full sign-in. */
async function applied(req: AuthRequest, out: AssuranceOutput): Promise<Response> {
  if (out.outcome === 'signIn') return redirect(req, signInUrl(req, out.redirect));
  await recordFactorCheck(req, { method: out.method, changed: out.outcome === 'codes' || out.changed });
  if (out.outcome === 'codes') {
    if (wantsJson(req)) return json(req, { codes: out.codes }, 200, { noCache: true });
    return html(req, renderBackupCodesPage({ theme: req.config.theme, codes: out.codes, continueUrl: out.redirect, nonce: pageNonce(req), i18n: await messagesFor(req) }));
  }
  return redirect(req, out.redirect);
}
