// The configuration object a user passes to authchart (spec section 2), as TypeScript types.
import type { SecondFactorOptions } from './factors.js';
import type { OrganizationsOptions } from './organizations.js';
import type { SsoOptions } from '../sso/options.js';
import type { Adapter } from './adapter.js';
import type { CookiesConfig } from './cookies.js';
import type { Theme } from './theme.js';
import type { Messages } from './messages/en.js';
import type { Account, AdapterSession, AdapterUser, Awaitable, JWT, JWTDecodeParams, JWTEncodeParams, Profile, Session, SessionVerification, User } from './types.js';
import type { AnyProvider } from './provider.js';
import type { ThrottleLimit, ThrottleOptions } from './throttle/options.js';
import type { FlowStore } from './flow-store/store.js';
import type { ActivityOptions } from './activity-options.js';

/** Passing this as `skipCSRFCheck` disables the CSRF check. A named opt-out, never a boolean. */
export const skipCSRFCheck: unique symbol = Symbol('skip-csrf-check');

export type SessionStrategy = 'jwt' | 'database';

export interface JWTOptions {
  /** Seconds until the JWT expires; defaults to `session.maxAge`. */
  maxAge?: number;
  encode?: (params: JWTEncodeParams) => Awaitable<string>;
  decode?: (params: JWTDecodeParams) => Awaitable<JWT | null>;
  /**
   * How many verified session tokens this process remembers (exact token → its claims), so a browser's repeat
   * checks skip the decryption. Default 10,000; 0 turns it off; unused with a custom `decode`. Each entry holds the
   * token and its claims: about 1 KB for a typical 600-character cookie, so ~10 MB at the default when full.
   * Expiry is checked on every hit, and "sessions valid after" is applied as without the cache.
   */
  verifiedTokenCache?: number;
}

export interface SessionOptions {
  strategy?: SessionStrategy;
  /** Idle expiry in seconds (default 30 days). */
  maxAge?: number;
  /** Seconds between session refreshes (default 1 day); 0 refreshes on every access. */
  updateAge?: number;
  /** Database strategy only: makes the token stored in the session cookie. */
  generateSessionToken?: () => string;
  /**
   * JWT strategy: where each user's "sessions valid after" time lives, which "sign out everywhere" sets and every
   * refresh checks. Default: the adapter, when it has `getSessionsValidAfter`/`setSessionsValidAfter`. A store given
   * here wins over the adapter (e.g. {@link SessionsValidAfterStore} in Redis: `redisSessionsValidAfter(client)`).
   */
  validAfter?: SessionsValidAfterStore;
  /**
   * Database strategy: `true` says the app lists and ends sessions (`GET sessions`, `POST sessions/revoke`, the
   * session-control helpers), so an adapter without `listSessions`/`deleteSessions` is refused at start with
   * `MissingAdapterMethods` instead of each such request answering 400. Unset, such an adapter is warned about at
   * start (`session-control-unavailable`).
   *
   * @example
   * session: { strategy: 'database', control: true } // PostgresAdapter has the methods
   */
  control?: boolean;
  /**
   * JWT strategy, opt-in: `'in-session-cookie'` keeps the access token, refresh token and expiry of the provider a
   * user signed in with inside the sealed (encrypted) session token, so `getAccessToken` works without an adapter or
   * token store. Reserved claims: only authchart writes them, callbacks never see them, `/session` never shows them.
   * A refresh rewrites the session cookie. Single-flight across instances and tabs only with a flow store that can
   * claim a key (`redisFlowStore`); otherwise within one instance (docs/provider-tokens-jwt.md says what races).
   *
   * @example
   * session: { strategy: 'jwt', providerTokens: 'in-session-cookie' }, flowStore: redisFlowStore(redis)
   */
  providerTokens?: ProviderTokensInSession;
}

/** Where {@link SessionOptions.providerTokens} keeps provider tokens: the one opt-in value. */
export type ProviderTokensInSession = 'in-session-cookie';

