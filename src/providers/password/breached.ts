// Whether a new password is known from breaches: the app's own lookup, or a k-anonymity range service (the Pwned
// Passwords API shape): only the first 5 hex digits of the password's SHA-1 leave the server, with padding asked
// for, so neither the password nor (from the answer's size) its prefix's bucket is told to anyone listening.
import { createHash } from 'node:crypto';
import { readTextUpTo } from '../../core/read-limited.js';
import type { Awaitable } from '../../core/types.js';

/** Whether a password appears in a list of breached passwords. */
export type BreachedLookup = (password: string) => Awaitable<boolean>;

/** Options of {@link breachedRange}. */
export interface BreachedRangeOptions {
  /** The range endpoint, the prefix appended (default `https://api.pwnedpasswords.com/range/`). */
  url?: string;
  /** How long one lookup may take, in ms (default 5000). */
  timeout?: number;
  /** The fetch to use (default the global one). */
  fetch?: (url: string, init?: RequestInit) => Promise<Response>;
}

const DEFAULT_RANGE_URL = 'https://api.pwnedpasswords.com/range/';
// A padded answer holds 800 to 1000 lines of 35 hex digits and a count: about 40 kB. Far more is no such answer.
const MAX_ANSWER_BYTES = 512 * 1024;
const LINE = /^([0-9A-F]{35}):(\d+)$/;

/**
 * A {@link BreachedLookup} over a k-anonymity range API: it sends the first 5 hex digits of the SHA-1 of the password
 * with `Add-Padding: true`, and finds the other 35 among the answer's lines (`SUFFIX:COUNT`; padding lines count 0).
 * Rejects when the service does not answer 200 in time or answers something else: the caller decides whether a
 * password may be set without the check.
 *
 * @example
 * const isBreached = breachedRange()
 * if (await isBreached('P@ssw0rd')) throw new Error('choose another')
 */
export function breachedRange(options: BreachedRangeOptions = {}): BreachedLookup {
  const base = options.url ?? DEFAULT_RANGE_URL;
  const timeout = options.timeout ?? 5000;
  return async (password) => {
    const digest = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
    const prefix = digest.slice(0, 5);
    const suffix = digest.slice(5);
    const doFetch = options.fetch ?? globalThis.fetch;
    const res = await doFetch(`${base}${prefix}`, { headers: { 'add-padding': 'true', accept: 'text/plain' }, redirect: 'error', signal: AbortSignal.timeout(timeout) });
    if (res.status !== 200 || !res.body) {
      await res.body?.cancel().catch(() => {});
      throw new Error(`The breached-password range service answered ${res.status}.`);
    }
    const text = await readTextUpTo(res.body, MAX_ANSWER_BYTES, () => new RangeError('The breached-password range answer is too large.'));
    for (const line of text.split(/\r?\n/)) {
      const m = LINE.exec(line.trim());
      if (m && m[1] === suffix) return Number(m[2]) > 0;
    }
    return false;
  };
}
