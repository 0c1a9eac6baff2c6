// Spent WebAuthn challenges, remembered until they would be refused as expired anyway. The flow cookie is
// deleted once used, but a captured cookie plus response could be sent again; this makes a challenge single-use
// within the process. Across processes, the signature counter still refuses a replay from a counting authenticator.

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
