// Turns the user's configuration into the internal one: defaults, environment, validation.
// Runs once per configuration object; per-request parts (origin, secure cookies) live in http/request.
import type { SecondFactorOptions } from './factors.js';
import type { OrganizationsOptions } from './organizations.js';
import type { SsoOptions } from '../sso/options.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { assertAdapter, wrapAdapter, type AdapterNeeds, type WrappedAdapter } from './adapter-wrap.js';
import { DuplicateProviderId, ExperimentalFeatureNotEnabled, InvalidProvider, MissingAdapter, MissingAuthorize, MissingSecret, UnsupportedStrategy } from './errors.js';
import { authUrlFromEnv, hostSettingPlatform, runtimeEnv, secretsFromEnv, type Env } from './env.js';
import { identifierField, type IdentifiedProvider } from './credentials-identifier.js';
import { parseOriginPatterns, parseTrustedHosts, trustHostFromEnv, type OriginPatterns, type TrustedHosts } from './hosts.js';
import { createLogger, type Logger } from './logger.js';
import type { AuthConfig, CallbacksOptions, EventsOptions, JWTOptions, PagesOptions, ProviderTokensInSession, SessionStrategy, SessionsValidAfterStore, SignedInFlowLike } from './options.js';
import { skipCSRFCheck } from './options.js';
import type { Theme } from './theme.js';
import { resolveI18n, type I18nConfig } from './messages/config.js';
import type { CookiesConfig } from './cookies.js';
import { isPasswordProvider, type ResolvedProvider } from './provider.js';
import { defaultCallbacks } from './callbacks.js';
import { assertConditionalUI } from './webauthn-config.js';
import { resolveActivity, type ResolvedActivity } from './activity-options.js';
import { emailCodeOptions } from './email-code.js';
import { resolveThrottle, type ResolvedThrottle, type ThrottleCounter } from './throttle/options.js';
import { memoryThrottleStore } from './throttle/store.js';
import { flowStoreWithDeadline, resolveFlowStore } from './flow-store/resolve.js';
import { DEFAULT_STORE_TIMEOUT } from './store-deadline.js';
import type { FlowStore } from './flow-store/store.js';

export interface InternalConfig {
  providers: ResolvedProvider[];
  providersById: Map<string, ResolvedProvider>;
  /** The app's signed-in flows by id (`flows`). */
  flowsById: ReadonlyMap<string, SignedInFlowLike>;
  adapter?: WrappedAdapter;
  basePath: string;
  /** Newest first: the first encrypts, any decrypts. */
  secrets: string[];
  session: { strategy: SessionStrategy; maxAge: number; updateAge: number; generateSessionToken: () => string; validAfter?: SessionsValidAfterStore; providerTokens?: ProviderTokensInSession };
  jwt: Required<Pick<JWTOptions, 'maxAge' | 'verifiedTokenCache'>> & Pick<JWTOptions, 'encode' | 'decode'>;
  callbacks: Required<Omit<CallbacksOptions, 'authorized'>> & Pick<CallbacksOptions, 'authorized'>;
  events: EventsOptions;
  cookies?: CookiesConfig;
  useSecureCookies?: boolean;
  pages: Partial<PagesOptions>;
  theme: Theme;
  /** The languages of pages and mails (`locale`, `messages`, `defaultLocale`). */
  i18n: I18nConfig;
  logger: Logger;
  debug: boolean;
  /** Whose flows the development inspector and error-page trace show (`debug: { inspector }`). */
  inspector: 'own' | 'shared';
  /** Whether Host / X-Forwarded-* may be believed (an allow-list counts as true). */
  trustHost: boolean;
  /** With `trustHost: [...]`: the only hosts believed; any other is refused with UntrustedHost. */
  trustedHosts?: TrustedHosts;
  /** AUTH_URL, when set: the origin (and possibly base path) of the deployment. */
  url?: URL;
  redirectProxyUrl?: string;
  /** `redirectProxyOrigins` / AUTH_REDIRECT_PROXY_ORIGINS, parsed: where this deployment, as a proxy, forwards. */
  redirectProxyOrigins?: OriginPatterns;
  /** `'authjs'`: Auth.js session cookies are read (and re-issued as authchart's) when authchart's own is absent. */
  migrateFrom?: 'authjs';
  /** Sign-in limits; undefined when throttling is off (the default outside production). */
  throttle?: ResolvedThrottle;
  /**
   * Claims of single-use tokens (magic links), taken before the adapter's `useVerificationToken`: one claim per
   * hashed token, so a take is once-only even on an adapter whose take is a read then a delete. In the throttle
   * store when one is configured (Redis, PostgreSQL: shared by every instance), else in this process's memory.
   */
  singleUse: ThrottleCounter;
  /** Where flows keep state across requests (`deps.store`): the configured store, the adapter's, or memory. */
  flowStore: FlowStore;
  /** Deadline of one store call, in ms (`storeTimeout`). */
  storeTimeout: number;
  /** Second factors; undefined when the option is not set (no stage, no factor routes). */
  secondFactor?: Required<Pick<SecondFactorOptions, 'issuer' | 'maxAttempts'>> & Pick<SecondFactorOptions, 'require'>;
  /** Organizations; undefined when the option is not set (no organization routes, no active organization). */
  organizations?: OrganizationsOptions;
  /** Enterprise SSO; undefined when the option is not set (no SSO routes). */
  sso?: SsoOptions;
  /** The security activity log; undefined when the option is not set (no record is made). */
  activity?: ResolvedActivity;
  skipCSRFCheck: boolean;
  enableWebAuthn: boolean;
  production: boolean;
  env: Env;
}

