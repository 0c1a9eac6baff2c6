// `GET|POST {basePath}/email/revert`: the way back after a change of e-mail address, from the link mailed to the old
// address (valid 7 days, single use, stored hashed). GET only asks (a mail scanner that opens links changes nothing);
// the confirmed POST puts the old address back, marked verified, and ends every session of the user, whoever holds
// them. It needs no session: the person it is for may have been locked out by whoever changed the address.
import { noteActivity } from '../../activity/run.js';
import { AccessDenied, Verification } from '../../core/errors.js';
import { messagesFor } from '../../core/messages/request.js';
import { changeEmailSteps } from '../../flows/registry.js';
import { endEverySession } from '../../session/end-every-session.js';
import { csrf, requireCsrf } from '../csrf.js';
import { renderConfirmPage } from '../pages/confirm.js';
import { bodyString, pageNonce, type AuthRequest } from '../request.js';
import { errorRedirect, html, redirect } from '../response.js';

const MAX = 512;

/** The link's three parts, or undefined when one is missing or oversized. */
function linkOf(req: AuthRequest): { user: string; email: string; token: string } | undefined {
  const read = (name: string) => (req.method === 'POST' ? bodyString(req, name) : req.query[name]);
  const [user, email, token] = ['user', 'email', 'token'].map(read);
  const ok = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= MAX;
  return ok(user) && ok(email) && ok(token) ? { user, email, token } : undefined;
}

/** GET: the question, with the link's parts in a CSRF-checked form; POST: the address put back. */
export async function emailRevertRoute(req: AuthRequest): Promise<Response> {
  const link = linkOf(req);
  if (!link) return errorRedirect(req, new Verification('This way back lacks its user, address or token.'));
  if (req.method !== 'POST') {
    const i18n = await messagesFor(req);
    return html(
      req,
      renderConfirmPage({
        theme: req.config.theme,
        message: i18n.t('changeEmail.revertMessage', { email: link.email }),
        action: `${req.authUrl}/email/revert`,
        fields: { csrfToken: csrf(req).token, ...link },
        confirm: i18n.t('changeEmail.revertConfirm'),
        cancelUrl: req.origin,
        nonce: pageNonce(req),
        i18n,
      }),
    );
  }
  requireCsrf(req);
  const adapter = req.config.adapter;
  if (!adapter?.useVerificationToken || !adapter.getUserByEmail || !adapter.updateUser) return errorRedirect(req, new Verification('This site cannot put an address back.'));
  // Used up first, in one step: of two confirmations at once, one finds the token.
  const { revertIdentifier, revertTokenHash } = await changeEmailSteps();
  // Each secret of the rotation list in turn: a link mailed before the current first secret was added still works.
  const identifier = revertIdentifier(link.user, link.email);
  let used = null;
  for (const secret of new Set(req.config.secrets)) {
    used = await adapter.useVerificationToken({ identifier, token: revertTokenHash(secret, link.token) });
    if (used) break;
  }
  if (!used) return errorRedirect(req, new Verification('This way back is used, or is not one that was sent.'));
  if (new Date(used.expires).getTime() <= Date.now()) return errorRedirect(req, new Verification('This way back has expired.'));
  const owner = await adapter.getUserByEmail(link.email);
  if (owner && owner.id !== link.user) return errorRedirect(req, new AccessDenied('The old address belongs to another account now.'));
  await adapter.updateUser({ id: link.user, email: link.email, emailVerified: new Date() });
  await endEverySession(req, link.user, 'Putting an e-mail address back');
  await noteActivity(req, { kind: 'email.changed', userId: link.user, method: 'email', reason: 'reverted' });
  const signin = new URL(`${req.authUrl}/signin`);
  signin.searchParams.set('notice', 'emailRestored');
  return redirect(req, signin.href);
}
