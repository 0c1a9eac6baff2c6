// Spent WebAuthn challenges. The flow cookie is deleted once used, but a captured cookie plus response could be
// sent again, and synced passkeys never count, so their signature counter cannot tell. A challenge is remembered
// in this process until it would be refused as expired anyway (cheap, checked first) and, once a response to it
// has verified, in the adapter's verification-token table, so another instance refuses the replay too.
import { createHash } from 'node:crypto';
import type { WrappedAdapter } from '../../core/adapter-wrap.js';

/** More entries than this and the oldest are forgotten first (each is ~100 bytes; this is ~10 MB). */
const MAX_ENTRIES = 100_000;

/** challenge -> the time after which the flow refuses it anyway (ms), in insertion order (roughly expiry order). */
const spent = new Map<string, number>();

function sweep(now: number): void {
  for (const [challenge, expiresAt] of spent) {
    if (expiresAt >= now && spent.size <= MAX_ENTRIES) break;
    spent.delete(challenge);
  }
}

/**
 * Marks a challenge as used. Returns false when it was used before (a replay).
 *
 * @example if (!spendChallenge(context.challenge, context.expiresAt)) throw new InvalidCheck('replayed')
 */
export function spendChallenge(challenge: string, expiresAt: number, now = Date.now()): boolean {
  sweep(now);
  const until = spent.get(challenge);
  // An entry past its expiry is one the sweep has not reached yet (timeouts differ between providers).
  if (until !== undefined && until >= now) return false;
  spent.delete(challenge);
  spent.set(challenge, expiresAt);
  return true;
}

/**
 * Forgets every challenge this process spent, as another instance of the app would have.
 * @internal
 */
export function forgetSpentChallenges(): void {
  spent.clear();
}

/** The verification-token identifier of spent challenges (no e-mail address can look like it). */
export const SPENT_CHALLENGE_IDENTIFIER = 'authchart:webauthn-challenge';

/**
 * Records a verified challenge in the adapter's verification-token table. Returns false when it was recorded
 * before (a replay sent to any instance). Two instances racing on one challenge both find it unrecorded; the
 * table's key on (identifier, token) then fails the second write, which fails that sign-in. An adapter without
 * verification tokens leaves only the per-process check.
 *
 * @example if (!(await spendChallengeInStore(adapter, challenge, expiresAt))) throw new InvalidCheck('replayed')
 */
export async function spendChallengeInStore(adapter: WrappedAdapter, challenge: string, expiresAt: number): Promise<boolean> {
  if (!adapter.createVerificationToken || !adapter.useVerificationToken) return true;
  const identifier = SPENT_CHALLENGE_IDENTIFIER;
  const token = createHash('sha256').update(challenge).digest('base64url');
  const recorded = await adapter.useVerificationToken({ identifier, token });
  // Using the record deleted it: put it back, so a third attempt is refused as well.
  await adapter.createVerificationToken({ identifier, token, expires: recorded?.expires ?? new Date(expiresAt) });
  return recorded === null || recorded === undefined;
}
