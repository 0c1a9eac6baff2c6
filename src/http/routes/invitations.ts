// The invitation routes. An admin's, acting in the active organization only (JSON, writes CSRF-checked):
// POST organizations/invitations (invite `email` with `role`), GET organizations/invitations (pending ones),
// POST organizations/invitations/revoke (`id`). The invitee's: GET|POST invitations/:token, the invitation flow's page
// (who invites whom to what, Accept, Decline); signed out, the same facts with the ways to sign in or sign up, coming
// back to the link.
import { messagesFor } from '../../core/messages/request.js';
import type { FlowFormPage } from '../../flows/runtime/contract.js';
import { applyRedirectCallback } from '../../core/redirect.js';
import { isPasswordProvider } from '../../core/provider.js';
import { invitationFlow, invitations, step } from '../../flows/registry.js';
import { sessionGate } from '../../session/gate.js';
import { csrf, requireCsrf } from '../csrf.js';
import { inspectorBrowser, pausedResponse, respond, signInUrl } from '../flow.js';
import { loadFormPage } from '../pages/load.js';
import { bodyString, pageNonce, type AuthRequest } from '../request.js';
import { html, redirect } from '../response.js';
import { active, answer, guarded } from './organizations.js';

/** POST organizations/invitations (`email`, `role`, optional `locale` of the invitee): mails the link. */
export async function inviteRoute(req: AuthRequest): Promise<Response> {
  requireCsrf(req);
  return guarded(req, async () => {
    const acting = await active(req, { permission: 'member:invite' });
    if (acting instanceof Response) return acting;
    const email = bodyString(req, 'email');
    const role = bodyString(req, 'role') ?? 'member';
    const locale = bodyString(req, 'locale');
    if (!email) return answer(req, { error: 'InvalidRequest', message: 'Give the `email` to invite.' }, 400);
    const { inviteMember, viewOf } = await invitations();
    const invitation = await inviteMember(req, acting.userId, acting.organization.organizationId, { email, role, ...(locale ? { locale } : {}) });
    return answer(req, viewOf(invitation), 201);
  });
}

/** GET organizations/invitations: the active organization's pending invitations (permission `member:invite`). */
export async function listInvitationsRoute(req: AuthRequest): Promise<Response> {
  return guarded(req, async () => {
    const acting = await active(req, { permission: 'member:invite' });
    if (acting instanceof Response) return acting;
    const { listInvitations, viewOf } = await invitations();
    const pending = await listInvitations(req.config, acting.userId, acting.organization.organizationId);
    return answer(req, { invitations: pending.map(viewOf) });
  });
}

/** POST organizations/invitations/revoke (`id`): only an invitation of the active organization; another reads as none. */
export async function revokeInvitationRoute(req: AuthRequest): Promise<Response> {
  requireCsrf(req);
  return guarded(req, async () => {
    const acting = await active(req, { permission: 'member:invite' });
    if (acting instanceof Response) return acting;
    const id = bodyString(req, 'id');
    if (!id) return answer(req, { error: 'InvalidRequest', message: 'Give the invitation `id`.' }, 400);
    const { revokeInvitation } = await invitations();
    if (!(await revokeInvitation(req.config, acting.userId, acting.organization.organizationId, id))) {
      return answer(req, { error: 'InvalidRequest', message: 'No such pending invitation in this organization.' }, 404);
    }
    return answer(req, { revoked: id });
  });
}

/** Where the invitee goes once they answered: the `callbackUrl` asked for (through the redirect callback), else the app. */
async function afterwards(req: AuthRequest): Promise<string> {
  const asked = bodyString(req, 'callbackUrl') ?? req.query.callbackUrl;
  return asked ? applyRedirectCallback(req, asked) : req.origin;
}

/** A page that only says something (no form): why the invitation cannot be taken, or how to sign in first. */
async function notice(req: AuthRequest, page: Omit<FlowFormPage, 'fields'>, status: number): Promise<Response> {
  const { renderFormPage } = await loadFormPage();
  const body = renderFormPage({ theme: req.config.theme, actionUrl: '', hiddenFields: { csrfToken: csrf(req).token }, page: { ...page, fields: [] }, nonce: pageNonce(req), i18n: await messagesFor(req), authUrl: req.authUrl });
  return html(req, body, status);
}

const FAILED_PAGES = { gone: ['invitation.gone', 410], expired: ['invitation.expired', 410], otherAccount: ['invitation.otherAccount', 403] } as const;

/**
 * `GET|POST {basePath}/invitations/:token`. Signed in: the invitation flow (its page, then the answer). Signed out:
 * the invitation's facts with sign-in and sign-up links that come back here; a POST goes to sign in.
 */
export async function invitationRoute(req: AuthRequest, token: string): Promise<Response> {
  if (req.method === 'POST') requireCsrf(req);
  const here = `${req.authUrl}/invitations/${encodeURIComponent(token)}`;
  const gate = await sessionGate(req);
  if (!gate.ok) {
    if (req.method === 'POST') return redirect(req, signInUrl(req, here));
    const found = await (await invitations()).lookUpInvitation(req.config, token);
    if (found.state !== 'pending') return notice(req, { title: { message: 'invitation.heading' }, message: { message: FAILED_PAGES[found.state][0] } }, 410);
    const f = found.facts;
    const values = { inviter: f.inviter, email: f.email, organization: f.organizationName, role: f.role };
    const password = [...req.config.providersById.values()].find(isPasswordProvider) as { id: string; password?: { signUp?: unknown } } | undefined;
    const signUp = password && password.password?.signUp ? `${req.authUrl}/signup/${encodeURIComponent(password.id)}?callbackUrl=${encodeURIComponent(here)}` : undefined;
    return notice(req, {
      title: { message: 'invitation.title', values },
      message: { message: 'invitation.message', values },
      error: { message: 'invitation.signedOut', values },
      link: { href: signInUrl(req, here), text: { message: 'invitation.signIn' } },
      ...(signUp ? { leave: { href: signUp, text: { message: 'invitation.signUp' } } } : {}),
    }, 200);
  }
  const callbackUrl = await afterwards(req);
  const result = await step(req, { kind: 'signedIn', flow: await invitationFlow(), route: req.method === 'GET' ? 'start' : 'continue', callbackUrl }, undefined, { browser: inspectorBrowser(req) });
  if (result.status === 'paused') return pausedResponse(req, here, result.response);
  if (result.status === 'failed') {
    const state = String((result.error.cause as { state?: unknown } | undefined)?.state ?? '').split('.').at(-1) ?? '';
    if (Object.hasOwn(FAILED_PAGES, state)) {
      req.config.logger.debug('invitation refused', { state });
      const [message, status] = FAILED_PAGES[state as keyof typeof FAILED_PAGES];
      const found = state === 'otherAccount' ? await (await invitations()).lookUpInvitation(req.config, token) : undefined;
      const email = found?.state === 'pending' ? found.facts.email : '';
      return notice(req, { title: { message: 'invitation.heading' }, message: { message, values: { email } }, leave: { href: callbackUrl, text: { message: 'invitation.back' } } }, status);
    }
  }
  return respond(req, result);
}
