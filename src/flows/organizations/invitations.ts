// Invitations to an organization: sent by a member whose role may invite (for a role within their own), listed and
// revoked by such a member, answered by the invitee through the invitation flow (invitation-machine.ts). The link's
// token is random and stored only as its hash; an answer is bound to the invited address unless the app opts into
// `invitations.anyUser`.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { WrappedAdapter } from '../../core/adapter-wrap.js';
import type { InternalConfig } from '../../core/config.js';
import { normalizeEmailAddress } from '../../providers/email.js';
import { dispatchEvent } from '../../core/events.js';
import { InvalidRequest, MissingAdapter } from '../../core/errors.js';
import type { AdapterInvitation, InvitationAdapterMethods } from '../../core/invitations.js';
import type { RequestContext } from '../../core/request-context.js';
import { translatorFor, messagesFor } from '../../core/messages/request.js';
import { sessionGate } from '../../session/gate.js';
import { assertWithin, authorize, memberActivity, organizationStore } from '../../organizations/members.js';
import { sendInvitationMail } from './invitation-mail.js';

/** How long an invitation stays valid by default: seven days. */
export const INVITATION_MAX_AGE = 7 * 24 * 60 * 60;

type Methods = { [K in keyof InvitationAdapterMethods]-?: NonNullable<WrappedAdapter[K]> };

/** The adapter's invitation methods (checked at start once `organizations` is configured). */
export function invitationStore(config: InternalConfig): Methods {
  const adapter = config.adapter;
  if (!config.organizations || !adapter?.answerInvitation) throw new MissingAdapter('Invitations are not configured: set the `organizations` option with an adapter that keeps them.');
  return adapter as unknown as Methods;
}

/** The hash an invitation token is stored and looked up by (SHA-256, hex). */
export function invitationTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Whether a string can be an invitation token at all (43 base64url characters): anything else is looked up nowhere. */
export function isInvitationToken(token: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(token);
}

/** The invitation page's address for `token`. */
export function invitationUrl(req: RequestContext, token: string): string {
  return `${req.origin}${req.config.basePath}/invitations/${token}`;
}

const event = (config: InternalConfig, name: Parameters<typeof dispatchEvent>[2], message: unknown) => dispatchEvent(config.events, config.logger, name, message);

/** A pending invitation as the routes hand it out (never its token or hash). */
export interface InvitationView {
  id: string;
  email: string;
  role: string;
  invitedBy: string;
  expires: string;
  expired: boolean;
}

export const viewOf = (i: AdapterInvitation): InvitationView => ({ id: i.id, email: i.email, role: i.role, invitedBy: i.invitedBy, expires: i.expires.toISOString(), expired: i.expires.getTime() <= Date.now() });

/**
 * Invites `email` into the organization with `role` (permission `member:invite`, a role within the actor's) and mails
 * the link, in `locale` when given (the invitee's language), else the request's. A pending invitation of the same
 * address is replaced: its link stops working.
 */
export async function inviteMember(req: RequestContext, actorId: string, organizationId: string, params: { email: string; role: string; locale?: string }): Promise<AdapterInvitation> {
  const { config } = req;
  const actor = await authorize(config, organizationId, actorId, 'member:invite');
  assertWithin(config, actor, params.role, 'hand out');
  let email: string;
  try {
    email = normalizeEmailAddress(params.email);
  } catch (err) {
    throw new InvalidRequest(`Not an e-mail address: ${(err as Error).message}`);
  }
  const organization = await organizationStore(config).getOrganization(organizationId);
  if (!organization) throw new InvalidRequest('No such organization.');
  const token = randomBytes(32).toString('base64url');
  const maxAge = config.organizations?.invitations?.maxAge ?? INVITATION_MAX_AGE;
  const invitation = await invitationStore(config).createInvitation({
    id: randomUUID(),
    organizationId,
    email,
    role: params.role,
    tokenHash: invitationTokenHash(token),
    invitedBy: actorId,
    expires: new Date(Date.now() + maxAge * 1000),
  });
  const inviter = await config.adapter?.getUser?.(actorId).catch(() => null);
  const i18n = params.locale ? await translatorFor(params.locale, config.i18n.messages) : await messagesFor(req);
  await sendInvitationMail(config, req.request, req.origin, {
    to: email,
    url: invitationUrl(req, token),
    organizationName: organization.name,
    inviter: inviter?.name || inviter?.email || null,
    role: params.role,
    expires: invitation.expires,
  }, i18n);
  await memberActivity(req, 'organization.invitationSent', actorId, organizationId, actorId, { role: params.role, invitationId: invitation.id });
  await event(config, 'invitationSent', { organizationId, by: actorId, invitationId: invitation.id, email, role: params.role });
  return invitation;
}

/** The organization's pending invitations (permission `member:invite`). */
export async function listInvitations(config: InternalConfig, actorId: string, organizationId: string): Promise<AdapterInvitation[]> {
  await authorize(config, organizationId, actorId, 'member:invite');
  return invitationStore(config).listInvitations(organizationId);
}

