// When and how a session was last verified (`auth_time` and `amr`, after OIDC and RFC 8176): set at sign-in, moved
// by a factor check (step-up), read by requireRecentSignIn. Shared by both session strategies.
import type { Account, AuthMethod, JWT, SessionVerification } from '../core/types.js';

const METHODS: ReadonlySet<string> = new Set<AuthMethod>(['pwd', 'otp', 'hwk', 'email', 'oauth']);

/** Only the known method names, once each, in order. */
export function knownMethods(list: unknown): AuthMethod[] {
  if (!Array.isArray(list)) return [];
  return [...new Set(list.filter((m): m is AuthMethod => typeof m === 'string' && METHODS.has(m)))];
}

/** The methods after a factor check passed with `method`: the earlier ones kept, `method` added once. */
export function withMethod(before: readonly AuthMethod[] | null | undefined, method: AuthMethod): AuthMethod[] {
  return knownMethods([...(before ?? []), method]);
}

/** A JWT's verification claims, or null when it has none (a token issued before they existed). */
export function tokenVerification(token: JWT): SessionVerification | null {
  if (typeof token.auth_time !== 'number' || !Number.isFinite(token.auth_time)) return null;
  return { authTime: new Date(token.auth_time * 1000), amr: knownMethods(token.amr) };
}

/** The claims a JWT carries for a verification. */
export function verificationClaims(v: SessionVerification): { auth_time: number; amr: AuthMethod[] } {
  return { auth_time: Math.floor(v.authTime.getTime() / 1000), amr: [...v.amr] };
}

/** The `amr` method of a first factor, by the kind of account that proved it (a custom flow's kind counts as `oauth`). */
function firstFactorMethod(type: Account['type'] | undefined): AuthMethod {
  if (type === 'credentials') return 'pwd';
  if (type === 'email') return 'email';
  if (type === 'webauthn') return 'hwk';
  return 'oauth';
}

/**
 * The `amr` of a sign-in: its first factor (what a custom flow claimed in its output, else by the kind of account),
 * and the second factor that passed (a code or a backup code: `otp`; a passkey: `hwk`).
 */
export function signInMethods(accountType: Account['type'] | undefined, secondFactor?: string, firstFactor?: readonly AuthMethod[]): AuthMethod[] {
  const claimed = knownMethods(firstFactor);
  const amr: AuthMethod[] = claimed.length > 0 ? claimed : [firstFactorMethod(accountType)];
  if (secondFactor) amr.push(secondFactor === 'passkey' ? 'hwk' : 'otp');
  return knownMethods(amr);
}

/** The `amr` method of a factor check that passed (step-up). */
export function factorMethod(method: string): AuthMethod {
  return method === 'passkey' ? 'hwk' : 'otp';
}
