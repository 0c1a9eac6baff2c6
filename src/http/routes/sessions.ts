// GET {basePath}/sessions lists the signed-in user's database sessions; POST {basePath}/sessions/revoke (CSRF
// required) ends one (`id`), all the others (`scope=others`) or every one (`scope=all`: sign out everywhere).
// POST {basePath}/account/sessions is the account page's form of the same: one other device (`id`) or every other
// one (`scope=others`), asked first (`step=confirm`), answered with the page.
import { AuthError, InvalidRequest } from '../../core/errors.js';
import { messagesFor } from '../../core/messages/request.js';
import { sessionGate } from '../../session/gate.js';
import { listSessions, revokeAllSessions, revokeOtherSessions, revokeSession } from '../../session/session-control.js';
import { notRecent } from '../account.js';
import { accountDoneUrl, accountErrorUrl, accountUrl } from '../account-url.js';
import { csrf, requireCsrf } from '../csrf.js';
import { renderConfirmPage } from '../pages/confirm.js';
import { deviceName } from '../pages/device-name.js';
import { bodyString, pageNonce, type AuthRequest } from '../request.js';
import { html, json, redirect } from '../response.js';

const noSession = (req: AuthRequest) => json(req, { error: 'SessionRequired' }, 401, { noCache: true });

/** Session control without database sessions (or an adapter lacking the methods) is a 400 naming why. */
async function guarded(req: AuthRequest, work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AuthError && (err.type === 'UnsupportedStrategy' || err.type === 'MissingAdapterMethods')) {
      req.config.logger.error(err);
      return json(req, { error: err.type }, 400, { noCache: true });
    }
    throw err;
  }
}

export function listSessionsRoute(req: AuthRequest): Promise<Response> {
  return guarded(req, async () => {
    const sessions = await listSessions(req);
    return sessions ? json(req, { sessions }, 200, { noCache: true }) : noSession(req);
  });
}

export function revokeSessionsRoute(req: AuthRequest): Promise<Response> {
  requireCsrf(req);
  return guarded(req, async () => {
    const id = bodyString(req, 'id');
    const scope = bodyString(req, 'scope');
    let revoked: number | undefined;
    if (id !== undefined) {
      const done = await revokeSession(req, id);
      revoked = done === undefined ? undefined : done ? 1 : 0;
    } else if (scope === 'others') revoked = await revokeOtherSessions(req);
    else if (scope === 'all') revoked = await revokeAllSessions(req);
    else return json(req, { error: 'InvalidRequest', message: 'Give `id`, or `scope` "others" or "all".' }, 400, { noCache: true });
    return revoked === undefined ? noSession(req) : json(req, { revoked }, 200, { noCache: true });
  });
}

/** The account page's "Sign out" (`id`, another device) and "Sign out of all other devices" (`scope=others`). */
export async function accountSessionsRoute(req: AuthRequest): Promise<Response> {
  requireCsrf(req);
  const id = bodyString(req, 'id');
  const scope = bodyString(req, 'scope');
  if (id === undefined && scope !== 'others') throw new InvalidRequest('Give `id`, or `scope` "others".');
  const gate = await sessionGate(req);
  if (!gate.ok) return notRecent(req, 'signedOut');
  try {
    if (bodyString(req, 'step') === 'confirm') return await confirmSignOut(req, id);
    if (id === undefined) {
      await revokeOtherSessions(req);
      return redirect(req, accountDoneUrl(req, 'signedOutOthers'));
    }
    // This device signs out through the sign-out page; here only the others, and only the user's own.
    const mine = (await listSessions(req))?.find((s) => s.id === id && !s.current);
    if (!mine || !(await revokeSession(req, id))) return redirect(req, accountErrorUrl(req, 'SessionNotFound'));
    return redirect(req, accountDoneUrl(req, 'signedOutOne'));
  } catch (err) {
    if (err instanceof AuthError && (err.type === 'UnsupportedStrategy' || err.type === 'MissingAdapterMethods')) {
      req.config.logger.error(err);
      return redirect(req, accountErrorUrl(req, err.type));
    }
    throw err;
  }
}

/** The confirmation page: which device (by its readable name), or every other one. */
async function confirmSignOut(req: AuthRequest, id: string | undefined): Promise<Response> {
  const i18n = await messagesFor(req);
  let message = i18n.t('manage.confirmSignOutOthers');
  if (id !== undefined) {
    const session = (await listSessions(req))?.find((s) => s.id === id && !s.current);
    if (!session) return redirect(req, accountErrorUrl(req, 'SessionNotFound'));
    message = i18n.t('manage.confirmSignOut', { device: await deviceName(session.userAgent, i18n) });
  }
  return html(
    req,
    renderConfirmPage({
      theme: req.config.theme,
      message,
      action: `${req.authUrl}/account/sessions`,
      fields: { csrfToken: csrf(req).token, ...(id === undefined ? { scope: 'others' } : { id }) },
      confirm: i18n.t(id === undefined ? 'manage.signOutOthers' : 'manage.signOut'),
      cancelUrl: accountUrl(req),
      nonce: pageNonce(req),
      i18n,
    }),
  );
}