/** Revokes a pending invitation of the organization (permission `member:invite`); false when there is none such. */
export async function revokeInvitation(config: InternalConfig, actorId: string, organizationId: string, invitationId: string): Promise<boolean> {
  await authorize(config, organizationId, actorId, 'member:invite');
  const revoked = await invitationStore(config).revokeInvitation(organizationId, invitationId);
  if (!revoked) return false;
  await memberActivity({ config }, 'organization.invitationRevoked', actorId, organizationId, actorId, { role: revoked.role, invitationId });
  await event(config, 'invitationRevoked', { organizationId, by: actorId, invitationId, email: revoked.email });
  return true;
}

/** What the invitation page shows: who invites whom to what. */
export interface InvitationFacts {
  id: string;
  tokenHash: string;
  organizationId: string;
  organizationName: string;
  inviter: string;
  email: string;
  role: string;
  expires: number;
}

/** An invitation as the page finds it: pending with its facts, or why not. */
export type InvitationLookup = { state: 'pending'; facts: InvitationFacts } | { state: 'expired' | 'gone' };

/** The invitation of `token`, read (nothing is spent). Unknown, answered, revoked and replaced read alike: gone. */
export async function lookUpInvitation(config: InternalConfig, token: string): Promise<InvitationLookup> {
  if (!isInvitationToken(token)) return { state: 'gone' };
  const tokenHash = invitationTokenHash(token);
  const invitation = await invitationStore(config).getInvitationByTokenHash(tokenHash);
  if (!invitation || invitation.status !== 'pending') return { state: 'gone' };
  if (invitation.expires.getTime() <= Date.now()) return { state: 'expired' };
  const organization = await organizationStore(config).getOrganization(invitation.organizationId);
  if (!organization) return { state: 'gone' };
  const inviter = await config.adapter?.getUser?.(invitation.invitedBy).catch(() => null);
  return {
    state: 'pending',
    facts: {
      id: invitation.id,
      tokenHash,
      organizationId: organization.id,
      organizationName: organization.name,
      inviter: inviter?.name || inviter?.email || invitation.invitedBy,
      email: invitation.email,
      role: invitation.role,
      expires: invitation.expires.getTime(),
    },
  };
}

/**
 * The signed-in user's address as it is now, for the binding: the user's row (only a verified address counts: an
 * address typed into a profile proves nothing), else, for a user with no row (a JWT session from `authorize`), the
 * address in the session.
 */
export async function currentAddress(req: RequestContext, userId: string): Promise<string | null> {
  const user = await req.config.adapter?.getUser?.(userId);
  let address: string | null | undefined;
  if (user) address = user.emailVerified ? user.email : null;
  else {
    const gate = await sessionGate(req);
    address = gate.ok && gate.userId === userId ? (gate.token?.email as string | null | undefined) : null;
  }
  if (!address) return null;
  try {
    return normalizeEmailAddress(address);
  } catch {
    return null;
  }
}

/** Whether `userId` may answer an invitation sent to `email`: it is their verified address, or the app lets anyone. */
export async function mayAnswer(req: RequestContext, userId: string, email: string): Promise<{ matches: boolean; allowed: boolean }> {
  const matches = (await currentAddress(req, userId)) === email;
  return { matches, allowed: matches || req.config.organizations?.invitations?.anyUser === true };
}

/** The outcome of an answer: the organization joined (or declined), or why not. */
export type AnswerResult = { result: 'accepted' | 'declined'; organizationId: string } | { result: 'expired' | 'gone' | 'otherAccount' };

/**
 * Answers the invitation for `userId`: checks the binding against the address as it is now, then takes the pending
 * invitation in one atomic step (single use: a replay, a second concurrent answer or a revocation that won finds it gone).
 */
export async function answerInvitation(req: RequestContext, params: { id: string; tokenHash: string; email: string; userId: string; accept: boolean }): Promise<AnswerResult> {
  const { config } = req;
  const { allowed } = await mayAnswer(req, params.userId, params.email);
  // Declining is bound as accepting is: nobody but the invitee (or, with anyUser, a holder of the link) spends it.
  if (!allowed) return { result: 'otherAccount' };
  const taken = await invitationStore(config).answerInvitation({ id: params.id, tokenHash: params.tokenHash, userId: params.userId, accept: params.accept });
  if (taken === 'expired' || taken === 'gone') return { result: taken };
  const { invitation } = taken;
  if (!params.accept) return { result: 'declined', organizationId: invitation.organizationId };
  // The records go with the events: the acceptance, and the membership when the invitee was not a member yet (a
  // member keeps their role: the invitation is spent, nothing else changes).
  await memberActivity(req, 'organization.invitationAccepted', params.userId, invitation.organizationId, params.userId, { role: invitation.role, invitationId: invitation.id });
  if (taken.added) await memberActivity(req, 'organization.memberAdded', params.userId, invitation.organizationId, params.userId, { role: invitation.role });
  await event(config, 'invitationAccepted', { organizationId: invitation.organizationId, by: params.userId, invitationId: invitation.id, email: invitation.email, role: invitation.role });
  if (taken.added) await event(config, 'memberAdded', { organizationId: invitation.organizationId, by: params.userId, userId: params.userId, role: invitation.role });
  return { result: 'accepted', organizationId: invitation.organizationId };
}
