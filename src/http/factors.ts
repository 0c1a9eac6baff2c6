// `{basePath}/factors` and `{basePath}/second-factor`: the routes of the second-factor stage. GET /factors lists a
// signed-in user's factors (JSON, or the built-in page); the POSTs (CSRF-checked) start the stage for them: an
// authenticator app, new backup codes, removing one; GET /factors/verify is the step-up check requireRecentSignIn
// sends the browser to. `/second-factor` (and its older name `/factors/code`) carries the browser's answer (a code, a
// passkey) back to a paused check, a sign-in's or a signed-in user's. Signed out: 401 (JSON) or the sign-in page.
import { messagesFor } from '../core/messages/request.js';
import { InvalidRequest } from '../core/errors.js';
import { applyRedirectCallback } from '../core/redirect.js';
import { lazy } from '../core/lazy.js';
import { factorAccount, step } from '../flows/registry.js';
import type { StageOutput, StagePurpose } from '../flows/runtime/stage.js';
import { sessionGate } from '../session/gate.js';
import { inspectorBrowser, respond, signInUrl, wantsJson } from './flow.js';
import { csrf, requireCsrf } from './csrf.js';
import { renderConfirmPage } from './pages/confirm.js';
import { renderBackupCodesPage, renderFactorsPage } from './pages/factors.js';
import { bodyString, pageNonce, type AuthRequest } from './request.js';
import { html, json, redirect } from './response.js';

const loadThrottle = lazy(() => import('./throttle.js'));

/** Where an action returns to: the form's or the query's callbackUrl (through the redirect callback), else the list. */
async function returnUrl(req: AuthRequest): Promise<string> {
  const requested = bodyString(req, 'callbackUrl') ?? req.query.callbackUrl;
  return requested ? applyRedirectCallback(req, requested) : `${req.authUrl}/factors`;
}

/** `GET {basePath}/factors`: the signed-in user's factors (never their secrets). */
export async function listFactorsRoute(req: AuthRequest): Promise<Response> {
  const gate = await sessionGate(req);
  if (!gate.ok) return respond(req, { status: 'signedOut', callbackUrl: `${req.authUrl}/factors` });
  const { factors } = await (await factorAccount()).loadFactorAccount({ req }, gate.userId);
  const verifiedAt = gate.verification?.authTime.toISOString() ?? null;
  if (wantsJson(req)) return json(req, { factors, verifiedAt, amr: gate.verification?.amr ?? [] }, 200, { noCache: true });
  const callbackUrl = await returnUrl(req);
  return html(req, renderFactorsPage({ theme: req.config.theme, authUrl: req.authUrl, csrfToken: csrf(req).token, factors, callbackUrl, nonce: pageNonce(req), i18n: await messagesFor(req) }));
}

const purposes: Record<string, Exclude<StagePurpose, 'signIn'>> = { totp: 'enrolTotp', 'backup-codes': 'backupCodes', remove: 'remove', verify: 'stepUp' };

/**
 * Starts the second-factor stage for the signed-in user: `POST /factors/totp | backup-codes | remove`
 * (CSRF-checked; remove takes `id`), or `GET /factors/verify?callbackUrl=...` (step-up).
 */
export async function startFactorsRoute(req: AuthRequest, action: string): Promise<Response> {
  const purpose = purposes[action];
  if (!purpose || (purpose === 'stepUp') !== (req.method === 'GET')) throw new InvalidRequest(`Unknown factor action: ${req.method} ${action}.`);
  if (req.method === 'POST') requireCsrf(req);
  const callbackUrl = await returnUrl(req);
  const factorId = bodyString(req, 'id');
  if (purpose === 'remove' && !factorId) throw new InvalidRequest('Removing a factor needs its id.');
  if (purpose === 'remove' && bodyString(req, 'step') === 'confirm') return confirmRemoval(req, factorId!, callbackUrl);
  const start = { purpose, ...(factorId ? { factorId } : {}) };
  const answer = await step(req, { kind: 'secondFactor', start, callbackUrl }, undefined, { browser: inspectorBrowser(req) });
  // Signed out: a step-up comes back to the page that asked; anything else to the factors page.
  if (answer.status === 'signedOut') return respond(req, { status: 'signedOut', callbackUrl: purpose === 'stepUp' ? callbackUrl : `${req.authUrl}/factors` });
  return respond(req, answer, { jsonFailures: true, assured: (out) => applied(req, out) });
}

/**
 * The page's "Remove" asks first (`step=confirm`): what goes (an app, the backup codes) and what follows (the last
 * factor: the password alone signs in), with the removal as a danger button and Cancel. Changes nothing.
 */
async function confirmRemoval(req: AuthRequest, factorId: string, callbackUrl: string): Promise<Response> {
  const gate = await sessionGate(req);
  if (!gate.ok) return respond(req, { status: 'signedOut', callbackUrl: `${req.authUrl}/factors` });
  const { factors } = await (await factorAccount()).loadFactorAccount({ req }, gate.userId);
  const factor = factors.find((f) => f.id === factorId);
  if (!factor) return redirect(req, `${req.authUrl}/factors`);
  const i18n = await messagesFor(req);
  const active = factors.filter((f) => f.activatedAt);
  // Backup codes are one factor together: the last factor is the last app, or the codes with no app.
  const last = factor.kind === 'totp' ? !active.some((f) => f.id !== factor.id && f.kind === 'totp') && !active.some((f) => f.kind === 'backup') : !active.some((f) => f.kind === 'totp');
  const message = [i18n.t(factor.kind === 'totp' ? 'manage.confirmRemoveApp' : 'manage.confirmRemoveCodes'), ...(last ? [i18n.t('manage.confirmLastFactor')] : [])];
  return html(
    req,
    renderConfirmPage({
      theme: req.config.theme,
      message,
      action: `${req.authUrl}/factors/remove`,
      fields: { csrfToken: csrf(req).token, callbackUrl, id: factorId },
      confirm: i18n.t('factors.remove'),
      cancelUrl: `${req.authUrl}/factors`,
      nonce: pageNonce(req),
      i18n,
    }),
  );
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
  const throttle = req.config.throttle ? await loadThrottle() : undefined;
  const admit = throttle && (async ({ userId }: { userId: string }) => {
    const gate = await throttle.throttleSecondFactor(req, 'second-factor', userId);
    return gate instanceof Response ? { refused: gate } : gate;
  });
  const answer = await step(req, { kind: 'secondFactor', ...(admit ? { admit } : {}) }, undefined, { browser: inspectorBrowser(req) });
  return respond(req, answer, { jsonFailures: true, assured: (out) => applied(req, out) });
}

/** A signed-in user's check that ended (already recorded in their session): back, new codes shown, or a full sign-in. */
async function applied(req: AuthRequest, out: StageOutput): Promise<Response> {
  if (out.outcome === 'signIn') return redirect(req, signInUrl(req, out.redirect));
  if (out.outcome === 'codes') {
    if (wantsJson(req)) return json(req, { codes: out.codes }, 200, { noCache: true });
    return html(req, renderBackupCodesPage({ theme: req.config.theme, codes: out.codes, continueUrl: out.redirect, host: new URL(req.origin).host, nonce: pageNonce(req), i18n: await messagesFor(req) }));
  }
  return redirect(req, out.redirect);
}
