// OAuth 2 and OpenID Connect provider options as a user writes them, the generic `OAuth`/`OIDC`
// factories, and `definePreset`, which turns a catalogue entry into a `GitHub({ ...overrides })` factory.
import type { Awaitable, Profile, TokenSet, User } from '../core/types.js';

/** Checks performed at the callback. `none` disables them all (not recommended). */
export type OAuthCheck = 'none' | 'state' | 'pkce' | 'nonce';

/** Checks an OAuth 2 provider may use; `nonce` needs an ID token, so only OIDC has it. */
export type OAuth2Check = Exclude<OAuthCheck, 'nonce'>;

/**
 * How the client authenticates at the token endpoint (RFC 6749 §2.3, OIDC Core §9). `client_secret_jwt` signs an
 * assertion with the client secret (HS256); `private_key_jwt` signs one with `token.clientPrivateKey`.
 */
export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'client_secret_jwt' | 'private_key_jwt' | 'none';

/**
 * The private key a `private_key_jwt` client signs its assertions with: a private JWK (its `kid` and `alg`, if
 * any, are used), a PKCS#8 PEM string, a Web Crypto private `CryptoKey`, or `{ key: CryptoKey, kid }`.
 * RSA keys sign with RS256 unless the JWK names another `alg`; EC keys with ES256/384/512 by curve; Ed25519 with EdDSA.
 */
export type ClientPrivateKey = string | JsonWebKey | CryptoKey | { key: CryptoKey; kid?: string };

/** Colours (and optionally a logo URL) of the provider's button on the built-in sign-in page. */
export type OAuthProviderButtonStyles = {
  brandColor?: string;
  logo?: string;
  /** @deprecated use `brandColor` */
  bg?: string;
  /** @deprecated */
  text?: string;
};

/** Overrides passed to the OAuth client (oauth4webapi's `Client`). */
export type OAuthClientOptions = {
  /** Default `client_secret_basic`. */
  token_endpoint_auth_method?: TokenEndpointAuthMethod;
  /** Default `RS256`. */
  id_token_signed_response_alg?: string;
  [key: string]: unknown;
};

/** The authorization endpoint: a URL, or a URL with extra query parameters (`scope`, `prompt`, ...). */
export type AuthorizationEndpointConfig = {
  url?: string;
  params?: Record<string, string>;
  /**
   * Rewrites the finished authorization URL, for providers that bend RFC 6749 there: another name for the client
   * id (TikTok's `client_key`), a fixed parameter order or a fragment (WeChat). Runs after every check's value is set.
   */
  conform?: (url: URL) => URL;
};

/**
 * What a custom token request receives.
 * `params` are the authorization response's parameters (`code`, `state`, and any the provider adds);
 * `checks` are the values the flow kept for this sign-in.
 */
export type TokenRequestContext = {
  params: Record<string, string>;
  checks: { code_verifier?: string; state?: string; nonce?: string };
  provider: InternalOAuthProvider;
};

/** The token endpoint: a URL, or a URL with extra body parameters and optional hooks. */
export type TokenEndpointConfig = {
  url?: string;
  params?: Record<string, string>;
  /**
   * Replaces the standard code exchange entirely (for providers that do not follow RFC 6749). When the provider
   * signs users in by their ID token (`idToken`, the OIDC default), the returned `id_token` still gets every check
   * (issuer, audience, expiry, nonce) and its signature is verified against the provider's `jwks_uri`.
   */
  request?: (context: TokenRequestContext) => Awaitable<{ tokens: TokenSet }>;
  /** Rewrites the token endpoint's raw response before it is validated (e.g. a non-string `scope`). */
  conform?: (response: Response) => Awaitable<Response>;
  /**
   * The key of `client: { token_endpoint_auth_method: 'private_key_jwt' }` (as in Auth.js). Register its public
   * half with the provider (in its `jwks` or `jwks_uri`).
   *
   * @example
   * token: { clientPrivateKey: JSON.parse(process.env.AUTH_ACME_PRIVATE_JWK!) }
   */
  clientPrivateKey?: ClientPrivateKey;
};

/** What a custom user-info request receives. */
export type UserinfoRequestContext = { tokens: TokenSet; provider: InternalOAuthProvider };

/** The user-info endpoint: a URL, or a URL with query parameters and an optional custom request. */
export type UserinfoEndpointConfig = {
  url?: string;
  params?: Record<string, string>;
  /** Fetches the provider's profile yourself (extra calls, unusual auth headers, POST, ...). */
  request?: (context: UserinfoRequestContext) => Awaitable<Record<string, any>>;
};

