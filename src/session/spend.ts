// A single-use token (magic link, e-mail code) that a flow proved but left unspent, so that spending it and writing
// the session commit together: an answer that reports an error never leaves the link burnt or a session behind.
import type { WrappedAdapter } from '../core/adapter-wrap.js';
import { MissingAdapter, Verification } from '../core/errors.js';
import type { RequestContext as AuthRequest } from '../core/request-context.js';

/** A verification token to use up with the session: its identifier and its stored form (the hash). */
export interface TokenSpend {
  identifier: string;
  token: string;
  /** A key of the flow's own store that goes with the token once it is spent (the e-mail code sent beside a link). */
  forget?: string;
}

/** Whether a flow's `spend` has the shape of a {@link TokenSpend} (it may come from a custom flow's output). */
export function isTokenSpend(value: unknown): value is TokenSpend {
  const v = value as TokenSpend | null | undefined;
  const ok = (s: unknown) => typeof s === 'string' && s.length > 0 && s.length <= 512;
  return typeof v === 'object' && v !== null && ok(v.identifier) && ok(v.token) && (v.forget === undefined || ok(v.forget));
}

/**
 * Uses the token up through `adapter` (a transaction's, when there is one). It was found unexpired moments ago, but
 * another request may have taken it since, or it may have expired: either is a Verification error, and the
 * transaction it runs in rolls back.
 */
export async function spendIn(adapter: WrappedAdapter, spend: TokenSpend): Promise<void> {
  const used = await adapter.useVerificationToken({ identifier: spend.identifier, token: spend.token });
  if (!used) throw new Verification('The sign-in link or code was used in the meantime.', { expected: 'a stored token', actual: null });
  if (new Date(used.expires).getTime() <= Date.now()) {
    throw new Verification('The sign-in link has expired.', { expected: `before ${new Date(used.expires).toISOString()}`, actual: new Date().toISOString() });
  }
}

/**
 * Spends the token on its own, for an answer that reports it without a session (a sign-in that pauses for a second
 * factor): in a transaction when the adapter has one, so a late DELETE rolls back instead of burning the link. When
 * it throws, the claim is the caller's to give back (the flow runtime gives back whatever a run did not spend).
 */
export async function spendAlone(req: AuthRequest, spend: TokenSpend): Promise<void> {
  const adapter = spendingAdapter(req);
  if (adapter.withTransaction) await adapter.withTransaction((tx) => spendIn(tx, spend));
  else await spendIn(adapter, spend);
}

/** The adapter that spends sign-in tokens (a flow that leaves one unspent has one). */
export function spendingAdapter(req: AuthRequest): WrappedAdapter {
  if (!req.config.adapter) throw new MissingAdapter('Spending a sign-in token needs an adapter.');
  return req.config.adapter;
}

/** Gives the token's claim back (`config.singleUse`): it was not spent, so the link or code may be used again. */
export async function releaseClaim(req: AuthRequest, spend: TokenSpend): Promise<void> {
  await req.config.singleUse.delete(spend.token).catch(() => undefined);
}
