// `POST {basePath}/account/passkeys/rename` and `/remove`: a signed-in user's passkeys, managed from the account
// page. Both are CSRF-checked and name the passkey by its credential id, looked up among the signed-in user's own
// (another user's id changes nothing). Remove needs a recent sign-in, keeps the last way to sign in, and asks first:
// the page's button posts `step=confirm`, which answers with the confirmation page.
import { messagesFor } from '../core/messages/request.js';
import { InvalidRequest } from '../core/errors.js';
import { accountPasskeys } from '../flows/registry.js';
import { sessionGate } from '../session/gate.js';
import { LINK_MAX_AGE, notRecent, refused } from './account.js';
import { accountDoneUrl, accountErrorUrl, accountUrl } from './account-url.js';
import { csrf, requireCsrf } from './csrf.js';
import { renderConfirmPage } from './pages/confirm.js';
import { bodyString, pageNonce, type AuthRequest } from './request.js';
import { html, redirect } from './response.js';

function passkeyId(req: AuthRequest): string {
  const id = bodyString(req, 'id');
  if (!id) throw new InvalidRequest('Name the passkey by its `id`.');
  return id;
}

/** `POST {basePath}/account/passkeys/rename` (`id`, `name`): back to the account page, saying it was renamed. */
export async function renamePasskeyRoute(req: AuthRequest): Promise<Response> {
  requireCsrf(req);
  const id = passkeyId(req);
  const gate = await sessionGate(req);
  if (!gate.ok) return notRecent(req, 'signedOut');
  try {
    await (await accountPasskeys()).renamePasskey(req, gate.userId, id, bodyString(req, 'name'));
  } catch (err) {
    return refused(req, err);
  }
  return redirect(req, accountDoneUrl(req, 'passkeyRenamed'));
}

/** `POST {basePath}/account/passkeys/remove` (`id`; `step=confirm` first asks): back to the account page. */
export async function removePasskeyRoute(req: AuthRequest): Promise<Response> {
  requireCsrf(req);
  const id = passkeyId(req);
  const gate = await sessionGate(req, { maxAge: LINK_MAX_AGE });
  if (!gate.ok) return notRecent(req, gate.reason);
  if (bodyString(req, 'step') === 'confirm') {
    const passkey = (await (await accountPasskeys()).listPasskeys(req, gate.userId)).find((p) => p.id === id);
    if (!passkey) return redirect(req, accountErrorUrl(req, 'AccessDenied'));
    const i18n = await messagesFor(req);
    return html(
      req,
      renderConfirmPage({
        theme: req.config.theme,
        message: i18n.t('manage.confirmRemovePasskey', { name: passkey.name ?? i18n.t('manage.passkeyUnnamed') }),
        action: `${req.authUrl}/account/passkeys/remove`,
        fields: { csrfToken: csrf(req).token, id },
        confirm: i18n.t('manage.remove'),
        cancelUrl: accountUrl(req),
        nonce: pageNonce(req),
        i18n,
      }),
    );
  }
  try {
    await (await accountPasskeys()).removePasskey(req, gate.userId, id);
  } catch (err) {
    return refused(req, err);
  }
  return redirect(req, accountDoneUrl(req, 'passkeyRemoved'));
}
