// What the invitation machine does for real: finds the invitation of the link's token (nothing spent), and answers it
// for the signed-in user (the binding to the invited address checked against the address as it is now, then one
// atomic take of the pending invitation).
import { answerInvitation, lookUpInvitation, mayAnswer, type AnswerResult, type InvitationFacts } from './invitations.js';
import type { SignedInDeps } from '../runtime/signed-in.js';

/** What opening the link found: the pending invitation with whether this user may take it, or why it is not there. */
export type Opened = { state: 'pending'; facts: InvitationFacts; matches: boolean; allowed: boolean } | { state: 'expired' | 'gone' };

export async function openInvitation({ input }: { input: { deps: SignedInDeps; token: string; userId: string } }): Promise<Opened> {
  const found = await lookUpInvitation(input.deps.req.config, input.token);
  if (found.state !== 'pending') return found;
  const { matches, allowed } = await mayAnswer(input.deps.req, input.userId, found.facts.email);
  return { state: 'pending', facts: found.facts, matches, allowed };
}

export async function answer({ input }: { input: { deps: SignedInDeps; facts: InvitationFacts; userId: string; accept: boolean } }): Promise<AnswerResult> {
  const { facts } = input;
  return answerInvitation(input.deps.req, { id: facts.id, tokenHash: facts.tokenHash, email: facts.email, userId: input.userId, accept: input.accept });
}
