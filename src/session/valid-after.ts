// JWT sessions and "sign out everywhere": the user's "sessions valid after" time, kept by the adapter, is compared with
// when a token's session began at each refresh (`updateAge`), so a token ended elsewhere lives at most updateAge more.
import type { JWT } from '../core/types.js';
import type { RequestContext as AuthRequest } from '../core/request-context.js';

/** When the token's session began (seconds): `session_iat`, else (older tokens) `auth_time`, else `iat`. */
export function sessionStart(token: JWT): number {
  for (const claim of [token.session_iat, token.auth_time, token.iat]) {
    if (typeof claim === 'number' && Number.isFinite(claim)) return claim;
  }
  return 0;
}

/** Whether the adapter keeps "sessions valid after" times (the check and the setting need both methods). */
export function keepsValidAfter(req: AuthRequest): boolean {
  const adapter = req.config.adapter;
  return Boolean(adapter?.getSessionsValidAfter && adapter.setSessionsValidAfter);
}

/**
 * Whether the token's session began before its user's "sessions valid after" time (it must be refused). False
 * without an adapter that keeps the time, or for a token without a user id.
 */
export async function endedElsewhere(req: AuthRequest, token: JWT): Promise<boolean> {
  const adapter = req.config.adapter;
  if (!adapter?.getSessionsValidAfter || typeof token.sub !== 'string') return false;
  const after = await adapter.getSessionsValidAfter(token.sub);
  return after !== null && sessionStart(token) * 1000 < new Date(after).getTime();
}

/** Ends the user's JWT sessions that began before `at` (each at its next refresh). */
export async function endSessionsBefore(req: AuthRequest, userId: string, at: Date): Promise<void> {
  await req.config.adapter!.setSessionsValidAfter!(userId, at);
}
