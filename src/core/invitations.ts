// Invitations to an organization as stored data: what an invitation holds (never its token, only the token's hash),
// the adapter methods that keep them (an authchart extension, required with `organizations`) and the
// `organizations.invitations` option.
import type { Awaitable } from './types.js';
import type { AdapterMembership } from './organizations.js';

/** Where an invitation stands. Expiry is read from `expires`, not stored: a pending invitation past it is expired. */
export type InvitationStatus = 'pending' | 'accepted' | 'declined' | 'revoked';

/** An invitation as the adapter stores it. */
export interface AdapterInvitation {
  id: string;
  organizationId: string;
  /** The invited address, normalised (lower case, ASCII domain). */
  email: string;
  role: string;
  /** SHA-256 (hex) of the token in the link; the token itself is never stored. */
  tokenHash: string;
  /** The user id of the member who invited. */
  invitedBy: string;
  status: InvitationStatus;
  expires: Date;
  createdAt: Date;
  /** Who accepted or declined it (a user id), when it was answered. */
  answeredBy: string | null;
}

/** Why an answer to an invitation was not taken: already answered, revoked or replaced, or past its expiry. */
export type InvitationRefusal = 'gone' | 'expired';

/**
 * Adapter methods for invitations, required with `organizations`. `answerInvitation` must be atomic: of two
 * concurrent answers (or an answer and a revocation) exactly one wins.
 */
export interface InvitationAdapterMethods {
  /**
   * Stores a pending invitation. A pending invitation of the same address to the same organization is replaced (its
   * token stops working): re-inviting never stacks.
   */
  createInvitation(invitation: Omit<AdapterInvitation, 'status' | 'createdAt' | 'answeredBy'>): Awaitable<AdapterInvitation>;
  /** The invitation whose token hashes to `tokenHash`, whatever its status, or null. */
  getInvitationByTokenHash(tokenHash: string): Awaitable<AdapterInvitation | null>;
  /** The organization's pending invitations (expired ones included), newest first. */
  listInvitations(organizationId: string): Awaitable<AdapterInvitation[]>;
  /** Revokes a pending invitation of this organization; null when there is no such pending one. */
  revokeInvitation(organizationId: string, id: string): Awaitable<AdapterInvitation | null>;
  /**
   * Atomic: answers the pending, unexpired invitation `id` whose token hash is `tokenHash` for `userId`. Accepting
   * adds the member with the invitation's role in the same step (an existing member keeps theirs).
   */
  answerInvitation(params: { id: string; tokenHash: string; userId: string; accept: boolean }): Awaitable<
    { invitation: AdapterInvitation; membership: AdapterMembership | null; added: boolean } | InvitationRefusal
  >;
}

/** Names of {@link InvitationAdapterMethods}, for the start-up check. */
export const invitationAdapterMethods = [
  'createInvitation',
  'getInvitationByTokenHash',
  'listInvitations',
  'revokeInvitation',
  'answerInvitation',
] as const satisfies readonly (keyof InvitationAdapterMethods)[];

export type { InvitationMail, InvitationsOptions } from './organizations.js';
