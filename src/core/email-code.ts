// The e-mail provider's one-time code option (`Email({ code })`), resolved and bounds-checked once: read by the
// provider's mail, the e-mail flow, and the start-up check of the configuration.

/** The `code` option of the e-mail provider. */
export interface EmailCodeOptions {
  /** Whether the default mail carries the link too (default `true`). */
  link?: boolean;
  /** Digits of a code, 6 to 10 (default 6). */
  length?: number;
  /** Wrong codes before the code (and the link with it) is dead, 1 to 10 (default 5). */
  maxAttempts?: number;
  /** Seconds before another code can be sent to the same address (default 60). */
  resendCooldown?: number;
}

/** The `code` option with its defaults, or undefined when codes are off. */
export type ResolvedEmailCode = Required<EmailCodeOptions>;

/**
 * The provider's `code` option with defaults filled in and bounds checked; undefined when codes are off.
 *
 * @throws TypeError for a length, attempt count or cooldown out of bounds.
 * @example emailCodeOptions(Email({ code: true })) // { link: true, length: 6, maxAttempts: 5, resendCooldown: 60 }
 */
export function emailCodeOptions(provider: { code?: boolean | EmailCodeOptions }): ResolvedEmailCode | undefined {
  const code = provider.code;
  if (!code) return undefined;
  const o = code === true ? {} : code;
  const resolved = { link: o.link ?? true, length: o.length ?? 6, maxAttempts: o.maxAttempts ?? 5, resendCooldown: o.resendCooldown ?? 60 };
  const within = (v: number, lo: number, hi: number) => Number.isInteger(v) && v >= lo && v <= hi;
  if (!within(resolved.length, 6, 10)) throw new TypeError('The e-mail code `length` is a whole number from 6 to 10.');
  if (!within(resolved.maxAttempts, 1, 10)) throw new TypeError('The e-mail code `maxAttempts` is a whole number from 1 to 10.');
  if (!within(resolved.resendCooldown, 0, 3600)) throw new TypeError('The e-mail code `resendCooldown` is a whole number of seconds from 0 to 3600.');
  return resolved;
}