/**
 * Keeps each user's "sessions valid after" time for JWT sessions (see the README's "Ending JWT sessions").
 *
 * @example
 * const times = new Map<string, Date>(); // one process only: use Redis or the adapter with several instances
 * session: { validAfter: { get: (id) => times.get(id) ?? null, set: (id, at) => void times.set(id, at) } }
 */
export interface SessionsValidAfterStore {
  /** The user's time, or null when none was set (or it lapsed). */
  get(userId: string): Awaitable<Date | null>;
  /**
   * Sets the user's time to `at` unless a later one is kept (never moves back). `keepUntil` is when every token
   * that began before `at` has expired (`at` + `jwt.maxAge`): the time may be forgotten after it.
   */
  set(userId: string, at: Date, keepUntil: Date): Awaitable<void>;
}

export interface PagesOptions {
  signIn: string;
  signOut: string;
  error: string;
  verifyRequest: string;
  newUser: string;
  /**
   * The account page (linked accounts, passkeys, second factors, devices). Unset: the built-in one at
   * `{basePath}/account`; set: that route redirects here, and link and unlink come back here.
   */
  account: string;
}

export type CredentialInput = { label?: string; type?: string; placeholder?: string; autocomplete?: string };

export interface SignInCallbackParams {
  user: User | AdapterUser;
  account: Account | null;
  profile?: Profile;
  email?: { verificationRequest?: boolean };
  credentials?: Record<string, unknown>;
}

export interface JWTCallbackParams {
  token: JWT;
  user?: User | AdapterUser;
  account?: Account | null;
  profile?: Profile;
  trigger?: 'signIn' | 'signUp' | 'update';
  /** @deprecated use `trigger === 'signUp'` */
  isNewUser?: boolean;
  /** Data the client sent with a session update (validate it!). */
  session?: unknown;
}

export interface SessionCallbackParams {
  session: Session;
  token?: JWT;
  user?: AdapterUser;
  newSession?: unknown;
  trigger?: 'update';
  /** Database sessions: when and how the session was last verified (JWT sessions: `token.auth_time`, `token.amr`). */
  verification?: SessionVerification | null;
}

export interface CallbacksOptions {
  signIn?: (params: SignInCallbackParams) => Awaitable<boolean | string>;
  redirect?: (params: { url: string; baseUrl: string }) => Awaitable<string>;
  session?: (params: SessionCallbackParams) => Awaitable<Session | Record<string, unknown>>;
  jwt?: (params: JWTCallbackParams) => Awaitable<JWT | null>;
  /** Used by the middleware form of `auth`: false redirects to sign-in, a Response wins. */
  authorized?: (params: { auth: Session | null; request: Request }) => Awaitable<boolean | Response | undefined | void>;
}

