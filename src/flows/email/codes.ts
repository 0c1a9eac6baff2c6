// One-time codes of the e-mail flow: a code mailed beside (or instead of) the link, typed back in the browser that
// asked for it. The code shares the link's verification token: the flow store keeps, under that token's hash, an
// HMAC of the code, and beside it a counter of tries; the browser's sealed flow cookie holds the token's hash, so
// only that browser can name the entries. Whichever of code and link is used first consumes the one token: both are spent.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { emailCodeOptions, type ResolvedEmailCode } from '../../core/email-code.js';
import { FLOW_STORE_LIMITS } from '../../core/flow-store/scoped.js';
import type { FlowDeps } from '../runtime/contract.js';
import { adapterOf, defersSpend, emailProviderOf, tokenSecrets } from './deps.js';

/** What the flow store keeps per sent code: never the code itself. */
interface StoredCode {
  /** HMAC of the code, keyed with the token secret and bound to the token's hash. */
  hash: string;
  /** When the token (and so the code) expires (ms). */
  expires: number;
}

/** One try at a code: it matched (the entry is gone), it did not (tries left), or the code is spent, dead or expired. */
export type CodeCheck = { result: 'passed' } | { result: 'wrong'; left: number } | { result: 'dead'; reason: 'tries' | 'gone' };

/** Longest code a form may carry into the check; anything longer is simply wrong. */
export const MAX_TYPED_CODE = 32;

/** The provider's code options; the flow only reaches code states when they are on. */
export function codeOptions(deps: FlowDeps): ResolvedEmailCode | undefined {
  return emailCodeOptions(emailProviderOf(deps));
}

function required(deps: FlowDeps): ResolvedEmailCode {
  const options = codeOptions(deps);
  if (!options) throw new TypeError('This e-mail provider sends no codes.');
  return options;
}

/** The flow store key of a token's code: the token's hash names it, so only its holder can find it. */
export function codeKey(tokenHash: string): string {
  return `code:${tokenHash}`;
}

/** The flow store key of the count of tries at a token's code (an atomic counter beside the code). */
export function triesKey(tokenHash: string): string {
  return `${codeKey(tokenHash)}:tries`;
}

/**
 * The stored form of a code: HMAC-SHA-256 with a token secret, over the token's hash and the code, so one code
 * value means nothing for any other token and the stored form cannot be brute-forced without the secret.
 */
export function hashCode(secret: string, tokenHash: string, code: string): string {
  return createHmac('sha256', secret).update(`authchart-email-code:${tokenHash}:${code}`).digest('hex');
}

/** What a person types, as compared: digits only (spaces and dashes a mail client or a person adds are dropped). */
export function typedCode(value: string): string {
  return value.slice(0, MAX_TYPED_CODE).replace(/[\s-]/g, '');
}

function secondsUntil(expires: number): number {
  return Math.max(1, Math.min(FLOW_STORE_LIMITS.maxTtlSeconds, Math.ceil((expires - Date.now()) / 1000)));
}

/**
 * Starts the resend cooldown of an address: 'cooling' when a code went to it less than `resendCooldown` seconds
 * ago, else 'claimed'. The same for every address, known or not: the answer says nothing about an account.
 */
export async function claimCooldown(deps: FlowDeps, email: string): Promise<'claimed' | 'cooling'> {
  const { resendCooldown } = required(deps);
  if (resendCooldown === 0) return 'claimed';
  // The address is keyed as an HMAC: the store never holds who asked for mail.
  const key = `cooldown:${createHmac('sha256', tokenSecrets(deps)[0]).update(`authchart-email-cooldown:${email}`).digest('hex')}`;
  // One atomic step (never a read then a write): of concurrent requests for one address, one claims, and one code goes.
  return (await deps.store.add(key, 1, resendCooldown)) ? 'claimed' : 'cooling';
}

/** Makes the code for a stored token and keeps its hash under the token's hash until the token expires. */
export async function storeCode(deps: FlowDeps, input: { tokenHash: string; expires: number }): Promise<string> {
  const { length } = required(deps);
  const code = randomInt(0, 10 ** length).toString().padStart(length, '0');
  const entry: StoredCode = { hash: hashCode(tokenSecrets(deps)[0], input.tokenHash, code), expires: input.expires };
  await deps.store.set(codeKey(input.tokenHash), entry, secondsUntil(input.expires));
  return code;
}

function matches(deps: FlowDeps, tokenHash: string, code: string, stored: string): boolean {
  const want = Buffer.from(stored, 'hex');
  return tokenSecrets(deps).some((secret) => {
    const got = Buffer.from(hashCode(secret, tokenHash, code), 'hex');
    return got.length === want.length && timingSafeEqual(got, want);
  });
}

/**
 * One try at the code. Each try is counted first, in one atomic step, and compared only while the count is within
 * `maxAttempts`: of any number of concurrent tries, no more than `maxAttempts` are ever compared, and a right code
 * sent twice at once passes both times (the token behind it is then consumed once). A match takes the code with it
 * (the caller consumes the token at once), or leaves it while the token is spent with the session. The last allowed
 * miss revokes the token, link included.
 */
export async function checkCode(deps: FlowDeps, input: { email: string; tokenHash: string; code: string }): Promise<CodeCheck> {
  const { maxAttempts } = required(deps);
  const key = codeKey(input.tokenHash);
  const entry = await deps.store.get<StoredCode>(key);
  if (!entry || typeof entry.hash !== 'string' || !(entry.expires > Date.now())) return { result: 'dead', reason: 'gone' };
  const tries = await deps.store.increment(triesKey(input.tokenHash), secondsUntil(entry.expires));
  if (tries > maxAttempts) return { result: 'dead', reason: 'tries' };
  if (matches(deps, input.tokenHash, typedCode(input.code), entry.hash)) {
    // The token behind the code is spent only with the session (defersSpend): until that commits, the code must
    // still work. Once the token is spent, a code that passes finds no token to use.
    if (!defersSpend(deps)) await deps.store.take(key);
    return { result: 'passed' };
  }
  if (tries >= maxAttempts) {
    await adapterOf(deps).useVerificationToken({ identifier: input.email, token: input.tokenHash });
    await deps.store.take(key);
    return { result: 'dead', reason: 'tries' };
  }
  return { result: 'wrong', left: maxAttempts - tries };
}

/** Ends the code of a token that the link used up: the code cannot outlive it. Best effort; the token is gone anyway. */
export async function dropCode(deps: FlowDeps, tokenHash: string): Promise<void> {
  if (!codeOptions(deps)) return;
  await deps.store.take(codeKey(tokenHash)).catch(() => undefined);
}