type CommonOAuthOptions<P extends object> = {
  /** Unique among `providers`; part of the URL (`/signin/:id`, `/callback/:id`). */
  id: string;
  /**
   * RP-initiated logout (opt-in): signing out also ends the user's session at the provider, through discovery's
   * `end_session_endpoint` with `id_token_hint`, `post_logout_redirect_uri` (`{basePath}/signout-callback/:id`,
   * register it at the provider) and a `state` checked on return. Needs the ID token stored (an adapter).
   */
  rpInitiatedLogout?: boolean;
  /** Label on the built-in sign-in page. */
  name: string;
  /** Falls back to `AUTH_{ID}_ID`. */
  clientId?: string;
  /** Falls back to `AUTH_{ID}_SECRET`. */
  clientSecret?: string;
  authorization?: string | AuthorizationEndpointConfig;
  token?: string | TokenEndpointConfig;
  userinfo?: string | UserinfoEndpointConfig;
  /** Discovery document URL; replaces the three endpoint options in most cases. */
  wellKnown?: string;
  /**
   * Issuer identifier, compared with the ID token's `iss`; falls back to `AUTH_{ID}_ISSUER`, then `defaultIssuer`.
   * For a provider run per instance or region (Mastodon, Nextcloud, Zoho), it is also the base URL of any endpoint
   * given as a path: `authorization: '/oauth/authorize'` with issuer `https://mastodon.social` is
   * `https://mastodon.social/oauth/authorize` (the issuer's own path, if any, is kept in front).
   */
  issuer?: string;
  /** The issuer when neither `issuer` nor `AUTH_{ID}_ISSUER` names one (a multi-tenant or regional default). */
  defaultIssuer?: string;
  jwks_endpoint?: string;
  client?: OAuthClientOptions;
  /** Maps the provider's profile to the user authchart stores. Default: `{ id: sub ?? id, name, email, image: picture }`. */
  profile?: (profile: P, tokens: TokenSet) => Awaitable<User>;
  /** Picks the token fields stored on the account. Returning nothing stores none of them. */
  account?: (tokens: TokenSet) => TokenSet | undefined | void;
  /** Links a sign-in to an existing user with the same e-mail. Unsafe unless the provider verifies e-mail. */
  allowDangerousEmailAccountLinking?: boolean;
  /** Per-provider override of the global `redirectProxyUrl`. */
  redirectProxyUrl?: string;
  style?: OAuthProviderButtonStyles;
  /** The overrides a user passed to a catalogue factory, kept as given. */
  options?: Record<string, unknown>;
};

// Declared as type aliases (not interfaces) so that they stay assignable to `Record<string, unknown>`,
// which is how the configuration layer holds providers of every kind.

/** An OAuth 2 provider (`type: 'oauth'`). `P` is the shape of the provider's profile. */
export type OAuthConfig<P extends object = Profile> = CommonOAuthOptions<P> & {
  type: 'oauth';
  /** Default `['pkce']`; `state` is added when a redirect proxy is used. */
  checks?: OAuth2Check[];
};

/** An OpenID Connect provider (`type: 'oidc'`): like OAuth 2, plus `nonce` and ID tokens. */
export type OIDCConfig<P extends object = Profile> = CommonOAuthOptions<P> & {
  type: 'oidc';
  /** Default `['pkce']`; may include `nonce`. */
  checks?: OAuthCheck[];
  /** Default true: the profile is the ID token's claims. False fetches the user-info endpoint. */
  idToken?: boolean;
  /**
   * For a multi-tenant issuer (Microsoft Entra ID's `common` or `organizations`), whose discovery document names
   * `{tenantid}` in its issuer: each ID token is checked against that issuer with its own `tid` claim put in.
   * Which tenants may sign in is the `signIn` callback's to decide (`profile.tid`).
   */
  issuerPerTenant?: boolean;
};

/** Either kind of OAuth provider. */
export type OAuthProviderConfig<P extends object = Profile> = OAuthConfig<P> | OIDCConfig<P>;

/** The overrides a user passes to an OAuth 2 catalogue factory. */
export type OAuthUserConfig<P extends object = Profile> = Partial<Omit<OAuthConfig<P>, 'type' | 'options'>>;

/** The overrides a user passes to an OIDC catalogue factory. */
export type OIDCUserConfig<P extends object = Profile> = Partial<Omit<OIDCConfig<P>, 'type' | 'options'>>;

/** An endpoint after normalisation: its query is folded into `params`, so `url` has none. */
export type InternalEndpoint = { url?: URL; params: Record<string, string> };

/**
 * An OAuth/OIDC provider as the OAuth machine uses it (the output of `normalizeOAuthProvider`).
 * Every default is resolved; endpoints absent here are to be discovered from `wellKnown`/`issuer`.
 */