export interface EventsOptions {
  signIn?: (message: { user: User; account: Account | null; profile?: Profile; isNewUser?: boolean }) => Awaitable<void>;
  signOut?: (message: { session?: AdapterSession | null; token?: JWT | null }) => Awaitable<void>;
  createUser?: (message: { user: User }) => Awaitable<void>;
  updateUser?: (message: { user: User }) => Awaitable<void>;
  linkAccount?: (message: { user: User | AdapterUser; account: Account; profile: User | AdapterUser }) => Awaitable<void>;
  /** A provider account was unlinked from a signed-in user (`POST {basePath}/unlink/:provider/:providerAccountId`). */
  unlinkAccount?: (message: { user: User | AdapterUser; account: Account }) => Awaitable<void>;
  session?: (message: { session: Session; token?: JWT }) => Awaitable<void>;
  /** A sign-in request was refused by the throttle (429, or 503 when the store is down and the limit fails closed). */
  rateLimited?: (message: RateLimitedMessage) => Awaitable<void>;
  /** A second factor became active (its enrolment was confirmed with a first code). */
  factorEnrolled?: (message: { user: User | AdapterUser; factor: { id: string; kind: string } }) => Awaitable<void>;
  /** A second factor (or the set of backup codes) was removed. */
  factorRemoved?: (message: { user: User | AdapterUser; factor: { id?: string; kind: string } }) => Awaitable<void>;
  /** A wrong code at the second-factor stage; `locked` when it was the last one allowed (the sign-in is dead). */
  secondFactorFailed?: (message: { user: User | AdapterUser; attempts: number; locked: boolean }) => Awaitable<void>;
  /** An organization was created; `by` is its first owner. */
  organizationCreated?: (message: OrganizationEventMessage) => Awaitable<void>;
  /** A user joined an organization (`by`: who added them; the user themselves for an accepted invitation). */
  memberAdded?: (message: OrganizationEventMessage & { userId: string; role: string }) => Awaitable<void>;
  /** A member left or was removed (`by` is the member when they left). */
  memberRemoved?: (message: OrganizationEventMessage & { userId: string; role: string }) => Awaitable<void>;
  /** A member's role changed. */
  memberRoleChanged?: (message: OrganizationEventMessage & { userId: string; from: string; to: string }) => Awaitable<void>;
  /** A webhook endpoint failed for the whole failure window (a day by default) and is no longer sent to. */
  webhookEndpointDisabled?: (message: WebhookEndpointDisabledMessage) => Awaitable<void>;
  /** An invitation was sent (or re-sent, replacing the pending one) to `email` with `role`. */
  invitationSent?: (message: OrganizationEventMessage & InvitationEventMessage) => Awaitable<void>;
  /** An invitation was accepted; `by` is the user who accepted it (a `memberAdded` follows when they were not a member). */
  invitationAccepted?: (message: OrganizationEventMessage & InvitationEventMessage) => Awaitable<void>;
  /** A pending invitation was revoked by `by`. */
  invitationRevoked?: (message: OrganizationEventMessage & Omit<InvitationEventMessage, 'role'>) => Awaitable<void>;
}

/** The `webhookEndpointDisabled` event: which endpoint, since when it failed, and its last error. */
export interface WebhookEndpointDisabledMessage {
  endpointId: string;
  /** The endpoint's origin only: a URL's path or query may hold a token. */
  origin: string;
  failingSince: Date;
  disabledAt: Date;
  lastError: string;
}

/** What every invitation event says beside the organization: which invitation, to which address, for which role. */
export interface InvitationEventMessage {
  invitationId: string;
  email: string;
  role: string;
}

/** What every organization event says: which organization, and who acted (a user id). */
export interface OrganizationEventMessage {
  organizationId: string;
  by: string;
}

/** The `rateLimited` event: which limit refused, from which client, and for how long. No account name is included. */
export interface RateLimitedMessage {
  limit: ThrottleLimit;
  /** The provider whose sign-in was refused, when the limit is a provider's. */
  provider?: string;
  /** The client's address as seen by authchart (undefined when unknown). */
  clientAddress?: string;
  retryAfter: number;
  /** The store was down and the limit fails closed. */
  storeDown: boolean;
}

export interface LoggerInstance {
  error(error: Error): void;
  warn(code: string, message?: string): void;
  debug(message: string, metadata?: unknown): void;
}

/**
 * The configuration of authchart.
 *
 * @example
 * const config: AuthConfig = { secret: process.env.AUTH_SECRET, providers: [Credentials({ authorize })] }
 */
