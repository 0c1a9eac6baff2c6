// Cookie names and attributes: one policy for every cookie authchart writes.
// Over HTTPS names get `__Secure-` (the CSRF cookie `__Host-`), and `Secure` is set.

export interface CookieOptions {
  httpOnly?: boolean;
  sameSite?: 'lax' | 'strict' | 'none';
  path?: string;
  secure?: boolean;
  domain?: string;
  maxAge?: number;
  expires?: Date;
}

export interface CookieOption {
  name: string;
  options: CookieOptions;
}

/** The cookies authchart writes, by role. */
export interface CookiesOptions {
  sessionToken: CookieOption;
  callbackUrl: CookieOption;
  csrfToken: CookieOption;
  /** Carries a paused flow machine between requests (sealed, 15 minutes). */
  flow: CookieOption;
}

/** A cookie to write (or, with `maxAge: 0`, to clear) on the response. */
export interface CookieToSet {
  name: string;
  value: string;
  options: CookieOptions;
}

export const COOKIE_PREFIX = 'authchart.';

/** Default names and attributes; `useSecureCookies` follows the request's protocol unless configured. */
export function defaultCookies(useSecureCookies: boolean): CookiesOptions {
  const prefix = useSecureCookies ? '__Secure-' : '';
  const base: CookieOptions = { httpOnly: true, sameSite: 'lax', path: '/', secure: useSecureCookies };
  return {
    sessionToken: { name: `${prefix}${COOKIE_PREFIX}session-token`, options: { ...base } },
    callbackUrl: { name: `${prefix}${COOKIE_PREFIX}callback-url`, options: { ...base } },
    csrfToken: { name: `${useSecureCookies ? '__Host-' : ''}${COOKIE_PREFIX}csrf-token`, options: { ...base } },
    flow: { name: `${prefix}${COOKIE_PREFIX}flow`, options: { ...base, maxAge: 15 * 60 } },
  };
}

/** Deep-merges user overrides (`config.cookies`) over the defaults. */
export function mergeCookies(defaults: CookiesOptions, overrides: Partial<Record<keyof CookiesOptions, Partial<CookieOption>>> | undefined): CookiesOptions {
  if (!overrides) return defaults;
  const out = { ...defaults };
  for (const key of Object.keys(defaults) as (keyof CookiesOptions)[]) {
    const o = overrides[key];
    if (!o) continue;
    out[key] = { name: o.name ?? defaults[key].name, options: { ...defaults[key].options, ...o.options } };
  }
  return out;
}
