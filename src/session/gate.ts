// The session gate: the one read of "who is signed in" for everything that acts for a signed-in user (the session
// routes, factors, step-up, session control, linking, the helpers apps call). It applies expiry and revocation
// (database rows, "sessions valid after"; the strategies' `open`) and the assurance level a request asks for. No
// route reads a cookie and decides on its own.
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import type { AuthMethod, SessionVerification } from '../core/types.js';
import { strategyFor } from './strategy.js';
import type { VerifiedSession } from './types.js';

/** The assurance a request asks for: a verification within `maxAge` seconds, and/or a second factor in the session. */
export interface SessionLevel {
  /** Seconds since the session was last verified (signed in, or a factor check passed) that still count. */
  maxAge?: number;
  /** `2`: the session must have passed a second factor (an `otp` or a passkey beside the first factor). */
  factors?: 1 | 2;
}

/** A live signed-in user, as the gate found them (with JWT sessions, the token it opened). */
export type GatedSession = VerifiedSession;

/** What the gate says: the live session at the level asked for, or why not. */
export type GateResult =
  | ({ ok: true } & GatedSession)
  /** `signedOut`: no live session (none, expired, ended elsewhere); `stale`: signed in, below the level asked for. */
  | { ok: false; reason: 'signedOut' }
  | ({ ok: false; reason: 'stale' } & GatedSession);

/** Whether a verification meets the need, now. */
export function meets(verification: SessionVerification | null, need: SessionLevel): boolean {
  if (need.maxAge === undefined && need.factors === undefined) return true;
  if (!verification) return false;
  if (need.maxAge !== undefined && Date.now() - verification.authTime.getTime() > need.maxAge * 1000) return false;
  if (need.factors === 2 && !twoFactors(verification.amr)) return false;
  return true;
}

/** Two factors: a one-time code or a passkey, beside a first factor of another kind. */
function twoFactors(amr: readonly AuthMethod[]): boolean {
  const second = amr.filter((m) => m === 'otp' || m === 'hwk');
  return second.length > 0 && amr.length >= 2;
}

/**
 * The request's signed-in user, through the gate: live (not expired, not ended) and at the level `need` asks for.
 * Throws when the session store cannot say (a session that may have ended is never taken as live).
 *
 * @example
 * const gate = await sessionGate(req, { maxAge: 300 })
 * if (!gate.ok) return gate.reason === 'signedOut' ? signIn() : stepUp()
 */
export async function sessionGate(req: AuthRequest, need: SessionLevel = {}): Promise<GateResult> {
  const open = await strategyFor(req).open(req);
  if (!open) return { ok: false, reason: 'signedOut' };
  return meets(open.verification, need) ? { ok: true, ...open } : { ok: false, reason: 'stale', ...open };
}

/** The id of the request's live signed-in user, or undefined (a store that cannot say counts as nobody). */
export async function signedInUserId(req: AuthRequest): Promise<string | undefined> {
  try {
    const gate = await sessionGate(req);
    return gate.ok ? gate.userId : undefined;
  } catch {
    return undefined;
  }
}