export interface AuthConfig {
  providers: AnyProvider[];
  adapter?: Adapter;
  basePath?: string;
  secret?: string | string[];
  session?: SessionOptions;
  jwt?: JWTOptions;
  callbacks?: CallbacksOptions;
  events?: EventsOptions;
  /**
   * Names and attributes of the cookies authchart writes, per role: `sessionToken`, `callbackUrl`, `csrfToken`, and
   * the flow cookies (`flow`; Auth.js's `pkceCodeVerifier` / `state` / `nonce` configure the OAuth flow cookie,
   * `webauthnChallenge` the WebAuthn one). A flow cookie's name gets `.<provider id>` appended.
   *
   * @example
   * cookies: { sessionToken: { name: 'app.session' }, pkceCodeVerifier: { options: { sameSite: 'none', secure: true } } }
   */
  cookies?: CookiesConfig;
  useSecureCookies?: boolean;
  pages?: Partial<PagesOptions>;
  theme?: Theme;
  /**
   * The language of the built-in pages and mails for a request: a locale tag (`'fr'`, `'pt-BR'`), or nothing to use
   * the browser's `Accept-Language`. A tag with no messages falls back the same way. Shipped: en, de, fr, es, ja, ar.
   *
   * @example
   * locale: (request) => new URL(request.url).searchParams.get('lang')
   */
  locale?: (request: Request) => Awaitable<string | null | undefined>;
  /**
   * Text by locale, type-checked against the English message ids: a new locale (missing ids fall back to its
   * language's shipped text, then English), or single messages of a shipped one replaced.
   *
   * @example
   * messages: { pt: { 'signin.title': 'Entrar' }, en: { 'signin.title': 'Log in' } }
   */
  messages?: Readonly<Record<string, Partial<Messages>>>;
  /** The locale when neither `locale` nor `Accept-Language` names one that is available (default `'en'`). */
  defaultLocale?: string;
  logger?: Partial<LoggerInstance>;
  /**
   * Debug output: `logger.debug` gets every adapter call and every flow record. Outside production it also opens
   * the flow inspector at `{basePath}/_inspect` and a failed flow's trace on the built-in error page, each showing a
   * browser only the flows that browser ran. `{ inspector: 'shared' }` shows every browser every flow (one
   * developer's machine, a demo): only where nobody else can reach the server. Never in production, whatever it says.
   *
   * @example
   * debug: process.env.NODE_ENV !== 'production'
   * debug: { inspector: 'shared' }
   */
  debug?: boolean | DebugOptions;
  /**
   * Whether the Host and X-Forwarded-Host / X-Forwarded-Proto headers may be believed when AUTH_URL is not set.
   * `true` believes any host (fine behind a proxy that sets them); a list believes only those hosts and refuses
   * any other with UntrustedHost (400): exact hosts (`app.example.com`, `localhost:3000`) or `*.parent.domain`
   * (exactly one label in place of `*`). Of several comma-separated X-Forwarded-* values, the last (the one your
   * nearest proxy added) is used. Defaults to AUTH_TRUST_HOST (true/false or a comma-separated list), else true on
   * a platform that sets Host itself (`VERCEL` or `CF_PAGES` set, as Auth.js detects them), else true outside
   * production. An explicit `false` (option or variable) always wins over the platform.
   *
   * @example
   * trustHost: ['app.example.com', '*.preview.example.com']
   */
  trustHost?: boolean | string[];
  /**
   * Where OAuth providers send users back when this deployment's own callback is not registered with them
   * (preview deployments): the base URL of a stable deployment that shares the secret, up to the base path. A sign-in
   * started here sends `redirect_uri` on that deployment and a sealed `state` naming this one; that deployment
   * forwards the provider's answer here. Adds the `state` check. Falls back to `AUTH_REDIRECT_PROXY_URL`.
   *
   * @example
   * redirectProxyUrl: 'https://auth.example.com/auth'
   */
  redirectProxyUrl?: string;
  /**
   * On the stable deployment a redirect proxy names: the origins it forwards providers' answers to (the preview
   * deployments), as `scheme://host` patterns with `*.` standing for one label, as in `trustHost`. A sealed state
   * naming any other origin is refused (InvalidCheck), so a preview tricked into sealing a forged host cannot
   * have a live code sent there. Default: none (nothing is forwarded). Falls back to `AUTH_REDIRECT_PROXY_ORIGINS`
   * (comma-separated).
   *
   * @example
   * redirectProxyOrigins: ['https://*.preview.example.com']
   */
  redirectProxyOrigins?: string[];
  /**
   * Moving from Auth.js without signing anyone out: `'authjs'` also reads Auth.js's session cookie
   * (`authjs.session-token`, `__Secure-authjs.session-token`, and next-auth v4's `next-auth.session-token`,
   * chunked or not) when authchart's own is absent, and re-issues it as authchart's cookie on that request (clearing
   * the old one). JWT sessions are decrypted with Auth.js's key derivation and the same `secret`; database sessions
   * look the token up through the adapter. Off by default: remove it once your users' sessions have moved.
   *
   * @example
   * migrateFrom: 'authjs'
   */
  migrateFrom?: 'authjs';
  /**
   * Limits on sign-in attempts (failed passwords, magic links, WebAuthn ceremonies, sign-in requests per client).
   * On by default in production, in memory; see {@link ThrottleOptions} for the defaults and the shared stores.
   *
   * @example
   * throttle: { store: redisThrottleStore(redis), rules: { emailAddress: { points: 3, duration: 900 } } }
   */
  throttle?: ThrottleOptions;
  /**
   * Where flows keep state across requests and instances (`deps.store`): by default the adapter's database when the
   * adapter has the flow-store methods (PostgresAdapter does), else this process's memory (one instance only).
   * Give `redisFlowStore(client)` to share it through Redis.
   *
   * @example
   * flowStore: redisFlowStore(new Redis(process.env.REDIS_URL!, { enableOfflineQueue: false }))
   */
  flowStore?: FlowStore;
  /**
   * Deadline of one call to a store (the adapter's database, a transaction, the flow store), in ms; default 5000,
   * well under the 30 s a sign-in flow may take. Past it the request is answered `503 ServiceUnavailable` with
   * `Retry-After` instead of waiting for the outage to end. The throttle has its own, shorter one
   * (`throttle.timeout`, default 1000).
   *
   * @example
   * storeTimeout: 2000
   */
  storeTimeout?: number;
  /**
   * Second factors (authenticator-app codes, backup codes): a user who has one passes it after any first-factor
   * sign-in before a session is issued. Needs an adapter with the factor methods (PostgresAdapter has them).
   *
   * @example
   * secondFactor: { issuer: 'Acme', require: ({ user }) => user.email?.endsWith('@acme.example') ?? false }
   */
  secondFactor?: SecondFactorOptions;
  /**
   * Organizations: members with roles (owner, admin, member, and the app's roles as sets of permissions), the active
   * organization kept in the session and checked on every read. Needs an adapter with the organization methods.
   *
   * @example
   * organizations: { roles: { billing: ['invoice:read', 'invoice:approve'] } }
   */
  organizations?: OrganizationsOptions;
  /**
   * Enterprise SSO per organization: each organization's admin connects its own identity provider (OIDC; SAML 2.0)
   * at runtime and proves its domains by DNS; "Continue with SSO" on the sign-in page routes an address of a verified
   * domain to its connection. Needs `organizations` and an adapter with the SSO methods. See docs/sso.md.
   *
   * @example
   * sso: {}
   */
  sso?: SsoOptions;
  /**
   * The security activity log: one record per sign-in, failure, factor or password change, session end, account or
   * membership change (docs/activity-and-webhooks.md). On when set; records go to the adapter (`appendActivity`,
   * PostgresAdapter has it) in the transaction of the outcome, and to the sinks.
   *
   * @example
   * activity: { retention: { days: 30 }, sinks: [activityStream((records) => ship(records))] }
   */
  activity?: ActivityOptions;
  /**
   * The app's signed-in flows, made with `defineSignedInFlow` (authchart/flow): machines a signed-in user runs at
   * `POST {basePath}/flows/:id/start` and `GET|POST {basePath}/flows/:id`, behind the session gate at the level each
   * declares.
   *
   * @example
   * flows: [confirmPhone]
   */
  flows?: readonly SignedInFlowLike[];
  skipCSRFCheck?: typeof skipCSRFCheck;
  experimental?: { enableWebAuthn?: boolean };
}

/** The object form of {@link AuthConfig.debug}: debug output on, with these choices. */
export interface DebugOptions {
  /**
   * Whose flows the inspector and the error page's trace show: `own` (default) only the flows this browser ran,
   * told by a random id in an HttpOnly cookie; `shared` every flow any browser ran on this server.
   */
  inspector?: 'own' | 'shared';
}

/** A signed-in flow as the configuration holds it (made with `defineSignedInFlow` from authchart/flow). */
export interface SignedInFlowLike {
  readonly id: string;
  readonly machine: unknown;
  readonly version: number;
  readonly signedIn: true;
}

export type ServerAuthConfig = AuthConfig;
export type AuthInitConfig = AuthConfig;