export type InternalOAuthProvider = {
  id: string;
  name: string;
  type: 'oauth' | 'oidc';
  clientId?: string;
  clientSecret?: string;
  /** Exactly as configured: it is compared with the ID token's `iss` as a string. */
  issuer?: string;
  wellKnown?: URL;
  jwks_endpoint?: URL;
  /** `params` go on the authorization URL (`scope` is always present for OIDC). */
  authorization: InternalEndpoint & Pick<AuthorizationEndpointConfig, 'conform'>;
  /** `params` are extra body parameters of the code exchange. */
  token: InternalEndpoint & Pick<TokenEndpointConfig, 'request' | 'conform' | 'clientPrivateKey'>;
  /** `params` are query parameters of the user-info GET (see `endpointUrl`). */
  userinfo: InternalEndpoint & Pick<UserinfoEndpointConfig, 'request'>;
  /** Never contains `none`; empty means no checks. */
  checks: Exclude<OAuthCheck, 'none'>[];
  /** True for OIDC unless `idToken: false`; always false for OAuth 2. */
  idToken: boolean;
  /** See {@link OIDCConfig.issuerPerTenant}. */
  issuerPerTenant: boolean;
  client: OAuthClientOptions & { token_endpoint_auth_method: TokenEndpointAuthMethod };
  profile: (profile: Profile, tokens: TokenSet) => Awaitable<User>;
  account: (tokens: TokenSet) => TokenSet | undefined | void;
  allowDangerousEmailAccountLinking: boolean;
  /** The redirect proxy base in effect (provider's, else global), if any. */
  redirectProxyUrl?: string;
  /** `redirect_uri` of the authorization and token requests. */
  redirectUri: string;
  /** `{origin}{basePath}/callback/{id}` on this deployment. */
  callbackUrl: string;
  /** True when an endpoint the flow needs is missing and must come from discovery. */
  needsDiscovery: boolean;
  style?: OAuthProviderButtonStyles;
};

/**
 * A custom OAuth 2 provider.
 *
 * @example
 * OAuth({ id: 'acme', name: 'Acme', authorization: 'https://acme.test/authorize?scope=read',
 *   token: 'https://acme.test/token', userinfo: 'https://acme.test/me' })
 */
export function OAuth<P extends object = Profile>(config: Omit<OAuthConfig<P>, 'type'> & { type?: 'oauth' }): OAuthConfig<P> {
  return { ...config, type: 'oauth' };
}

/**
 * A custom OpenID Connect provider, usually just an issuer to discover.
 *
 * @example
 * OIDC({ id: 'corp', name: 'Corp SSO', issuer: 'https://sso.corp.test', checks: ['pkce', 'nonce'] })
 */
export function OIDC<P extends object = Profile>(config: Omit<OIDCConfig<P>, 'type'> & { type?: 'oidc' }): OIDCConfig<P> {
  return { ...config, type: 'oidc' };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Recursively merges plain objects; anything else in `override` (arrays, functions, URLs) replaces. */
function deepMerge(base: unknown, override: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(override)) return override;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined) continue; // `{ clientId: undefined }` must not erase a default
    out[key] = deepMerge(base[key], value);
  }
  return out;
}

// A string endpoint is shorthand for `{ url }`, so that `GitHub({ userinfo: 'https://ghe.test/api/v3/user' })`
// keeps the preset's `request` and `params` while moving the URL.
const ENDPOINT_KEYS = ['authorization', 'token', 'userinfo'] as const;

function asEndpointObject(value: unknown): unknown {
  return typeof value === 'string' ? { url: value } : value;
}

/**
 * Merges a user's overrides over a preset: endpoint objects, `style` and `client` deeply, the rest replaced.
 *
 * @example
 * mergeProviderOptions(GitHub(), { authorization: { params: { scope: 'read:user' } } }).authorization // { url: '...', params: { scope: 'read:user' } }
 */
export function mergeProviderOptions<C extends OAuthProviderConfig<any>>(defaults: C, overrides?: Record<string, unknown>): C {
  if (!overrides) return { ...defaults };
  const merged: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined || key === 'type' || key === 'options') continue;
    if ((ENDPOINT_KEYS as readonly string[]).includes(key)) {
      merged[key] = deepMerge(asEndpointObject(merged[key]), asEndpointObject(value));
    } else if (key === 'style' || key === 'client') {
      merged[key] = deepMerge(merged[key], value);
    } else {
      merged[key] = value;
    }
  }
  merged.options = overrides;
  return merged as C;
}

/**
 * Turns a catalogue entry into a factory that merges a user's overrides over it.
 *
 * @example
 * const preset = definePreset<AcmeProfile>({ id: 'acme', name: 'Acme', type: 'oauth', authorization: '...' })
 * export default function Acme(options?: OAuthUserConfig<AcmeProfile>) { return preset(options) }
 */
export function definePreset<P extends object>(defaults: OAuthConfig<P>): (options?: OAuthUserConfig<P>) => OAuthConfig<P>;
export function definePreset<P extends object>(defaults: OIDCConfig<P>): (options?: OIDCUserConfig<P>) => OIDCConfig<P>;
export function definePreset(defaults: OAuthProviderConfig<any>): (options?: Record<string, unknown>) => OAuthProviderConfig<any> {
  return (options) => mergeProviderOptions(defaults, options);
}