export interface ResolveOptions {
  env?: Env;
  /** `/auth` for the h3 and Node integrations, `/api/auth` for AuthInit. */
  defaultBasePath?: string;
}

const DAY = 24 * 60 * 60;

/** Provider types authchart has a flow for; any other type must bring its own. */
export const BUILT_IN_TYPES: ReadonlySet<string> = new Set(['oauth', 'oidc', 'email', 'credentials', 'webauthn']);

function normalizeBasePath(path: string): string {
  const p = `/${path.replace(/^\/+|\/+$/g, '')}`;
  return p === '/' ? '' : p;
}

/** The redirect proxy's forwarding allow-list: the option, else the variable (comma-separated); none by default. */
function proxyOrigins(option: string[] | undefined, variable: string | undefined): OriginPatterns | undefined {
  const list = option ?? (variable ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return list.length > 0 ? parseOriginPatterns(list, 'redirectProxyOrigins') : undefined;
}

/**
 * A credentials provider's `identifier` must be a field name or `false`; with throttling on it must name one, so no
 * password guess goes uncounted against an account.
 */
/** An e-mail provider's `code` option out of bounds stops the start, naming the provider. */
function assertEmailCode(p: ResolvedProvider): void {
  try {
    emailCodeOptions(p as { code?: boolean });
  } catch (err) {
    throw new InvalidProvider(`E-mail provider "${p.id}": ${(err as Error).message}`);
  }
}

function assertIdentifier(p: IdentifiedProvider & { id: string }, throttled: boolean): void {
  const { identifier } = p;
  if (identifier !== undefined && identifier !== false && (typeof identifier !== 'string' || identifier === '')) {
    throw new InvalidProvider(`Credentials provider "${p.id}": \`identifier\` must be a field name or false.`);
  }
  if (throttled && identifierField(p) === undefined) {
    throw new InvalidProvider(
      `Credentials provider "${p.id}" names no field for the account, so its password limit could not count per account. Declare the form (\`credentials: { email: {}, password: { type: 'password' } }\`), set \`identifier: 'email'\`, or \`identifier: false\` when the form names no account.`,
    );
  }
}

/**
 * The features of a configuration that call adapter methods (checked at start by `assertAdapter`, and by
 * `authchart doctor`). OAuth sign-ins store accounts when there is an adapter.
 *
 * @example
 * assertAdapter(config.adapter, adapterNeedsOf(config, providers))
 */
export function adapterNeedsOf(config: AuthConfig, providers: readonly { type: string; password?: unknown }[]): AdapterNeeds {
  const strategy: SessionStrategy = config.session?.strategy ?? (config.adapter ? 'database' : 'jwt');
  return {
    database: strategy === 'database' || (config.adapter != null && providers.some((p) => p.type === 'oauth' || p.type === 'oidc')),
    email: providers.some((p) => p.type === 'email'),
    webauthn: providers.some((p) => p.type === 'webauthn'),
    secondFactor: config.secondFactor !== undefined,
    sessionControl: strategy === 'database' && config.session?.control === true,
    password: providers.some(isPasswordProvider),
    organizations: config.organizations !== undefined,
    sso: config.sso !== undefined,
  };
}

/**
 * Resolves and validates a configuration. Throws the named error of the first problem found.
 *
 * @example
 * const internal = resolveConfig({ providers: [], secret: 's'.repeat(32) })
 */
export function resolveConfig(config: AuthConfig, options: ResolveOptions = {}): InternalConfig {
  const env = options.env ?? runtimeEnv();
  const production = env.NODE_ENV === 'production';
  const logger = createLogger(config.logger, Boolean(config.debug));

  let secrets = config.secret === undefined ? secretsFromEnv(env) : (Array.isArray(config.secret) ? config.secret : [config.secret]);
  secrets = secrets.filter((s) => typeof s === 'string' && s.length > 0);
  if (secrets.length === 0) {
    if (production) throw new MissingSecret('Please define a `secret` (AUTH_SECRET) in production.');
    // Development only: an ephemeral random secret keeps a fresh checkout working; sessions end on restart.
    logger.warn('missing-secret', 'No secret configured; using a random development secret. Set AUTH_SECRET.');
    secrets = [randomBytes(32).toString('base64url')];
  }
  for (const s of secrets) {
    if (s.length < 32) logger.warn('weak-secret', 'A secret is shorter than 32 characters; use `openssl rand -base64 33`.');
  }

  const providers = (config.providers ?? []).map((p) => (typeof p === 'function' ? p() : p)) as ResolvedProvider[];
  const providersById = new Map<string, ResolvedProvider>();
  for (const p of providers) {
    if (!p || typeof p !== 'object' || typeof p.id !== 'string' || !p.id) throw new InvalidProvider('Every provider needs an `id`.');
    if (!/^[A-Za-z0-9_-]+$/.test(p.id)) throw new InvalidProvider(`Provider id "${p.id}" may only contain letters, digits, "-" and "_".`);
    if (providersById.has(p.id)) throw new DuplicateProviderId(`Two providers share the id "${p.id}".`);
    if (!BUILT_IN_TYPES.has(p.type) && p.flow === undefined) throw new InvalidProvider(`Provider "${p.id}" has type "${p.type}", which has no built-in flow; give it a \`flow\` made with defineFlow().`);
    if (p.type === 'credentials' && !isPasswordProvider(p) && typeof p.authorize !== 'function') throw new MissingAuthorize(`Credentials provider "${p.id}" has no \`authorize\` function.`);
    if (p.type === 'webauthn' && !config.experimental?.enableWebAuthn) throw new ExperimentalFeatureNotEnabled('WebAuthn is experimental: set `experimental.enableWebAuthn: true`.');
    providersById.set(p.id, p);
  }
  const flowsById = signedInFlowsOf(config.flows);
  if (config.experimental?.enableWebAuthn) logger.warn('experimental-webauthn', 'WebAuthn support is experimental and may change.');
  assertConditionalUI(providers);
  for (const p of providers) if (p.type === 'email') assertEmailCode(p);

  const strategy: SessionStrategy = config.session?.strategy ?? (config.adapter ? 'database' : 'jwt');
  if (strategy === 'database' && !config.adapter) throw new MissingAdapter('The `database` session strategy needs an `adapter`.');
  assertValidAfterStore(config.session?.validAfter, strategy);
  assertProviderTokens(config.session?.providerTokens, strategy);
  if (config.sso && !config.organizations) throw new UnsupportedStrategy('SSO connections belong to organizations: `sso` needs the `organizations` option too.', { option: 'sso' });
  if (config.adapter) {
    assertAdapter(config.adapter, adapterNeedsOf(config, providers));
    if (strategy === 'database' && config.session?.control === undefined && (typeof config.adapter.listSessions !== 'function' || typeof config.adapter.deleteSessions !== 'function')) {
      logger.warn('session-control-unavailable', 'The adapter has no listSessions/deleteSessions: listing and ending sessions (GET sessions, POST sessions/revoke) answer 400. Set session.control: true to require them at start, or false to silence this.');
    }
  } else if (providers.some((p) => p.type === 'email' || p.type === 'webauthn')) {
    throw new MissingAdapter('E-mail and WebAuthn providers need an `adapter`.');
  } else if (providers.some(isPasswordProvider)) {
    throw new MissingAdapter('A Password provider keeps users and their password hashes in the `adapter` (getUserByEmail, getPasswordHash, setPasswordHash): configure one, e.g. PostgresAdapter.');
  } else if (config.secondFactor) {
    throw new MissingAdapter('Second factors are stored by the adapter: `secondFactor` needs an `adapter`.');
  } else if (config.organizations || config.sso) {
    throw new MissingAdapter('Organizations are stored by the adapter: `organizations` needs an `adapter` with the organization methods (PostgresAdapter has them).');
  }

  const activity = resolveActivity(config.activity);
  if (activity && activity.sinks.length === 0 && typeof config.adapter?.appendActivity !== 'function') {
    logger.warn('activity-nowhere', 'activity is set, but the adapter has no appendActivity and no sink is configured: no record is kept. Use PostgresAdapter (and `npx authchart migrate`) or add a sink.');
  }
  const throttle = resolveThrottle(config.throttle, production);
  for (const p of providers) if (p.type === 'credentials') assertIdentifier(p as IdentifiedProvider & { id: string }, throttle !== undefined);

  const maxAge = config.session?.maxAge ?? 30 * DAY;
  let url: URL | undefined;
  const authUrl = authUrlFromEnv(env);
  if (authUrl) {
    try {
      url = new URL(authUrl.value);
    } catch {
      logger.warn('invalid-auth-url', `${authUrl.name} "${authUrl.value}" is not a URL; ignoring it.`);
    }
  }
  const basePath = normalizeBasePath(config.basePath ?? (url && url.pathname !== '/' ? url.pathname : options.defaultBasePath ?? '/auth'));
  // A platform that sets Host itself (Vercel, Cloudflare Pages) turns on what `trustHost: true` means, unless
  // `trustHost` or AUTH_TRUST_HOST says otherwise: an explicit false always wins.
  const explicitTrust = config.trustHost ?? trustHostFromEnv(env.AUTH_TRUST_HOST);
  const platform = explicitTrust === undefined ? hostSettingPlatform(env) : undefined;
  const trust = explicitTrust ?? (platform ? true : url ? false : !production);
  // An empty list trusts no host, as `false` does.
  const trustedHosts = Array.isArray(trust) && trust.length > 0 ? parseTrustedHosts(trust) : undefined;
  const trustHost = Array.isArray(trust) ? trustedHosts !== undefined : trust === true;
  if (production && trust === true && !url && !platform) {
    logger.warn('trust-host-any', 'trustHost is true without AUTH_URL: any Host or X-Forwarded-Host is believed, and it names the links in sign-in mails. List your hosts instead: trustHost: ["app.example.com"] or AUTH_TRUST_HOST=app.example.com.');
  }

  const storeTimeout = storeTimeoutOf(config.storeTimeout);
  const adapter = config.adapter ? wrapAdapter(config.adapter, logger, { timeout: storeTimeout }) : undefined;
  return withHiddenEnv({
    providers,
    providersById,
    flowsById,
    adapter,
    basePath,
    secrets,
    session: {
      strategy,
      maxAge,
      updateAge: config.session?.updateAge ?? DAY,
      generateSessionToken: config.session?.generateSessionToken ?? (() => randomUUID()),
      validAfter: config.session?.validAfter,
      ...(config.session?.providerTokens ? { providerTokens: config.session.providerTokens } : {}),
    },
    jwt: { maxAge: config.jwt?.maxAge ?? maxAge, encode: config.jwt?.encode, decode: config.jwt?.decode, verifiedTokenCache: verifiedTokenCacheSize(config.jwt?.verifiedTokenCache) },
    callbacks: { ...defaultCallbacks, ...config.callbacks } as InternalConfig['callbacks'],
    events: config.events ?? {},
    cookies: config.cookies,
    useSecureCookies: config.useSecureCookies,
    pages: config.pages ?? {},
    theme: config.theme ?? {},
    i18n: resolveI18n(config),
    logger,
    debug: Boolean(config.debug),
    inspector: typeof config.debug === 'object' && config.debug?.inspector === 'shared' ? 'shared' : 'own',
    trustHost,
    trustedHosts,
    url,
    redirectProxyUrl: config.redirectProxyUrl ?? env.AUTH_REDIRECT_PROXY_URL,
    redirectProxyOrigins: proxyOrigins(config.redirectProxyOrigins, env.AUTH_REDIRECT_PROXY_ORIGINS),
    migrateFrom: migrateFromOf(config.migrateFrom),
    throttle,
    // Made even when throttling is off: single use is not a limit one may switch off. Ten minutes is far longer
    // than any race between confirmations; the adapter's own delete keeps the token used after that.
    singleUse: (config.throttle?.store ?? memoryThrottleStore()).counter('single-use', { points: 1, duration: 600 }),
    flowStore: flowStoreWithDeadline(resolveFlowStore(config.flowStore, adapter, { production, logger }), storeTimeout),
    storeTimeout,
    skipCSRFCheck: config.skipCSRFCheck === skipCSRFCheck,
    enableWebAuthn: Boolean(config.experimental?.enableWebAuthn),
    organizations: config.organizations && { roles: { ...config.organizations.roles }, invitations: { ...config.organizations.invitations } },
    ...(config.sso ? { sso: { ...config.sso } } : {}),
    activity,
    secondFactor: config.secondFactor && { issuer: config.secondFactor.issuer ?? 'authchart', maxAttempts: config.secondFactor.maxAttempts ?? 5, require: config.secondFactor.require },
    production,
    env,
  });
}

/**
 * Makes `env` a non-enumerable property: a resumed flow's context reaches the configuration through `deps`, and
 * xstate's restore walks every enumerable object in it, which would enumerate the whole environment
 * (`runtimeEnv()` reads each variable through the runtime) on every callback. Reading `config.env` is unchanged.
 */
function withHiddenEnv(config: InternalConfig): InternalConfig {
  return Object.defineProperty(config, 'env', { value: config.env, enumerable: false, writable: false, configurable: false });
}

/** `storeTimeout` is a positive number of ms; anything else is a configuration error, not a store without deadline. */
function storeTimeoutOf(value: unknown): number {
  if (value === undefined) return DEFAULT_STORE_TIMEOUT;
  if (typeof value === 'number' && value > 0 && Number.isFinite(value)) return value;
  throw new UnsupportedStrategy(`storeTimeout must be a positive number of milliseconds, not ${String(value)}.`, { option: 'storeTimeout', actual: value });
}

/** `migrateFrom` accepts only what authchart can read; a typo must not silently sign every user out. */
function migrateFromOf(value: unknown): 'authjs' | undefined {
  if (value === undefined || value === false || value === null) return undefined;
  if (value === 'authjs') return value;
  throw new UnsupportedStrategy(`migrateFrom: "${String(value)}" is not supported; the only value is 'authjs'.`, { option: 'migrateFrom', expected: ['authjs'], actual: value });
}

/** `session.validAfter` is a store with `get` and `set`, and only JWT sessions use it (a database session is ended by deleting its row). */
function assertValidAfterStore(store: SessionsValidAfterStore | undefined, strategy: SessionStrategy): void {
  if (store === undefined) return;
  if (typeof store?.get !== 'function' || typeof store.set !== 'function') {
    throw new UnsupportedStrategy('`session.validAfter` must be a store with `get(userId)` and `set(userId, at, keepUntil)`.');
  }
  if (strategy !== 'jwt') throw new UnsupportedStrategy('`session.validAfter` applies to JWT sessions; database sessions are ended by deleting their rows.');
}

/** `session.providerTokens` is its one named value, and only the JWT strategy has a session token to keep them in. */
function assertProviderTokens(value: unknown, strategy: SessionStrategy): void {
  if (value === undefined) return;
  if (value !== 'in-session-cookie') throw new UnsupportedStrategy(`\`session.providerTokens\` is 'in-session-cookie' (or unset), not ${JSON.stringify(value)}.`);
  if (strategy !== 'jwt') throw new UnsupportedStrategy("`session.providerTokens: 'in-session-cookie'` applies to JWT sessions; with database sessions the adapter keeps provider tokens.");
}

/** Entries in the verified-token cache (see `JWTOptions.verifiedTokenCache`): a whole number, 0 for none. */
export const DEFAULT_VERIFIED_TOKEN_CACHE = 10_000;

function verifiedTokenCacheSize(value: number | undefined): number {
  if (value === undefined) return DEFAULT_VERIFIED_TOKEN_CACHE;
  if (!Number.isSafeInteger(value) || value < 0) throw new UnsupportedStrategy('`jwt.verifiedTokenCache` must be a whole number of entries (0 turns the cache off).');
  return value;
}

/** The configured signed-in flows by id: each made with defineSignedInFlow (it marks them), each id once. */
function signedInFlowsOf(flows: AuthConfig['flows']): ReadonlyMap<string, SignedInFlowLike> {
  const byId = new Map<string, SignedInFlowLike>();
  for (const flow of flows ?? []) {
    if (!flow || typeof flow !== 'object' || flow.signedIn !== true || typeof flow.id !== 'string') {
      throw new InvalidProvider('Every entry of `flows` must be made with defineSignedInFlow() from authchart/flow.');
    }
    if (byId.has(flow.id)) throw new InvalidProvider(`Two signed-in flows share the id "${flow.id}".`);
    byId.set(flow.id, flow);
  }
  return byId;
}
