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

/** The cookies authchart writes, by role. A flow cookie's name is suffixed with `.<provider id>`. */
export interface CookiesOptions {
  sessionToken: CookieOption;
  callbackUrl: CookieOption;
  csrfToken: CookieOption;
  /** Carries a paused flow machine between requests (sealed, 15 minutes): e-mail, custom flows, second factors. */
  flow: CookieOption;
  /** The flow cookie of OAuth/OIDC providers: PKCE verifier, state and nonce sealed together. */
  oauthFlow: CookieOption;
  /** The flow cookie of WebAuthn providers: the ceremony's challenge. */
  webauthnFlow: CookieOption;
}

/**
 * What the `cookies` option accepts: authchart's roles, and Auth.js's names for what a flow cookie holds. authchart
 * seals an OAuth flow's PKCE verifier, state and nonce into one cookie per provider, so `pkceCodeVerifier`, `state`
 * and `nonce` all configure that cookie (the first of them that gives a name names it; attributes merge with
 * `pkceCodeVerifier` winning, then `state`, then `nonce`); `webauthnChallenge` configures WebAuthn's. Each falls back
 * to `flow`, which also configures e-mail and custom flows.
 */
export type CookiesConfig = Partial<Record<'sessionToken' | 'callbackUrl' | 'csrfToken' | 'flow' | AuthjsFlowCookie, Partial<CookieOption>>>;
/** Auth.js's names for the values authchart's flow cookies hold. */
export type AuthjsFlowCookie = 'pkceCodeVerifier' | 'state' | 'nonce' | 'webauthnChallenge';

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
    oauthFlow: { name: `${prefix}${COOKIE_PREFIX}flow`, options: { ...base, maxAge: 15 * 60 } },
    webauthnFlow: { name: `${prefix}${COOKIE_PREFIX}flow`, options: { ...base, maxAge: 15 * 60 } },
  };
}

function merged(base: CookieOption, ...overrides: (Partial<CookieOption> | undefined)[]): CookieOption {
  const given = overrides.filter((o): o is Partial<CookieOption> => o !== undefined);
  // The first override that names the cookie wins the name; later ones win the attributes.
  const name = given.find((o) => o.name)?.name ?? base.name;
  return { name, options: Object.assign({ ...base.options }, ...given.map((o) => o.options).reverse()) };
}

/** Deep-merges user overrides (`config.cookies`) over the defaults; Auth.js's flow keys map as {@link CookiesConfig} says. */
export function mergeCookies(defaults: CookiesOptions, overrides: CookiesConfig | undefined): CookiesOptions {
  if (!overrides) return defaults;
  const flow = merged(defaults.flow, overrides.flow);
  return {
    sessionToken: merged(defaults.sessionToken, overrides.sessionToken),
    callbackUrl: merged(defaults.callbackUrl, overrides.callbackUrl),
    csrfToken: merged(defaults.csrfToken, overrides.csrfToken),
    flow,
    oauthFlow: merged(flow, overrides.pkceCodeVerifier, overrides.state, overrides.nonce),
    webauthnFlow: merged(flow, overrides.webauthnChallenge),
  };
}
